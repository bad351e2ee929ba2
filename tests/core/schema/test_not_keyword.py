"""`not` as a keyword entry: generated values pass the reference validator and avoid the
negated schema, the `not` near-miss fails exactly at `not`, schemas the negation empties are
refused as contradictions only when that is proven, and otherwise as `schema.unbuildable`."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.core.schema.test_pattern_keywords import assert_exact, bases_and_mutants, refusal
from tests.keyword_laws import DRAFT_07, reference_validator
from tests.profiles import examples
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle
from toolfuzz_gate.core.engine.avoidance import avoidance
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.keywords import FAMILIES, KEYWORDS
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.node import CompiledSchema
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError


def member(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    """`schema` as the member `v` of a tool's arguments."""
    return {
        "type": "object",
        "properties": {"v": schema},
        **({"required": ["v"]} if required else {}),
    }


def case(compiled: CompiledSchema, seed: int, index: int) -> Any:
    return generate(compiled, seed, index, DEFAULT_LIMITS)


NEGATED = [
    {"type": "string"},
    {"type": ["integer", "boolean"]},
    {"type": "number"},
    {"const": 0},
    {"enum": [1, 2, "a"]},
    {"minimum": 10},
    {"pattern": "^a"},
    {"minLength": 3},
    {"type": "object", "required": ["k"]},
    {"type": "array", "minItems": 1},
    {"not": {"type": "integer"}},
    {"anyOf": [{"type": "string"}, {"type": "null"}]},
    {"multipleOf": 2},
]
BASES: list[dict[str, Any]] = [
    {},
    {"type": "integer", "minimum": 0, "maximum": 20},
    {"type": ["string", "integer", "null"]},
    {"type": "string", "maxLength": 6},
    {"enum": [0, 1, 2, "a", "b", None]},
    {"type": "object", "properties": {"k": {"type": "integer"}}},
    {"type": "array", "items": {"type": "boolean"}, "maxItems": 3},
]


@st.composite
def negating_schemas(draw: st.DrawFn) -> dict[str, Any]:
    node = dict(draw(st.sampled_from(BASES)))
    node["not"] = draw(st.sampled_from(NEGATED))
    if draw(st.booleans()):  # a second `not`, merged in through allOf
        node = {"allOf": [node, {"not": draw(st.sampled_from(NEGATED))}]}
    return member(node)


@settings(max_examples=examples(80))
@given(negating_schemas())
def test_values_avoid_the_negation_and_near_misses_match_it(schema: dict[str, Any]) -> None:
    """Every valid case passes both oracles (checked in `bases_and_mutants`); every `not`
    near-miss fails at `not` on `/v` and nowhere else."""
    try:
        compile_schema(schema)
    except SchemaError as error:  # proven empty, or beyond what rejection finds: no claim
        assert {p.code for p in error.problems} <= {"schema.contradiction", "schema.unbuildable"}
        assume(False)
    _, mutants = bases_and_mutants(schema)
    for operator, mutant, slow, fast in mutants:
        if operator.family == "not":
            assert operator.expected == ("not", "/v")
            assert_exact(operator, mutant, slow, fast)


@pytest.mark.parametrize("negated", NEGATED)
def test_each_negated_schema_is_avoided_over_many_cases(negated: dict[str, Any]) -> None:
    schema = member({"not": negated})
    compiled = compile_schema(schema)
    reference = JsonschemaOracle(schema)
    values = [case(compiled, 5, index) for index in range(40)]
    for value in values:
        assert reference.is_valid(value), value
        assert validate(compiled, value), value
    assert len({repr(v["v"]) for v in values}) > 5, "the rest of the domain is still explored"


def test_a_not_near_miss_is_offered_and_names_its_family() -> None:
    _, mutants = bases_and_mutants(member({"type": "integer", "not": {"const": 3}}))
    labels = [op.label for op, *_ in mutants if op.family == "not"]
    assert labels == ["not:matches-negated:0@/v"]
    assert [m["v"] for op, m, *_ in mutants if op.family == "not"] == [3]
    assert "not" in FAMILIES


def test_no_near_miss_when_the_rest_of_the_node_and_the_negation_share_nothing() -> None:
    _, mutants = bases_and_mutants(member({"type": "integer", "not": {"type": "string"}}))
    assert not [op for op, *_ in mutants if op.family == "not"]


def test_type_negations_are_subtracted_not_rejected() -> None:
    compiled = compile_schema(member({"not": {"type": ["number", "string"]}}))
    node = effective(compiled.root).domain.property_node("v")
    assert node is not None
    assert avoidance(effective(node)).base.domain.types == {"null", "boolean", "array", "object"}


def test_an_enum_loses_the_members_the_negation_matches() -> None:
    compiled = compile_schema(member({"enum": [1, 2, 3, "x"], "not": {"type": "integer"}}))
    values = {case(compiled, 1, index)["v"] for index in range(12)}
    assert values == {"x"}


def test_a_negated_required_name_is_left_out() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "not": {"required": ["a"]},
    }
    compiled = compile_schema(schema)
    values = [case(compiled, 2, index) for index in range(12)]
    assert all("a" not in value for value in values)
    assert any("b" in value for value in values)


def test_not_false_admits_everything_and_double_negation_too() -> None:
    for schema in (member({"not": False}), member({"not": {"not": {}}})):
        compiled = compile_schema(schema)
        values = [case(compiled, 3, index)["v"] for index in range(16)]
        assert len({type(value) for value in values}) >= 4, values


def test_not_of_everything_is_the_false_schema() -> None:
    # optional: compiles, and the member is never generated (as with `"v": false`)
    compiled = compile_schema(member({"not": {}}, required=False))
    assert all(case(compiled, 4, i) == {} for i in range(8))
    assert not validate(compiled, {"v": None})
    # required: provably empty
    assert refusal(member({"not": True})) == [("schema.contradiction", "/required/0")]


@pytest.mark.parametrize(
    ("node", "why"),
    [
        ({"type": "string", "not": {"type": "string"}}, "every type"),
        ({"enum": [1, 2], "not": {"enum": [2, 1.0]}}, "no enum or const member"),
        ({"type": "object", "required": ["a"], "not": {"required": ["a"]}}, "every name"),
        ({"type": "string", "minLength": 1, "not": {"minLength": 1}}, "every type"),
        ({"type": "integer", "minimum": 0, "not": {"maximum": 5}, "maximum": 5}, "every type"),
        ({"type": "array", "not": {"minItems": 0}}, "every type"),
    ],
)
def test_proven_empty_negations_are_contradictions(node: dict[str, Any], why: str) -> None:
    with pytest.raises(Exception) as error:
        compile_schema(member(node))
    problems = error.value.problems  # type: ignore[attr-defined]
    assert [(p.code, p.pointer) for p in problems] == [("schema.contradiction", "/properties/v")]
    assert why in problems[0].message


def test_a_negation_rejection_cannot_satisfy_is_unbuildable_not_a_contradiction() -> None:
    # Empty in fact, but nothing the engine subtracts proves it: no claim about the schema.
    node = {"type": "string", "pattern": "^a+$", "not": {"pattern": "^a"}}
    assert refusal(member(node)) == [("schema.unbuildable", "/properties/v")]


def test_a_not_that_leads_back_to_itself_is_a_cycle() -> None:
    assert ("schema.ref-cycle", "") in refusal({"type": "object", "not": {"$ref": "#"}})


def test_a_reference_inside_not_does_not_refuse_an_enum_member_before_linking() -> None:
    schema: dict[str, Any] = {
        "$defs": {"odd": {"enum": [1, 3]}},
        "type": "object",
        "properties": {"v": {"enum": [1, 2], "not": {"$ref": "#/$defs/odd"}}},
        "required": ["v"],
    }
    compiled = compile_schema(schema)
    assert {case(compiled, 0, index)["v"] for index in range(6)} == {2}


# --- Keyword.instance_types, which the subtraction relies on -----------------------------

ARGUMENTS: dict[str, Any] = {
    "minimum": 5,
    "maximum": -5,
    "exclusiveMinimum": 5,
    "exclusiveMaximum": -5,
    "multipleOf": 7,
    "minLength": 50,
    "maxLength": 0,
    "pattern": "^zz$",
    "format": "email",
    "items": False,
    "prefixItems": [False],
    "additionalItems": False,
    "minItems": 3,
    "maxItems": 0,
    "uniqueItems": True,
    "contains": False,
    "minContains": 2,
    "maxContains": 0,
    "properties": {"k": False},
    "required": ["k"],
    "additionalProperties": False,
    "patternProperties": {"^k": False},
    "propertyNames": False,
    "minProperties": 50,
    "maxProperties": 0,
    "dependentRequired": {"k": ["j"]},
    "dependencies": {"k": ["j"]},
    "dependentSchemas": {"k": {"required": ["j"]}},
}
SAMPLES: dict[str, list[Any]] = {
    "null": [None],
    "boolean": [True, False],
    "integer": [3, -7],
    "number": [2.5, -0.5],
    "string": ["", "ab"],
    "array": [[], [1, 1, "k"]],
    "object": [{}, {"k": 1, "z": [2]}],
}


def test_every_keyword_limited_to_some_types_has_an_argument_here() -> None:
    limited = {name for name, keyword in KEYWORDS.items() if keyword.instance_types is not None}
    assert limited == set(ARGUMENTS)


@pytest.mark.parametrize("name", sorted(ARGUMENTS))
def test_values_of_other_types_pass_a_keyword_limited_to_some(name: str) -> None:
    """What `instance_types` claims, checked by the engine and the reference validator."""
    types = KEYWORDS[name].instance_types
    assert types is not None
    drafts = KEYWORDS[name].drafts
    schema: dict[str, Any] = {name: ARGUMENTS[name]}
    if "2020-12" not in drafts:
        schema["$schema"] = DRAFT_07
    if name in ("minContains", "maxContains"):
        schema["contains"] = {"type": "integer"}
    if name == "additionalItems":  # it governs the items after a positional list
        schema["items"] = [{}]
    compiled = compile_schema(schema, options=SchemaOptions(format_assertion=True))
    reference = reference_validator(schema)
    others = [v for kind, values in SAMPLES.items() if kind not in types for v in values]
    for value in others:
        assert validate(compiled, value), (name, value)
        assert reference.is_valid(value), (name, value)
    # and the keyword does constrain its own types: some sample of them fails it
    own = [v for kind, values in SAMPLES.items() if kind in types for v in values]
    assert not all(validate(compiled, value) for value in own), name


def test_a_double_negation_through_a_reference_stays_bounded() -> None:
    """`{"not": {"not": {"$ref": "#"}}}` is the root again: its expansions are counted like any
    other `$ref`, so generation ends (it recursed without bound before they were)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"not": {"not": {"$ref": "#"}}}},
    }
    compiled = compile_schema(schema)
    reference = JsonschemaOracle(schema)
    for index in range(8):
        value = case(compiled, 1, index)
        assert reference.is_valid(value), value
    required = {**schema, "required": ["a"]}  # every value would hold itself: none is finite
    assert ("schema.contradiction", "/properties/a") in refusal(required)


def test_not_of_a_reference_to_everything_is_a_contradiction_once_linked() -> None:
    schema: dict[str, Any] = {
        "$defs": {"anything": {}},
        "type": "object",
        "properties": {"v": {"not": {"$ref": "#/$defs/anything"}}},
        "required": ["v"],
    }
    assert ("schema.contradiction", "/properties/v") in refusal(schema)
