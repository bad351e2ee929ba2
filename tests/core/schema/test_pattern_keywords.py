"""`pattern`, `patternProperties` and `propertyNames` as keyword entries: generated values
pass both oracles, near-misses fail both at exactly their keyword and path, and
unsatisfiable combinations are refused when compiling, at the keyword's pointer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.profiles import examples
from toolfuzz_gate.core.campaign.oracle import (
    JsonschemaOracle,
    JsonschemaRsOracle,
    fails_exactly_at,
)
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import Operator, apply, iter_operators
from toolfuzz_gate.core.jsonutil.values import is_integer
from toolfuzz_gate.core.schema.keywords import FAMILIES
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.node import CompiledSchema
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError

PATTERNS = [
    "^[a-z]+$",
    "^[a-z][a-z0-9_]{2,15}$",
    "^\\d{3}-\\d{4}$",
    "[0-9]{2,}",
    "^[A-Z]{2}\\d+$",
    "^(draft|final|archived)$",
    "^[a-z]+(-[a-z]+)*$",
    "x_",
    "^\\S+@\\S+\\.[a-z]{2,6}$",
    "^https?://[a-z0-9.]+(/[a-z0-9]*)?$",
    "^.{2,8}$",
    "^\\s*\\w",
]
KEY_PATTERNS = ["^x-", "^[0-9]+$", "_id$", "^[a-z]{1,3}$", "f.*o"]
BASES = 8


def refusal(schema: Any) -> list[tuple[str, str]]:
    with pytest.raises(SchemaError) as error:
        compile_schema(schema)
    return [(p.code, p.pointer) for p in error.value.problems]


def compiled_or_skip(schema: dict[str, Any]) -> CompiledSchema:
    try:
        return compile_schema(schema)
    except SchemaError as error:
        assert {p.code for p in error.problems} == {"schema.contradiction"}, error
        assume(False)
        raise


def bases_and_mutants(
    schema: dict[str, Any],
) -> tuple[list[Any], list[tuple[Operator, Any, list[Any], list[Any]]]]:
    """Valid cases (checked against both oracles) and every operator's mutant of case 0,
    with both oracles' errors."""
    compiled = compiled_or_skip(schema)
    reference, fast = JsonschemaOracle(schema), JsonschemaRsOracle(schema)
    bases = [generate(compiled, 11, index, DEFAULT_LIMITS) for index in range(BASES)]
    for value in bases:
        assert reference.is_valid(value), (value, reference.errors(value))
        assert fast.is_valid(value), (value, fast.errors(value))
        assert validate(compiled, value), value
    mutants = []
    for index, operator in enumerate(iter_operators(compiled, DEFAULT_LIMITS)):
        maker = generator_for(11, index, DEFAULT_LIMITS, "hostile")
        mutant = apply(operator, bases[0], maker, compiled.root)
        if mutant is not None:
            mutants.append((operator, mutant, reference.errors(mutant), fast.errors(mutant)))
    return bases, mutants


def assert_exact(operator: Operator, mutant: Any, slow: list[Any], fast: list[Any]) -> None:
    at = operator.expected
    assert fails_exactly_at(slow, *at), (operator.label, mutant, slow)
    assert fails_exactly_at(fast, *at), (operator.label, mutant, fast)


@st.composite
def pattern_schemas(draw: st.DrawFn) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string", "pattern": draw(st.sampled_from(PATTERNS))}
    if draw(st.booleans()):
        node["minLength"] = draw(st.integers(0, 6))
    if draw(st.booleans()):
        node["maxLength"] = node.get("minLength", 0) + draw(st.integers(0, 30))
    return {"type": "object", "properties": {"s": node}, "required": ["s"]}


@settings(max_examples=examples(60))
@given(pattern_schemas())
def test_pattern_values_pass_and_near_misses_fail_exactly(schema: dict[str, Any]) -> None:
    _, mutants = bases_and_mutants(schema)
    for operator, mutant, slow, fast in mutants:
        if operator.keyword == "pattern":
            assert_exact(operator, mutant, slow, fast)


def test_pattern_near_misses_are_offered() -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]{3}$"}}}
    _, mutants = bases_and_mutants(schema)
    variants = {op.recipe.variant for op, *_ in mutants if op.keyword == "pattern"}
    assert variants == {"char-outside-class", "part-dropped", "anchor-broken", "end-broken"}
    assert {"pattern", "patternProperties", "propertyNames"} <= set(FAMILIES)


def test_end_broken_near_misses_break_the_end_a_prefix_check_accepts() -> None:
    # `re.match` without `$` (a prefix check) must reject every end-broken near-miss it sees
    # only if it were anchored: each one keeps a matching prefix and fails at its end.
    schema = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": "^[a-z0-9-]+$", "maxLength": 12}},
    }
    _, mutants = bases_and_mutants(schema)
    ends = [m for op, m, *_ in mutants if op.recipe.variant == "end-broken"]
    assert ends
    for mutant in ends:
        text = mutant["s"]
        assert re.match(r"[a-z0-9-]+", text) and not re.fullmatch(r"[a-z0-9-]+", text)


def test_end_broken_is_not_offered_without_an_end_anchor() -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]{3}"}}}
    _, mutants = bases_and_mutants(schema)
    assert "end-broken" not in {op.recipe.variant for op, *_ in mutants}


@st.composite
def keyed_schemas(draw: st.DrawFn) -> dict[str, Any]:
    sources = draw(st.lists(st.sampled_from(KEY_PATTERNS), min_size=1, max_size=3, unique=True))
    subschemas = st.sampled_from(
        [{"type": "integer"}, {"type": "string", "maxLength": 4}, {"type": "boolean"}, {}]
    )
    schema: dict[str, Any] = {
        "type": "object",
        "patternProperties": {source: draw(subschemas) for source in sources},
    }
    names = draw(st.lists(st.sampled_from(["foo", "x-a", "12", "name", "user_id"]), unique=True))
    if names:
        schema["properties"] = {name: draw(subschemas) for name in names}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    if draw(st.booleans()):
        schema["propertyNames"] = {"maxLength": draw(st.integers(3, 10))}
    return schema


@settings(max_examples=examples(60))
@given(keyed_schemas())
def test_pattern_keys_are_generated_valid_and_mutated_exactly(schema: dict[str, Any]) -> None:
    _, mutants = bases_and_mutants(schema)
    defined = set(schema.get("properties", {}))
    for operator, mutant, slow, fast in mutants:
        first = operator.steps[0][0] if operator.steps else None
        if first is not None and first not in defined:
            assert operator.family == "patternProperties", operator.label
            if operator.keyword == "type":
                assert_exact(operator, mutant, slow, fast)  # a value under a pattern key, broken
        if operator.keyword == "additionalProperties":
            assert_exact(operator, mutant, slow, fast)


def test_high_mode_adds_keys_the_patterns_match() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^x-[a-z]+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    bases, mutants = bases_and_mutants(schema)
    assert bases[0] == {}  # LOW: optional members absent
    assert any(key.startswith("x-") for key in bases[1])
    keyed = [m for m in mutants if m[0].path.startswith("/x-")]
    assert {m[0].family for m in keyed} == {"patternProperties"}
    assert {m[0].keyword for m in keyed} == {"type"}
    for mutant in keyed:
        assert_exact(*mutant)  # a matching key whose value breaks the pattern's schema


def test_a_property_matching_a_pattern_satisfies_both() -> None:
    schema = {
        "type": "object",
        "properties": {"f_o": {"type": "integer"}},
        "patternProperties": {"f.*o": {"minimum": 10, "maximum": 12}},
        "required": ["f_o"],
    }
    bases, _ = bases_and_mutants(schema)
    assert all(10 <= value["f_o"] <= 12 for value in bases)


@settings(max_examples=examples(40))
@given(
    st.sampled_from(
        [{"maxLength": 3}, {"pattern": "^[a-z]+$"}, {"enum": ["foo", "bar"]}, {"minLength": 2}]
    ),
    st.booleans(),
)
def test_property_names_near_misses_fail_exactly(names: dict[str, Any], closed: bool) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"foo": {"type": "integer"}, "bar": {"type": "string"}},
        "propertyNames": names,
    }
    if closed:
        schema["additionalProperties"] = False
    _, mutants = bases_and_mutants(schema)
    named = [m for m in mutants if m[0].family == "propertyNames"]
    assert named
    for operator, mutant, slow, fast in named:
        if operator.keyword == "enum" and operator.recipe.variant.endswith("other-type"):
            continue  # a key is always a string: a non-string "name" is no near-miss
        assert_exact(operator, mutant, slow, fast)


def test_names_forbidden_by_property_names_are_not_generated() -> None:
    schema = {
        "type": "object",
        "properties": {"ok": {"type": "integer"}, "too_long": {"type": "integer"}},
        "propertyNames": {"maxLength": 3},
    }
    bases, _ = bases_and_mutants(schema)
    assert all("too_long" not in value for value in bases)
    assert any("ok" in value for value in bases)


def test_unknown_key_near_miss_matches_no_pattern() -> None:
    schema = {
        "type": "object",
        "patternProperties": {"^unexpected": {"type": "integer"}, "~": {}},
        "additionalProperties": False,
    }
    _, mutants = bases_and_mutants(schema)
    unknown = [m for m in mutants if m[0].keyword == "additionalProperties"]
    assert len(unknown) == 1
    assert_exact(*unknown[0])


def test_no_unknown_key_when_a_pattern_matches_every_name() -> None:
    schema = {"type": "object", "patternProperties": {"^": {}}, "additionalProperties": False}
    _, mutants = bases_and_mutants(schema)
    assert not [m for m in mutants if m[0].keyword == "additionalProperties"]


@pytest.mark.parametrize(
    ("node", "pointer"),
    [
        ({"type": "string", "pattern": "a", "maxLength": 0}, "/properties/s/pattern"),
        ({"type": "string", "pattern": "^a{2,3}$", "minLength": 4}, "/properties/s/pattern"),
        ({"type": "string", "pattern": "^ab$", "maxLength": 1}, "/properties/s/pattern"),
        ({"type": "string", "pattern": "^(ab|c)$", "minLength": 3}, "/properties/s/pattern"),
    ],
)
def test_patterns_no_string_within_the_lengths_matches(node: Any, pointer: str) -> None:
    schema = {"type": "object", "properties": {"s": node}}
    assert refusal(schema) == [("schema.contradiction", pointer)]


@pytest.mark.parametrize(
    "node",
    [
        {"type": "string", "pattern": "a^b"},
        {"type": "string", "pattern": "^(abc)+$", "minLength": 4, "maxLength": 5},
    ],
)
def test_a_pattern_the_engine_builds_nothing_for_is_unbuildable_not_a_contradiction(
    node: Any,
) -> None:
    """The length arithmetic does not prove these empty: only the sampler failed, which is
    a claim about the engine, not the schema (and no "admits no value" follows from it)."""
    schema = {"type": "object", "properties": {"s": node}, "required": ["s"]}
    assert refusal(schema) == [("schema.unbuildable", "/properties/s/pattern")]


# firecrawl's `jobId`: a uuid, or the nil uuid, or the max uuid.
JOB_ID = (
    "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
    "|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
)


@pytest.mark.parametrize("assertion", [False, True])
def test_a_pattern_longer_than_the_open_length_window_is_built_for(assertion: bool) -> None:
    document: Any = {
        "type": "object",
        "properties": {"jobId": {"type": "string", "format": "uuid", "pattern": JOB_ID}},
        "required": ["jobId"],
    }
    options = SchemaOptions(format_assertion=assertion)
    schema = compile_schema(document, options=options)
    reference = Draft202012Validator(
        document, format_checker=Draft202012Validator.FORMAT_CHECKER if assertion else None
    )
    values = [generate(schema, 41, index, DEFAULT_LIMITS) for index in range(60)]
    assert all(reference.is_valid(v) for v in values)
    assert len({json.dumps(v) for v in values}) > 30
    near_misses = [o for o in iter_operators(schema, DEFAULT_LIMITS) if o.family == "pattern"]
    assert near_misses


@pytest.mark.parametrize(
    "node",
    [
        {"type": "string", "pattern": "a{2,3}", "minLength": 40},  # unanchored: padding
        {"type": "string", "pattern": "^ab", "minLength": 9},
        {"type": "string", "pattern": "^a*$", "maxLength": 0},
    ],
)
def test_patterns_some_string_within_the_lengths_matches(node: Any) -> None:
    bases, _ = bases_and_mutants({"type": "object", "properties": {"s": node}, "required": ["s"]})
    assert bases


def test_pattern_refusals_are_reported_at_their_pointers_in_one_pass() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"pattern": "(a"}, "b": {"pattern": 3}, "c": {"pattern": "(?i)x"}},
        "patternProperties": {"(a+)+": {}, "^ok$": {"minimum": "low"}},
        "propertyNames": {"pattern": "\\p{L}"},
        "items": {"patternProperties": {"": {}}},
    }
    assert sorted(refusal(schema)) == sorted(
        [
            ("schema.invalid-keyword-value", "/properties/a/pattern"),
            ("schema.invalid-keyword-value", "/properties/b/pattern"),
            ("schema.unsupported-pattern", "/properties/c/pattern"),
            ("schema.unsupported-pattern", "/patternProperties/(a+)+"),
            ("schema.invalid-keyword-value", "/patternProperties/^ok$/minimum"),
            ("schema.unsupported-pattern", "/propertyNames/pattern"),
            ("schema.unsupported-pattern", "/items/patternProperties/"),
        ]
    )


def test_refusal_messages_name_the_construct_and_offset() -> None:
    with pytest.raises(SchemaError) as error:
        compile_schema({"pattern": "ab(?<=c)"})
    (problem,) = error.value.problems
    assert "lookbehind" in problem.message and "offset 2" in problem.message


def test_required_names_against_property_names_and_patterns() -> None:
    forbidden = {"type": "object", "required": ["long_name"], "propertyNames": {"maxLength": 4}}
    assert refusal(forbidden) == [("schema.contradiction", "/required/0")]
    clashing = {
        "type": "object",
        "properties": {"f_o": {"type": "string"}},
        "patternProperties": {"f.*o": {"type": "integer"}},
        "required": ["f_o"],
    }
    assert refusal(clashing) == [("schema.contradiction", "/required/0")]
    closed = {
        "type": "object",
        "patternProperties": {"^x-": {"type": "integer"}},
        "additionalProperties": False,
        "required": ["x-y"],
    }
    bases, _ = bases_and_mutants(closed)
    assert all(is_integer(value["x-y"]) for value in bases)  # 1.0 is an integer too


def test_an_optional_property_no_value_can_satisfy_is_left_out() -> None:
    schema = {
        "type": "object",
        "properties": {"f_o": {"type": "string"}, "n": {"type": "integer"}},
        "patternProperties": {"f.*o": {"type": "integer"}},
    }
    bases, _ = bases_and_mutants(schema)
    assert all("f_o" not in value for value in bases)


@pytest.mark.parametrize(
    "schema",
    [
        {
            "type": "object",
            "properties": {
                "s": {"type": "string", "allOf": [{"pattern": "^[a-z]+$"}, {"pattern": "x"}]}
            },
            "required": ["s"],
        },
        {
            "type": "object",
            "properties": {
                "s": {"anyOf": [{"type": "string", "pattern": "^\\d+$"}, {"type": "integer"}]}
            },
            "required": ["s"],
        },
        {
            "$defs": {"slug": {"type": "string", "pattern": "^[a-z-]+$"}, "name": {"maxLength": 8}},
            "type": "object",
            "properties": {"s": {"$ref": "#/$defs/slug"}},
            "patternProperties": {"^x-": {"$ref": "#/$defs/slug"}},
            "propertyNames": {"$ref": "#/$defs/name"},
            "required": ["s"],
        },
    ],
)
def test_patterns_inside_compositions_and_references(schema: dict[str, Any]) -> None:
    _, mutants = bases_and_mutants(schema)
    new = [m for m in mutants if m[0].family in ("pattern", "patternProperties", "propertyNames")]
    assert new
    for mutant in new:
        assert_exact(*mutant)


@pytest.mark.parametrize(
    "schema",
    [
        {
            "type": "object",
            "patternProperties": {"^x-": {"type": "integer"}},
            "additionalProperties": False,
            "minProperties": 2,
        },
        {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "minProperties": 2},
        {
            "type": "object",
            "propertyNames": {"maxLength": 2, "pattern": "^[a-z]"},
            "minProperties": 3,
            "maxProperties": 3,
        },
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "patternProperties": {"^x-": {"type": "integer"}},
            "maxProperties": 1,
        },
    ],
)
def test_member_counts_with_pattern_keys_and_property_names(schema: dict[str, Any]) -> None:
    """`minProperties` beyond the declared names is met with keys the patterns or
    `propertyNames` admit; `maxProperties` caps the keys drawn from patterns."""
    bases, _ = bases_and_mutants(schema)
    low = schema.get("minProperties", 0)
    high = schema.get("maxProperties", 99)
    assert all(low <= len(value) <= high for value in bases)
