"""`if`/`then`/`else`, `dependentSchemas` and the schema form of draft-07 `dependencies`
(`core.schema.keywords.conditional`): the engine's reading against the `jsonschema` library,
generation on both sides, one-axis near-misses, and what cannot be built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.keyword_laws import DRAFT_07, check_laws, reference_validator
from tests.profiles import examples
from toolfuzz_gate.core.campaign.oracle import (
    JsonschemaOracle,
    JsonschemaRsOracle,
    fails_exactly_at,
)
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import apply, iter_operators
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"
DAYTONA = CORPUS / "crewai" / "crewai-tools" / "DaytonaFileTool.json"

KIND: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"enum": ["file", "link", "dir"]},
        "path": {"type": "string", "maxLength": 12},
        "target": {"type": "string"},
    },
    "required": ["kind"],
    "additionalProperties": False,
    "if": {"properties": {"kind": {"const": "link"}}},
    "then": {"required": ["target"], "properties": {"target": {"minLength": 1}}},
    "else": {"maxProperties": 2},
}
DEPENDENT: dict[str, Any] = {
    "type": "object",
    "properties": {"card": {"type": "integer"}, "billing": {"type": "string"}},
    "dependentSchemas": {
        "card": {"required": ["billing"], "properties": {"billing": {"maxLength": 3}}}
    },
}

READINGS: list[tuple[dict[str, Any], list[Any]]] = [
    (KIND, [{"kind": "link"}, {"kind": "link", "target": "t"}, {"kind": "file"}, 3]),
    (KIND, [{"kind": "file", "path": "p", "target": "t"}, {"kind": "dir", "path": "p"}]),
    ({"then": {"type": "string"}, "else": {"type": "string"}}, [1, "a", None]),
    ({"if": {"type": "string"}}, [1, "a", None]),
    ({"if": {"type": "string"}, "else": {"minimum": 3}}, [1, 5, "a", None]),
    ({"if": True, "then": {"type": "integer"}, "else": False}, [1, "a"]),
    ({"if": False, "then": False, "else": {"type": "integer"}}, [1, "a"]),
    (
        {"if": {"minimum": 0}, "then": {"if": {"maximum": 9}, "then": {"multipleOf": 2}}},
        [4, 5, 11, -3],
    ),
    (DEPENDENT, [{}, {"card": 1}, {"card": 1, "billing": "abc"}, {"card": 1, "billing": "abcd"}]),
    (DEPENDENT, [{"billing": "abcdef"}, [1], "card"]),
    ({"dependentSchemas": {"a": False, "b": True}}, [{"a": 1}, {"b": 1}, {}]),
    (
        {"$schema": DRAFT_07, "dependencies": {"a": {"required": ["b"]}, "c": ["a"]}},
        [{"a": 1}, {"a": 1, "b": 1}, {"c": 1}, {"c": 1, "a": 1, "b": 1}, {}],
    ),
]


@pytest.mark.parametrize(("schema", "instances"), READINGS)
def test_the_engine_reads_conditionals_as_jsonschema_does(
    schema: dict[str, Any], instances: list[Any]
) -> None:
    compiled = compile_schema(schema)
    reference = reference_validator(schema)
    verdicts = [(instance, validate(compiled, instance)) for instance in instances]
    assert verdicts == [(instance, reference.is_valid(instance)) for instance in instances]


def test_the_keywords_of_one_draft_are_refused_in_the_other() -> None:
    with pytest.raises(SchemaError) as error:
        compile_schema({"$schema": DRAFT_07, "dependentSchemas": {"a": {}}})
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.unsupported-keyword", "/dependentSchemas")
    ]
    with pytest.raises(SchemaError) as error:
        compile_schema({"dependencies": {"a": {"required": ["b"]}}})
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.unsupported-keyword", "/dependencies")
    ]


def test_problems_inside_then_and_else_are_reported_even_without_if() -> None:
    with pytest.raises(SchemaError) as error:
        compile_schema({"then": {"minLength": -1}, "else": {"unevaluatedItems": {}}})
    assert sorted((p.code, p.pointer) for p in error.value.problems) == [
        ("schema.invalid-keyword-value", "/then/minLength"),
        ("schema.unsupported-keyword", "/else/unevaluatedItems"),
    ]


@pytest.mark.parametrize("schema", [KIND, DEPENDENT])
def test_generated_values_take_both_sides(schema: dict[str, Any]) -> None:
    compiled = compile_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    values: list[Any] = [generate(compiled, 5, index, DEFAULT_LIMITS) for index in range(40)]
    assert all(reference.is_valid(value) for value in values), values
    if schema is KIND:
        sides = {value["kind"] == "link" for value in values}
    else:
        sides = {"card" in value for value in values}
    assert sides == {True, False}


def test_a_daytona_tool_with_one_if_per_action_generates_every_action() -> None:
    """CrewAI's Daytona file tool: thirteen `if`s in an `allOf`, each on `action`; drawn
    independently their sides almost never agree, built side by side they always do."""
    schema = json.loads(DAYTONA.read_text(encoding="utf-8"))
    compiled = compile_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    values: list[Any] = [generate(compiled, 41, index, DEFAULT_LIMITS) for index in range(60)]
    assert all(reference.is_valid(value) for value in values)
    actions = {value["action"] for value in values}
    assert actions == set(schema["properties"]["action"]["enum"])


def _near_misses(schema: dict[str, Any], family: str) -> dict[str, int]:
    """Confirmed near-misses of `family` by variant, over several bases and seeds; every one
    built must fail under both oracles at exactly its keyword and path."""
    compiled = compile_schema(schema)
    python, rust = JsonschemaOracle(schema), JsonschemaRsOracle(schema)
    confirmed: dict[str, int] = {}
    operators = [op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.family == family]
    for operator in operators:
        confirmed.setdefault(operator.recipe.variant, 0)
        for index in range(6):
            base = generate(compiled, 3, index, DEFAULT_LIMITS)
            maker = generator_for(3, index, DEFAULT_LIMITS, "hostile")
            mutant = apply(operator, base, maker, compiled.root)
            if mutant is None:
                continue
            for oracle in (python, rust):
                errors = oracle.errors(mutant)
                assert fails_exactly_at(errors, *operator.expected), (operator.label, mutant)
            assert not validate(compiled, mutant)
            confirmed[operator.recipe.variant] += 1
    return confirmed


def test_if_near_misses_break_then_or_else_on_one_axis() -> None:
    confirmed = _near_misses(KIND, "conditional")
    assert confirmed.get("then:missing:target", 0) > 0, confirmed
    assert confirmed.get("else:above-maxProperties", 0) > 0, confirmed
    schema = KIND["if"]
    for operator in iter_operators(compile_schema(KIND), DEFAULT_LIMITS):
        if operator.family != "conditional":
            continue
        maker = generator_for(1, 0, DEFAULT_LIMITS, "hostile")
        base = generate(compile_schema(KIND), 1, 0, DEFAULT_LIMITS)
        mutant = apply(operator, base, maker, compile_schema(KIND).root)
        if mutant is not None:  # the side the near-miss breaks is the side that applies
            matches = jsonschema.Draft202012Validator(schema).is_valid(mutant)
            assert matches == operator.recipe.variant.startswith("then:"), mutant


def test_dependent_schema_near_misses_keep_the_trigger() -> None:
    confirmed = _near_misses(DEPENDENT, "dependentSchemas")
    assert confirmed.get("card:missing:billing", 0) > 0, confirmed
    assert not any("maxLength" in variant for variant in confirmed)  # nested: `billing`'s own
    draft07: dict[str, Any] = {
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {}},
        "dependencies": {"a": {"required": ["b"], "maxProperties": 2}, "c": ["a"]},
    }
    laws = check_laws(draft07, 3, cases=12)
    assert ("required", "") in laws
    assert ("dependencies", "") in laws


def test_a_side_that_admits_nothing_leaves_the_condition_negated_and_proven_empty() -> None:
    """Every object matches `if`, whose `then` is false: the other side is built with the
    condition negated (`core.engine.choices.unmatched_side`), which leaves no type: proven."""
    schemas: list[Any] = [
        {"type": "object", "if": {"type": "object"}, "then": False},
        {"type": "object", "required": ["a"], "dependentSchemas": {"a": False}},
    ]
    for schema in schemas:
        with pytest.raises(SchemaError) as error:
            compile_schema(schema)
        assert [p.code for p in error.value.problems] == ["schema.contradiction"], schema


def test_a_reference_cycle_through_if_is_refused() -> None:
    schema: Any = {"$defs": {"a": {"if": {"$ref": "#/$defs/a"}, "then": {}}}, "$ref": "#/$defs/a"}
    with pytest.raises(SchemaError) as error:
        compile_schema(schema)
    assert {p.code for p in error.value.problems} == {"schema.ref-cycle"}


LEAVES: list[Any] = [
    {"required": ["b"]},
    {"properties": {"b": {"type": "string", "maxLength": 2}}},
    {"maxProperties": 2},
    {"minProperties": 3},
    {"properties": {"a": {"const": 1}}},
    {"properties": {"a": {"type": "integer", "minimum": 3}}},
    {"required": ["c"], "properties": {"c": {"enum": [True, None]}}},
    {},
    False,
]


@st.composite
def conditional_schemas(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {}},
    }
    if draw(st.booleans()):
        schema["if"] = draw(st.sampled_from(LEAVES))
        for side in ("then", "else"):
            if draw(st.booleans()):
                schema[side] = draw(st.sampled_from(LEAVES))
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True))
        schema["dependentSchemas"] = {name: draw(st.sampled_from(LEAVES)) for name in names}
    return schema


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(schema=conditional_schemas(), seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_conditional_generation_and_near_misses_hold_the_laws(
    schema: dict[str, Any], seed: int
) -> None:
    try:
        compile_schema(schema)
    except SchemaError as error:
        codes = {p.code for p in error.problems}
        assert codes <= {
            "schema.unbuildable",
            "schema.unsupported-combination",
            "schema.contradiction",
        }, error
        if "schema.contradiction" in codes:  # a proof: no object of the small world is valid
            reference = reference_validator(schema)
            assert not any(reference.is_valid(value) for value in _small_world()), error
        return
    check_laws(schema, seed)


def _small_world() -> list[dict[str, Any]]:
    """Objects enough to witness every satisfiable combination of `LEAVES`: each member
    absent or one of two values, one of which meets each leaf's bound and one not."""
    pools: list[tuple[str, list[Any]]] = [
        ("a", [1, 3]),
        ("b", ["", "xyz"]),
        ("c", [True, None]),
        ("d", [0]),
    ]
    world: list[dict[str, Any]] = [{}]
    for name, values in pools:
        world = [
            {**value, **({name: v} if v is not _ABSENT else {})}
            for value in world
            for v in [_ABSENT, *values]
        ]
    return world


_ABSENT = object()


THREE = {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {}}


@pytest.mark.parametrize(
    "schema",
    [
        # Hypothesis found it: `then: false` leaves only "more than two members"
        {"type": "object", "properties": THREE, "if": {"maxProperties": 2}, "then": False},
        {"type": "object", "properties": THREE, "dependentSchemas": {"a": False}},
    ],
)
def test_a_side_that_admits_nothing_steers_every_case_away_from_its_condition(
    schema: dict[str, Any],
) -> None:
    compiled = compile_schema(schema)
    reference = reference_validator(schema)
    for seed in range(6):
        for index in range(30):
            value = generate(compiled, seed, index, DEFAULT_LIMITS)
            assert reference.is_valid(value), (seed, index, value)
