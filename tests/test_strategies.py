"""Self-test of `tests.strategies`: the generated schemas keep the promises the module makes.

Every drawn schema is a valid draft 2020-12 schema (per `jsonschema`), stays inside the subset's
shape bounds, is satisfiable (a constructed witness instance validates under `jsonschema`), and
the engine compiles it and accepts the witness.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from jsonschema import Draft202012Validator

from tests.profiles import examples
from tests.strategies import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_PROPERTIES,
    MAX_STRING_LENGTH,
    schema_depth,
    subset_schemas,
)
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.schema.limits import UNSAFE_NAMES
from toolfuzz_gate.core.schema.validate import validate

SETTINGS = settings(
    max_examples=examples(50),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Preference order for a witness: the cheapest type to satisfy first.
_WITNESS_ORDER = ("null", "boolean", "integer", "number", "string", "array", "object")


def witness(schema: Any) -> Any:
    """A value valid under a schema drawn by `subset_schemas` (independently of the engine)."""
    if schema is True or not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return schema["enum"][0]
    declared = schema.get("type", "null")  # untyped: null meets every type-specific keyword
    types = [declared] if isinstance(declared, str) else declared
    chosen = min(types, key=_WITNESS_ORDER.index)
    if chosen == "boolean":
        return False
    if chosen in ("integer", "number"):
        return schema.get("minimum", schema.get("maximum", 0))
    if chosen == "string":
        return "x" * schema.get("minLength", 0)
    if chosen == "array":
        return [witness(schema.get("items", True)) for _ in range(schema.get("minItems", 0))]
    if chosen == "object":
        properties = schema.get("properties", {})
        return {name: witness(properties[name]) for name in schema.get("required", [])}
    return None


def _iter_objects(schema: Any) -> Any:
    if isinstance(schema, dict):
        yield schema
        for child in schema.get("properties", {}).values():
            yield from _iter_objects(child)
        if "items" in schema:
            yield from _iter_objects(schema["items"])


@SETTINGS
@given(subset_schemas())
def test_generated_schemas_are_valid_draft_2020_12(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert schema_depth(schema) <= MAX_DEPTH
    for node in _iter_objects(schema):
        properties = node.get("properties", {})
        assert len(properties) <= MAX_PROPERTIES
        assert not UNSAFE_NAMES & set(properties)
        assert set(node.get("required", [])) <= set(properties)
        assert node.get("maxLength", 0) <= MAX_STRING_LENGTH
        assert node.get("maxItems", 0) <= MAX_ITEMS
        for low, high in (("minimum", "maximum"), ("minLength", "maxLength")):
            if low in node and high in node:
                assert node[low] <= node[high]


@SETTINGS
@given(subset_schemas())
def test_generated_schemas_are_satisfiable(schema: dict[str, Any]) -> None:
    instance = witness(schema)
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(instance)]
    assert not errors, f"witness {instance!r} rejected: {errors}"


@SETTINGS
@given(subset_schemas())
def test_engine_compiles_generated_schemas(schema: dict[str, Any]) -> None:
    compiled = compile_schema(schema)  # a SchemaError here fails the test with its problems
    instance = witness(schema)
    assert validate(compiled, instance) is True, f"engine rejects witness {instance!r}"


def _names(schema: Any) -> set[str]:
    return {name for node in _iter_objects(schema) for name in node.get("properties", {})}


def _nodes(schema: Any) -> list[dict[str, Any]]:
    return list(_iter_objects(schema))


# Each corner the strategy promises to reach, as a predicate on a whole schema.
CORNERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "name with /": lambda s: any("/" in n for n in _names(s)),
    "name with ~": lambda s: any("~" in n for n in _names(s)),
    "non-ASCII name": lambda s: any(not n.isascii() for n in _names(s)),
    "depth 4": lambda s: schema_depth(s) == MAX_DEPTH,
    "type list": lambda s: any(isinstance(n.get("type"), list) for n in _nodes(s)),
    "untyped node": lambda s: any("type" not in n and "enum" not in n for n in _nodes(s)),
    "mixed enum": lambda s: any(len({type(m) for m in n.get("enum", [])}) > 1 for n in _nodes(s)),
    "additionalProperties false": lambda s: any(
        n.get("additionalProperties") is False for n in _nodes(s)
    ),
    "false property": lambda s: any(False in n.get("properties", {}).values() for n in _nodes(s)),
    "array items": lambda s: any("items" in n for n in _nodes(s)),
    "annotation": lambda s: any("default" in n or "examples" in n for n in _nodes(s)),
}


@pytest.mark.slow
def test_strategy_reaches_the_awkward_corners() -> None:
    """Escaped and non-ASCII names, full depth, type lists, mixed enums... all occur."""
    seen: set[str] = set()

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(subset_schemas())
    def record(schema: dict[str, Any]) -> None:
        seen.update(name for name, reached in CORNERS.items() if reached(schema))

    record()
    assert seen == set(CORNERS), f"never generated: {sorted(set(CORNERS) - seen)}"
