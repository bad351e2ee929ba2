"""How a policy's schema violations read to its author: pointer, message, hint (pure)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from toolfuzz_gate.core.gate.quoting import bounded, shown
from toolfuzz_gate.core.jsonutil import pointer as jp

if TYPE_CHECKING:
    import jsonschema


def described(error: jsonschema.ValidationError) -> list[tuple[str, str, str]]:
    """(pointer, message, hint) for each problem of one schema violation (one per unknown
    key), worded for a policy author."""
    where = jp.from_parts(error.absolute_path)
    kind, instance = error.validator, error.instance
    expected: Any = error.validator_value
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    if "propertyNames" in list(error.absolute_schema_path) and kind != "enum":
        # a name a pattern or a length refuses (a header's, a tool's in agent.context)
        return [(jp.join(where, str(instance)), f"name {bounded(error.message)}", "")]
    if "propertyNames" in list(error.absolute_schema_path):
        name = str(instance)
        known = schema.get("enum", [])
        close = difflib.get_close_matches(name, [str(k) for k in known], n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(map(str, known))}"
        # jsonschema checks a property name in place: the path is the mapping's
        return [(jp.join(where, name), f"unknown mutation family {shown(name)}", hint)]
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = sorted(schema.get("properties", {}))
        return [_unknown_key(where, str(name), known) for name in instance if name not in known]
    if kind == "required" and isinstance(instance, dict):
        # one error per missing key, each carrying the whole list: name them all (deduplicated)
        return [
            (jp.join(where, str(name)), f"missing key {str(name)!r}", _REQUIRED_HINTS.get(name, ""))
            for name in expected
            if name not in instance
        ]
    if kind == "const" and where == "/version":
        return [(where, f"version {shown(instance)} is not supported; it must be 1", "")]
    if kind == "type":
        return [(where, f"expected {expected}, got {kind_of(instance)}", "")]
    if kind == "pattern" and jp.split(where)[-2:-1] == ["ignore_output"]:
        hint = "a pointer into the output starts with /: /id, /meta/createdAt"
        return [(where, f"{shown(instance)} is not a JSON Pointer to an output member", hint)]
    if kind == "maxLength" and isinstance(instance, str):
        return [(where, f"{len(instance):,} characters, longer than the {expected:,} allowed", "")]
    if kind == "enum":
        choices = ", ".join("null" if item is None else str(item) for item in expected)
        return [(where, f"{shown(instance)} is not one of: {choices}", "")]
    return [(where, bounded(error.message), "")]


_REQUIRED_HINTS = {"version": "the format version comes first: `version: 1`"}


def _unknown_key(where: str, name: str, known: list[str]) -> tuple[str, str, str]:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
    return jp.join(where, name), f"unknown key {shown(name)}", hint


def kind_of(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)
