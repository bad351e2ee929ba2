"""`core.schema.references`: which `$ref`s are followed, how they link, and which cycles are
refused."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.references import target_pointer
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def problems(schema: Any) -> list[tuple[str, str]]:
    with pytest.raises(SchemaError) as error:
        compile_schema(schema)
    return [(p.code, p.pointer) for p in error.value.problems]


@pytest.mark.parametrize(
    ("ref", "pointer"),
    [
        ("#", ""),
        ("#/$defs/a", "/$defs/a"),
        ("#/definitions/a%20b", "/definitions/a b"),
        ("#/$defs/caf%C3%A9", "/$defs/café"),
        ("#/$defs/a~1b", "/$defs/a~1b"),
    ],
)
def test_local_pointers_are_followed(ref: str, pointer: str) -> None:
    assert target_pointer(ref) == (pointer, "")


@pytest.mark.parametrize("ref", ["other.json", "https://example.com/s.json#/a", "#anchor"])
def test_remote_and_anchor_references_are_refused_with_a_reason(ref: str) -> None:
    found, why = target_pointer(ref)
    assert found is None and why
    assert problems({"type": "object", "properties": {"a": {"$ref": ref}}}) == [
        ("schema.unsupported-ref", "/properties/a/$ref")
    ]


def test_missing_targets_are_named() -> None:
    assert problems({"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}) == [
        ("schema.unresolvable-ref", "/properties/a/$ref")
    ]


def test_cycles_that_never_descend_are_refused() -> None:
    assert problems({"$ref": "#"}) == [("schema.ref-cycle", "")]
    mutual = {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}}}
    found = problems({**mutual, "$ref": "#/$defs/a"})
    assert [code for code, _ in found] == ["schema.ref-cycle"]
    assert found[0][1] in {"", "/$defs/a", "/$defs/a/allOf/0", "/$defs/b"}


def test_a_nested_id_beside_references_is_refused() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$id": "https://example.com/a", "$ref": "#/$defs/x"}},
        "$defs": {"x": {"type": "string"}},
    }
    assert problems(schema) == [("schema.unsupported-ref", "/properties/a/$id")]


def test_references_may_point_anywhere_in_the_document() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "integer", "maximum": 3}, "b": {"$ref": "#/properties/a"}},
        "required": ["a", "b"],
    }
    compiled = compile_schema(schema)
    assert validate(compiled, {"a": 1, "b": 2})
    assert not validate(compiled, {"a": 1, "b": 4})
    assert not compiled.recursive


def test_recursive_models_compile_and_say_so() -> None:
    schema: dict[str, Any] = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["name", "next"],
            }
        },
        "$ref": "#/$defs/Node",
    }
    compiled = compile_schema(schema)
    assert compiled.recursive
    validator = jsonschema.Draft202012Validator(schema)
    values: list[Any] = [generate(compiled, 2, index, DEFAULT_LIMITS) for index in range(20)]
    assert all(validator.is_valid(v) for v in values)
    assert any(isinstance(v["next"], dict) for v in values)


def test_recursion_without_a_way_out_is_a_contradiction() -> None:
    schema = {
        "type": "object",
        "properties": {"t": {"$ref": "#/$defs/T"}},
        "$defs": {
            "T": {"type": "object", "properties": {"c": {"$ref": "#/$defs/T"}}, "required": ["c"]}
        },
    }
    assert ("schema.contradiction", "/$defs/T/properties/c") in problems(schema)


def test_draft_07_ignores_the_siblings_of_ref() -> None:
    schema: dict[str, Any] = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1}},
        "definitions": {"s": {"type": "string", "minLength": 2}},
    }
    compiled = compile_schema(schema)
    assert compiled.draft == "draft-07"
    validator = jsonschema.Draft7Validator(schema)
    values: tuple[dict[str, Any], ...] = ({"a": "abc"}, {"a": "a"})
    for value in values:
        assert validate(compiled, value) == validator.is_valid(value)
    assert validate(compiled, {"a": "abc"})


def test_unsupported_drafts_are_named() -> None:
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}
    assert problems(schema) == [("schema.unsupported-draft", "/$schema")]
