"""Draft-07 readings: the list form of `items` with `additionalItems`, `dependencies` (lists
of names and schemas), `not`, judged against `jsonschema.Draft7Validator` on hand-written
cases; keywords of one draft are refused in the other."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.keyword_laws import DRAFT_07, check_laws
from tests.profiles import examples
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError

TUPLE: dict[str, Any] = {"items": [{"type": "integer"}, {"type": "string"}]}
CASES: list[tuple[dict[str, Any], list[Any]]] = [
    (
        TUPLE,
        [[], [1], [1, "a"], [1, "a", None, 3], ["a"], [1, 2], "not an array"],
    ),
    (
        {**TUPLE, "additionalItems": False},
        [[1, "a"], [1, "a", 2], [1], []],
    ),
    (
        {**TUPLE, "additionalItems": {"type": "boolean"}},
        [[1, "a", True, False], [1, "a", True, 0], [1], [1, "a"]],
    ),
    (
        # with one schema for every item, additionalItems governs nothing
        {"items": {"type": "integer"}, "additionalItems": False},
        [[1, 2, 3], [], ["a"]],
    ),
    (
        {"additionalItems": False},
        [[1, 2], []],
    ),
    (
        {"dependencies": {"a": ["b", "c"], "b": []}},
        [{}, {"a": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}, {"b": 1}, [1], "a"],
    ),
    (
        # the schema form: read as `dependentSchemas`
        {"dependencies": {"bar": {"properties": {"foo": {"type": "integer"}}}}},
        [{"foo": 1, "bar": 2}, {"foo": "quux"}, {"foo": "quux", "bar": 2}, "bar", {}],
    ),
    (
        {"dependencies": {"foo": True, "bar": False, "a": ["b"], "c": {"required": ["d"]}}},
        [{"foo": 1}, {"bar": 2}, {}, {"a": 1}, {"a": 1, "b": 2}, {"c": 1}, {"c": 1, "d": 2}, 3],
    ),
    (
        {"type": "array", "items": [{"type": "integer"}], "minItems": 1, "uniqueItems": True},
        [[1], [1, 1], [1, 2], [], [1.0, 1]],
    ),
    (
        {"not": {"items": [{"type": "integer"}], "additionalItems": False}},
        [[1], [1, 2], ["a"], [], "a", None],
    ),
]


def _draft07(schema: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": DRAFT_07, **schema}


@pytest.mark.parametrize(("schema", "instances"), CASES)
def test_draft07_readings_match_draft7_validator(
    schema: dict[str, Any], instances: list[Any]
) -> None:
    document = _draft07(schema)
    compiled = compile_schema(document)
    assert compiled.draft == "draft-07"
    reference = jsonschema.Draft7Validator(document)
    verdicts = [(instance, validate(compiled, instance)) for instance in instances]
    assert verdicts == [(instance, reference.is_valid(instance)) for instance in instances]
    assert len({valid for _, valid in verdicts}) == 2 or len(instances) < 3


def test_the_same_list_is_positional_only_in_draft07() -> None:
    """In 2020-12 `items` must be one schema; the list form is refused there, not misread."""
    with pytest.raises(SchemaError) as error:
        compile_schema(TUPLE)
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.invalid-keyword-value", "/items")
    ]


@pytest.mark.parametrize(
    "keyword",
    [
        ("prefixItems", [{"type": "integer"}]),
        ("dependentRequired", {"a": ["b"]}),
        ("minContains", 2),
        ("maxContains", 2),
    ],
)
def test_2020_12_keywords_are_refused_in_draft07(keyword: tuple[str, Any]) -> None:
    name, argument = keyword
    with pytest.raises(SchemaError) as error:
        compile_schema(_draft07({"type": "array", "contains": {}, name: argument}))
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.unsupported-keyword", f"/{name}")
    ]
    assert "draft-07" in error.value.problems[0].message


@pytest.mark.parametrize("keyword", [("additionalItems", False), ("dependencies", {"a": ["b"]})])
def test_draft07_keywords_are_refused_in_2020_12(keyword: tuple[str, Any]) -> None:
    name, argument = keyword
    with pytest.raises(SchemaError) as error:
        compile_schema({"type": "object", name: argument})
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.unsupported-keyword", f"/{name}")
    ]


LEAVES: tuple[dict[str, Any], ...] = (
    {"type": "integer", "minimum": 0, "maximum": 9},
    {"type": "string", "maxLength": 3},
    {"type": "null"},
)


@st.composite
def draft07_schemas(draw: st.DrawFn) -> dict[str, Any]:
    positional = draw(st.lists(st.sampled_from(LEAVES), min_size=1, max_size=3))
    array: dict[str, Any] = {"type": "array", "items": positional}
    rest = draw(st.sampled_from([None, False, *LEAVES]))
    if rest is not None:
        array["additionalItems"] = rest
    negated = draw(st.sampled_from([{"const": 3}, {"multipleOf": 2}, {"maximum": 4}]))
    digit = {"type": "integer", "minimum": 0, "maximum": 9, "not": negated}
    return {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {
            "t": array,
            "a": {"type": "string"},
            "b": {"type": "integer"},
            "n": digit,
        },
        "required": ["t", "n"],
        "dependencies": {"a": ["b"]},
    }


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])
@given(schema=draft07_schemas(), seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_draft07_generation_and_near_misses(schema: dict[str, Any], seed: int) -> None:
    confirmed = check_laws(schema, seed, must_confirm={"dependencies", "not"})
    positions = len(schema["properties"]["t"]["items"])
    for index in range(positions):
        assert ("type", f"/t/{index}") in confirmed
    assert ("dependencies", "") in confirmed
    assert ("not", "/n") in confirmed
