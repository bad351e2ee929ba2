"""JSON value semantics as JSON Schema sees them: types and equality (pure)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON

TYPE_NAMES = ("null", "boolean", "object", "array", "number", "integer", "string")
ALL_TYPES = frozenset(TYPE_NAMES)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """JSON Schema counts 1.0 as an integer: integer-ness is mathematical."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def json_type(value: Any) -> str:
    """The most specific type name of a value (`integer` before `number`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    if is_integer(value):
        return "integer"
    if is_number(value):
        return "number"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def has_type(value: Any, types: frozenset[str]) -> bool:
    kind = json_type(value)
    if kind in types:
        return True
    return kind == "integer" and "number" in types


def intersect_types(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """Type sets where `number` also admits integers."""
    result = set(a & b)
    if ("integer" in a and "number" in b) or ("integer" in b and "number" in a):
        result.add("integer")
    return frozenset(result)


def json_equal(a: JSON, b: JSON) -> bool:
    """Equality per JSON Schema: 1 equals 1.0, but true never equals 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def equality_key(value: JSON) -> Any:
    """A hashable key under which two values collide exactly when they are equal as JSON
    (`json_equal`)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if is_number(value):
        return ("number", Fraction(value))  # type: ignore[arg-type]
    if isinstance(value, list):
        return ("array", tuple(equality_key(v) for v in value))
    assert isinstance(value, dict)
    return ("object", frozenset((k, equality_key(v)) for k, v in value.items()))


def copy_json(value: JSON) -> JSON:
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value
