"""Each interface change on both sides of the breaking line, decided on compiled schemas
(`core.gate.schema_compare`), and the law behind the line: for a change the walk calls not
breaking, every valid value base's schema generates is valid for head's too."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.gate.schema_compare import compare
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS


def obj(properties: dict[str, Any], required: tuple[str, ...] = (), **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), **more}


S = {"type": "string"}
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str, bool]] = [
    # (id, base, head, change, breaking)
    (
        "maxLength lowered",
        obj({"q": {**S, "maxLength": 24}}),
        obj({"q": {**S, "maxLength": 12}}),
        "bound-narrowed",
        True,
    ),
    (
        "maxLength raised",
        obj({"q": {**S, "maxLength": 12}}),
        obj({"q": {**S, "maxLength": 24}}),
        "bound-widened",
        False,
    ),
    (
        "minimum raised",
        obj({"n": {"type": "integer", "minimum": 0}}),
        obj({"n": {"type": "integer", "minimum": 5}}),
        "bound-narrowed",
        True,
    ),
    (
        "exclusiveMaximum lowered",
        obj({"n": {"type": "number", "exclusiveMaximum": 10}}),
        obj({"n": {"type": "number", "exclusiveMaximum": 9}}),
        "bound-narrowed",
        True,
    ),
    (
        "maximum dropped",
        obj({"n": {"type": "integer", "maximum": 5}}),
        obj({"n": {"type": "integer"}}),
        "bound-widened",
        False,
    ),
    (
        "maxItems lowered",
        obj({"a": {"type": "array", "maxItems": 5}}),
        obj({"a": {"type": "array", "maxItems": 2}}),
        "bound-narrowed",
        True,
    ),
    ("optional property added", obj({"q": S}), obj({"q": S, "lang": S}), "property-added", False),
    (
        "required property added",
        obj({"q": S}),
        obj({"q": S, "lang": S}, ("lang",)),
        "required-added",
        True,
    ),
    ("required dropped", obj({"q": S}, ("q",)), obj({"q": S}), "required-removed", False),
    (
        "enum member removed",
        obj({"m": {"enum": ["a", "b"]}}),
        obj({"m": {"enum": ["a"]}}),
        "enum-narrowed",
        True,
    ),
    (
        "enum member added",
        obj({"m": {"enum": ["a"]}}),
        obj({"m": {"enum": ["a", "b"]}}),
        "enum-widened",
        False,
    ),
    (
        "const narrows a string",
        obj({"m": S}),
        obj({"m": {**S, "const": "a"}}),
        "enum-narrowed",
        True,
    ),
    (
        "type narrowed",
        obj({"v": {"type": ["string", "integer"]}}),
        obj({"v": {"type": "string"}}),
        "type-changed",
        True,
    ),
    (
        "integer to number",
        obj({"v": {"type": "integer"}}),
        obj({"v": {"type": "number"}}),
        "type-changed",
        False,
    ),
    (
        "number to integer",
        obj({"v": {"type": "number"}}),
        obj({"v": {"type": "integer"}}),
        "type-changed",
        True,
    ),
    (
        "pattern added",
        obj({"q": S}),
        obj({"q": {**S, "pattern": "^[a-z]+$"}}),
        "pattern-changed",
        True,
    ),
    (
        "pattern dropped",
        obj({"q": {**S, "pattern": "^[a-z]+$"}}),
        obj({"q": S}),
        "pattern-changed",
        False,
    ),
    (
        "format added (annotation)",
        obj({"d": S}),
        obj({"d": {**S, "format": "date"}}),
        "format-changed",
        False,
    ),
    (
        "additionalProperties closed",
        obj({"q": S}),
        obj({"q": S}, additionalProperties=False),
        "additional-properties-closed",
        True,
    ),
    (
        "additionalProperties opened",
        obj({"q": S}, additionalProperties=False),
        obj({"q": S}),
        "additional-properties-opened",
        False,
    ),
    (
        "property removed, closed",
        obj({"q": S, "r": S}, additionalProperties=False),
        obj({"q": S}, additionalProperties=False),
        "property-removed",
        True,
    ),
    ("property removed, open", obj({"q": S, "r": S}), obj({"q": S}), "property-removed", False),
    (
        "multipleOf coarser",
        obj({"n": {"type": "integer", "multipleOf": 2}}),
        obj({"n": {"type": "integer", "multipleOf": 4}}),
        "multiple-changed",
        True,
    ),
    (
        "multipleOf finer",
        obj({"n": {"type": "integer", "multipleOf": 4}}),
        obj({"n": {"type": "integer", "multipleOf": 2}}),
        "multiple-changed",
        False,
    ),
    (
        "uniqueItems added",
        obj({"a": {"type": "array", "items": S}}),
        obj({"a": {"type": "array", "items": S, "uniqueItems": True}}),
        "unique-items-added",
        True,
    ),
    (
        "anyOf branch narrowed",
        obj({"v": {"anyOf": [{**S, "maxLength": 9}, {"type": "integer"}]}}),
        obj({"v": {"anyOf": [{**S, "maxLength": 5}, {"type": "integer"}]}}),
        "composition-changed",
        True,
    ),
    (
        "anyOf branch widened",
        obj({"v": {"anyOf": [{**S, "maxLength": 5}, {"type": "integer"}]}}),
        obj({"v": {"anyOf": [{**S, "maxLength": 9}, {"type": "number"}]}}),
        "composition-changed",
        False,
    ),
    (
        "oneOf gains a branch",
        obj({"v": {"oneOf": [S, {"type": "integer"}]}}),
        obj({"v": {"oneOf": [S, {"type": "integer"}, {"type": "boolean"}]}}),
        "composition-changed",
        True,
    ),
    (
        "items narrowed",
        obj({"a": {"type": "array", "items": {"type": "integer", "maximum": 9}}}),
        obj({"a": {"type": "array", "items": {"type": "integer", "maximum": 3}}}),
        "bound-narrowed",
        True,
    ),
]


@pytest.mark.parametrize(
    ("base", "head", "change", "breaking"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_change_is_named_and_placed_on_its_side_of_the_line(
    base: dict[str, Any], head: dict[str, Any], change: str, breaking: bool
) -> None:
    found = compare(compile_schema(base).root, compile_schema(head).root)
    assert [(c.change, c.breaking) for c in found if c.change == change] == [(change, breaking)], (
        found
    )
    assert any(c.breaking for c in found) is breaking, found


@pytest.mark.parametrize(
    ("base", "head"), [c[1:3] for c in CASES if not c[4]], ids=[c[0] for c in CASES if not c[4]]
)
def test_a_change_not_breaking_keeps_every_generated_base_call_valid(
    base: dict[str, Any], head: dict[str, Any]
) -> None:
    compiled = compile_schema(base)
    validator = jsonschema.Draft202012Validator(head)
    calls = [generate(compiled, 7, index, DEFAULT_LIMITS) for index in range(60)]
    assert all(validator.is_valid(call) for call in calls)


def test_a_ref_is_followed_and_a_change_behind_it_placed_where_it_is_written() -> None:
    def node(maximum: int) -> dict[str, Any]:
        return {
            "$defs": {
                "n": obj(
                    {"v": {"type": "integer", "maximum": maximum}, "next": {"$ref": "#/$defs/n"}}
                )
            },
            "$ref": "#/$defs/n",
        }

    found = compare(compile_schema(node(5)).root, compile_schema(node(3)).root)
    assert [(c.pointer, c.change, c.breaking, c.instance) for c in found] == [
        ("/$defs/n/properties/v/maximum", "bound-narrowed", True, "/v")
    ]


def test_a_format_added_breaks_when_head_asserts_formats() -> None:
    base, head = obj({"d": S}), obj({"d": {**S, "format": "date"}})
    found = compare(compile_schema(base).root, compile_schema(head).root, head_asserts_formats=True)
    assert [(c.change, c.breaking) for c in found] == [("format-changed", True)]


def test_the_same_schema_has_no_change() -> None:
    schema = obj({"q": {**S, "maxLength": 3}, "m": {"anyOf": [S, {"type": "integer"}]}}, ("q",))
    assert compare(compile_schema(schema).root, compile_schema(schema).root) == []
