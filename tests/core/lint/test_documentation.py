"""`core.lint.documentation`: each documentation check fires where it should, at its pointer, and
only there."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.lint.documentation import CODES, lint
from toolfuzz_gate.core.schema.options import SchemaOptions

CLEAN = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "default": "", "examples": ["cats"]},
        "n": {"type": "integer", "enum": [1, 2], "default": 1},
    },
    "required": ["q"],
}


def codes(schema: Any, *, compiled: bool = True) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in lint(schema, compiled=compiled)]


def test_a_clean_schema_has_no_findings() -> None:
    assert codes(CLEAN) == []


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {"type": "object", "properties": {"s": {"type": "string", "default": None}}},
            [("lint.default-invalid", "/properties/s/default")],
        ),
        (
            {"type": "object", "properties": {"s": {"maxLength": 2, "examples": ["ok", "long"]}}},
            [("lint.example-invalid", "/properties/s/examples/1")],
        ),
        (
            {"type": "object", "properties": {"a": {}}, "required": ["a", "b"]},
            [("lint.required-undefined", "/required/1")],
        ),
        (
            {"type": "object", "required": ["a"]},
            [("lint.required-undefined", "/required/0")],
        ),
        (
            {"type": "object", "properties": {"e": {"type": "string", "enum": ["a", 1, None]}}},
            [
                ("lint.enum-type", "/properties/e/enum/1"),
                ("lint.enum-type", "/properties/e/enum/2"),
            ],
        ),
        ({"$schema": "https://json-schema.org/draft/2020-12/schema"}, [("lint.empty-schema", "")]),
        ({"title": "t", "description": "d"}, [("lint.empty-schema", "")]),
        (
            {"type": "object", "properties": {"q": {"types": "string"}}, "strict": True},
            [("lint.unknown-keyword", "/strict"), ("lint.unknown-keyword", "/properties/q/types")],
        ),
        ({"x-order": 1}, [("lint.empty-schema", ""), ("lint.unknown-keyword", "/x-order")]),
    ],
)
def test_each_check(schema: Any, expected: list[tuple[str, str]]) -> None:
    assert codes(schema) == expected
    assert {code for code, _ in expected} <= set(CODES)


def test_defaults_are_judged_in_the_whole_document() -> None:
    schema = {
        "$defs": {"Loc": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "type": "object",
        "properties": {
            "good": {"$ref": "#/$defs/Loc", "default": {"city": "Oslo"}},
            "bad": {"$ref": "#/$defs/Loc", "default": {"city": 3}},
            "opt": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        },
    }
    assert codes(schema, compiled=False) == [("lint.default-invalid", "/properties/bad/default")]


def test_the_draft_decides_how_values_are_read() -> None:
    # In draft-07 `items` as a list is the tuple form; in 2020-12 it is not a schema at all.
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "items": [{"type": "string"}],
        "default": [1],
    }
    assert codes(schema, compiled=False) == [("lint.default-invalid", "/default")]


def test_format_is_judged_only_when_it_asserts() -> None:
    schema: dict[str, Any] = {"type": "string", "format": "email", "default": "nope"}
    assert codes(schema) == []
    found = lint(schema, compiled=True, options=SchemaOptions(format_assertion=True))
    assert [f.code for f in found] == ["lint.default-invalid"]


def test_unvetted_regular_expressions_are_not_run() -> None:
    # Catastrophic backtracking: judged by `re`, this default would take hours.
    hostile = {"type": "string", "pattern": "^(a+)+$", "default": "a" * 40 + "!"}
    assert codes(hostile, compiled=False) == []
    vetted = {"type": "string", "pattern": "^(a+)+$", "default": "a" * 8 + "!"}
    assert codes(vetted, compiled=True) == [("lint.default-invalid", "/default")]


def test_schemas_the_validator_cannot_read_are_not_judged() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "float", "default": "s"}}}
    assert codes(schema, compiled=False) == []
    broken = {"properties": {"x": {"$ref": "#/nowhere", "default": 1}}}
    assert codes(broken, compiled=False) == []


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("types", "did you mean 'type'?"),
        ("example", "did you mean 'examples'?; `--dialect openapi` or `--dialect gemini` reads it"),
        ("optional", "constrains nothing; `--dialect bfcl` reads it"),
        ("example_value", "constrains nothing"),
    ],
)
def test_an_unknown_keyword_is_named_with_what_was_meant(name: str, said: str) -> None:
    [finding] = lint({"type": "object", name: "x"}, compiled=True)
    assert finding.code == "lint.unknown-keyword"
    assert finding.message.startswith(f"{name!r} is not a JSON Schema keyword")
    assert finding.message.endswith(said)


def test_defined_keywords_the_engine_refuses_are_not_called_unknown() -> None:
    assert codes({"type": "object", "not": {}, "if": {}, "unevaluatedProperties": False}) == []
