"""`core.engine.mutate`: hostile near-misses break exactly one keyword at one path, judged by the
`jsonschema` library rather than by the engine's own reading."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.documents import doc
from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle, fails_exactly_at
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import Branch, Operator, apply, iter_operators
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.node import CompiledSchema

BASE_INDICES = (0, 1, 2)
POSTER_FAMILIES = {
    "type",
    "enum",
    "bounds",
    "length",
    "array-size",
    "required",
    "additionalProperties",
}
# These recipes cannot collide with another keyword of a schema drawn by `subset_schemas`:
# the near-miss they build is invalid for their keyword and for nothing else.
ALWAYS_CONFIRMED = {"required", "additionalProperties", "bounds", "length", "array-size"}

PROPERTY_SETTINGS = settings(
    max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow]
)
seeds = st.integers(min_value=0, max_value=2**31 - 1)


def _pointer(parts: Any) -> str:
    """RFC 6901, written here rather than borrowed from `core.jsonutil.pointer`."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _reference_sites(validator: Draft202012Validator, instance: Any) -> list[tuple[str, str]]:
    return [(str(e.validator), _pointer(e.absolute_path)) for e in validator.iter_errors(instance)]


def _tokens(operator: Operator) -> list[str | int | Branch]:
    return [token for token, _ in operator.steps]


def _text(value: Any) -> str:
    """Exact comparison: `True == 1` and `1 == 1.0` in Python, but not here."""
    return canonical_compact(value)


def _agrees_outside(base: Any, mutant: Any, tokens: list[str | int | Branch]) -> bool:
    """Off the mutated path the mutant keeps the base's values (one axis changed).

    Where `apply` had to create the container on the path (the base held another type
    there) the fresh container is generated, so only the path below it is compared.
    """
    if not tokens:
        return True
    token, rest = tokens[0], tokens[1:]
    if isinstance(token, str) and isinstance(base, dict) and isinstance(mutant, dict):
        if set(mutant) - set(base) - {token} or set(base) - set(mutant):
            return False
        if any(_text(mutant[k]) != _text(base[k]) for k in base if k != token):
            return False
        return token not in base or _agrees_outside(base[token], mutant[token], rest)
    if isinstance(token, int) and isinstance(base, list) and isinstance(mutant, list):
        if base and (len(mutant) != len(base) or _text(mutant[1:]) != _text(base[1:])):
            return False
        return not base or _agrees_outside(base[0], mutant[0], rest)
    return True


def _cases(compiled: CompiledSchema, seed: int) -> list[Any]:
    return [generate(compiled, seed, index, DEFAULT_LIMITS) for index in BASE_INDICES]


def _mutants(compiled: CompiledSchema, seed: int) -> list[tuple[Operator, Any, Any]]:
    """(operator, base, mutant) as `Campaign.hostile_case` pairs them, each base for each op."""
    bases = _cases(compiled, seed)
    found = []
    for index, operator in enumerate(iter_operators(compiled, DEFAULT_LIMITS)):
        for offset, base in enumerate(bases):
            hostile_index = index * len(bases) + offset
            maker = generator_for(seed, hostile_index, DEFAULT_LIMITS, "hostile")
            found.append((operator, base, apply(operator, base, maker, compiled.root)))
    return found


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(schema=subset_schemas(), seed=seeds)
def test_confirmed_mutants_are_invalid_exactly_there(schema: dict[str, Any], seed: int) -> None:
    """A mutant the engine confirms with the `jsonschema` oracle really is invalid, at exactly
    its keyword and path, per the library's own errors (not the oracle adapter's reading).
    Mutants of the structural families are always confirmed."""
    compiled = compile_schema(schema)
    oracle = JsonschemaOracle(schema)
    reference = Draft202012Validator(schema)
    for operator, base, mutant in _mutants(compiled, seed):
        if mutant is None:
            continue
        canonical_compact(mutant)  # a JSON value: no NaN, no stray Python objects
        errors = oracle.errors(mutant)
        confirmed = fails_exactly_at(errors, operator.keyword, operator.path)
        if operator.family in ALWAYS_CONFIRMED:
            assert confirmed, (operator.label, base, mutant, errors)
        if not confirmed:
            continue
        sites = _reference_sites(reference, mutant)
        assert not reference.is_valid(mutant), (operator.label, mutant)
        assert (operator.keyword, operator.path) in sites, (operator.label, mutant, sites)
        assert {at for _, at in sites} == {operator.path}, (operator.label, mutant, sites)


@PROPERTY_SETTINGS
@given(schema=subset_schemas(), seed=seeds)
def test_apply_changes_one_axis_and_nothing_else(schema: dict[str, Any], seed: int) -> None:
    compiled = compile_schema(schema)
    bases = _cases(compiled, seed)
    snapshots = copy.deepcopy(bases)
    for index, operator in enumerate(iter_operators(compiled, DEFAULT_LIMITS)):
        base = bases[index % len(bases)]
        maker = generator_for(seed, index, DEFAULT_LIMITS, "hostile")
        mutant = apply(operator, base, maker, compiled.root)
        again = apply(
            operator, base, generator_for(seed, index, DEFAULT_LIMITS, "hostile"), compiled.root
        )
        assert canonical_compact(mutant) == canonical_compact(again), operator.label
        if mutant is None:
            continue
        assert _text(mutant) != _text(base), operator.label
        assert _agrees_outside(base, mutant, _tokens(operator)), (operator.label, base, mutant)
    assert _text(bases) == _text(snapshots), "apply modified its base case"


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(schema=subset_schemas(), seed=seeds)
def test_type_mutants_always_break_type_at_their_path(schema: dict[str, Any], seed: int) -> None:
    compiled = compile_schema(schema)
    reference = Draft202012Validator(schema)
    for operator, base, mutant in _mutants(compiled, seed):
        if mutant is None or operator.family != "type":
            continue
        sites = _reference_sites(reference, mutant)
        assert ("type", operator.path) in sites, (operator.label, base, mutant, sites)


def test_non_integer_mutant_of_a_large_integer_is_not_an_integer() -> None:
    """`type:non-integer` must leave the integers even at the generator's own edge values."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }
    compiled = compile_schema(schema)
    [operator] = [
        op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.recipe.variant == "non-integer"
    ]
    reference = Draft202012Validator(schema)
    for edge in (2**53 - 1, -(2**53 - 1), 2**31 - 1, 7):
        maker = generator_for(41, 0, DEFAULT_LIMITS, "hostile")
        mutant = apply(operator, {"n": edge}, maker, compiled.root)
        assert mutant is not None
        assert _reference_sites(reference, mutant) == [("type", "/n")], (edge, mutant)


# --- the built-in poster contract -------------------------------------------------------


@pytest.fixture(scope="module")
def poster_schema() -> CompiledSchema:
    return compile_schema(poster.SCHEMA)


@pytest.fixture(scope="module")
def poster_operators(poster_schema: CompiledSchema) -> list[Operator]:
    return list(iter_operators(poster_schema, DEFAULT_LIMITS))


@pytest.mark.parametrize("seed", [41, 1, 2**31 - 1])
def test_every_poster_mutant_is_confirmed(
    poster_schema: CompiledSchema, poster_operators: list[Operator], seed: int
) -> None:
    oracle = JsonschemaOracle(poster.SCHEMA)
    bases = [generate(poster_schema, seed, index, DEFAULT_LIMITS) for index in range(24)]
    for index, operator in enumerate(poster_operators):
        for offset, base in enumerate(bases):
            maker = generator_for(seed, index * len(bases) + offset, DEFAULT_LIMITS, "hostile")
            mutant = apply(operator, base, maker, poster_schema.root)
            assert mutant is not None, (operator.label, base)
            errors = oracle.errors(mutant)
            assert fails_exactly_at(errors, operator.keyword, operator.path), (
                operator.label,
                base,
                mutant,
                errors,
            )


def test_poster_operators_cover_every_family(poster_operators: list[Operator]) -> None:
    assert {op.family for op in poster_operators} == POSTER_FAMILIES


def test_poster_operators_reach_each_keyword_where_it_is(
    poster_operators: list[Operator],
) -> None:
    sites = {(op.keyword, op.path) for op in poster_operators}
    expected = {
        ("required", ""),
        ("additionalProperties", ""),
        ("type", "/title"),
        ("minLength", "/title"),
        ("maxLength", "/title"),
        ("enum", "/format"),
        ("type", "/width"),
        ("minimum", "/width"),
        ("maximum", "/width"),
        ("minimum", "/height"),
        ("maximum", "/height"),
        ("type", "/palette"),
        ("minItems", "/palette"),
        ("maxItems", "/palette"),
        ("type", "/palette/0"),
        ("minLength", "/palette/0"),
        ("maxLength", "/palette/0"),
        ("type", "/dryRun"),
    }
    assert expected <= sites, sorted(expected - sites)
    assert ("type", "") not in sites, "the root's type is the protocol's, not a near-miss"
    missing = {op.recipe.variant for op in poster_operators if op.keyword == "required"}
    assert missing == {f"missing:{name}" for name in doc(poster.SCHEMA)["required"]}


def test_nested_mutation_fills_in_an_absent_optional_path() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "outer": {
                "type": "object",
                "properties": {"inner": {"type": "string", "maxLength": 3}},
            }
        },
    }
    compiled = compile_schema(schema)
    [operator] = [
        op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "maxLength"
    ]
    assert operator.path == "/outer/inner"
    mutant = doc(apply(operator, {}, generator_for(3, 0, DEFAULT_LIMITS, "hostile"), compiled.root))
    assert isinstance(mutant, dict)
    assert len(mutant["outer"]["inner"]) == 4
    assert JsonschemaOracle(schema).errors(mutant) == [("maxLength", "/outer/inner")]


def test_a_needed_type_is_made_when_the_base_holds_another() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "a": {"type": ["integer", "object"], "properties": {"x": {}}, "required": ["x"]}
        },
        "required": ["a"],
    }
    compiled = compile_schema(schema)
    [operator] = [
        op
        for op in iter_operators(compiled, DEFAULT_LIMITS)
        if (op.keyword, op.path) == ("required", "/a")
    ]
    mutant = apply(
        operator, {"a": 5}, generator_for(3, 0, DEFAULT_LIMITS, "hostile"), compiled.root
    )
    assert isinstance(mutant, dict) and isinstance(mutant["a"], dict)
    assert "x" not in mutant["a"]
    assert JsonschemaOracle(schema).errors(mutant) == [("required", "/a")]


def test_a_location_that_cannot_hold_the_needed_type_is_inapplicable() -> None:
    # minLength on a null-only node never applies: no string can live there.
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "null", "minLength": 2}},
    }
    compiled = compile_schema(schema)
    [operator] = [
        op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "minLength"
    ]
    maker = generator_for(3, 0, DEFAULT_LIMITS, "hostile")
    assert apply(operator, {"a": None}, maker, compiled.root) is None


def test_items_of_an_always_empty_array_are_not_mutated() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "array", "maxItems": 0, "items": {"type": "string"}}},
    }
    compiled = compile_schema(schema)
    paths = {op.path for op in iter_operators(compiled, DEFAULT_LIMITS)}
    assert "/a/0" not in paths
    assert "/a" in paths


def test_two_branches_with_no_member_in_common_are_inapplicable() -> None:
    """Issue 15: the `oneOf` near-miss that two branches accept at once conjoins them; two
    `const`s (a MongoDB index spec, a Notion page) leave an empty enum, which proves the pair
    disjoint. It was `ZeroDivisionError` in `Generator._cycle`; now the mutant is not made."""
    compiled = compile_schema(
        doc(
            {
                "type": "object",
                "properties": {"k": {"oneOf": [{"const": "a"}, {"enum": ["b", "c"]}]}},
                "required": ["k"],
            }
        )
    )
    base = generate(compiled, 0, 0, DEFAULT_LIMITS)
    pairs = [op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "oneOf"]
    assert [op.recipe.variant for op in pairs] == ["two-branches:0,1"]
    maker = generator_for(0, 0, DEFAULT_LIMITS, "hostile")
    assert apply(pairs[0], base, maker, compiled.root) is None


def test_a_near_miss_that_replaces_the_arguments_with_a_non_object_is_inapplicable() -> None:
    """A root without `type` admits arrays, so its `items` are walked; putting an item there
    would make the arguments an array, which is no call (it reached the handler seam as a
    bare `AssertionError`)."""
    compiled = compile_schema(doc({"items": {"type": "integer"}, "minimum": 3}))
    base = generate(compiled, 0, 0, DEFAULT_LIMITS)
    assert isinstance(base, dict)
    maker = generator_for(0, 0, DEFAULT_LIMITS, "hostile")
    operators = list(iter_operators(compiled, DEFAULT_LIMITS))
    assert operators
    assert all(apply(op, base, maker, compiled.root) is None for op in operators)
