"""`allOf`, `anyOf`, `oneOf` and `$ref`: merging, generation, and near-misses in branches.

The laws: every generated value passes the `jsonschema` library; every mutant the campaign
would keep (it fails exactly at its expected keyword and path) is rejected by it; recursive
schemas are generated to a bounded depth. Schemas are drawn around `subset_schemas()` in the
shapes real tool schemas use: pydantic's `Optional[X]` (`anyOf: [X, null]`), models behind
`$defs`, `allOf` wrappers, discriminated `oneOf`s, and recursive models.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.core.campaign.oracle import (
    JsonschemaOracle,
    JsonschemaRsOracle,
    fails_exactly_at,
)
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import apply as apply_operator
from toolfuzz_gate.core.engine.mutate import iter_operators
from toolfuzz_gate.core.engine.sizes import SOFT_REF_DEPTH
from toolfuzz_gate.core.schema.conjoin import conjoin, effective
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.validate import validate_node
from toolfuzz_gate.errors import SchemaError

Schema = dict[str, Any]
SETTINGS = settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])


def _object(**properties: Any) -> Schema:
    return {"type": "object", "properties": properties}


def _inner(schema: Schema) -> Schema:
    """A drawn root schema made fit to nest: no `$id` (which would re-base `$ref`s)."""
    return {k: v for k, v in schema.items() if k not in ("$id", "$schema")}


@st.composite
def optional_models(draw: st.DrawFn) -> Schema:
    """`Optional[Model]` the way pydantic writes it, the model behind `$defs`."""
    model = _inner(draw(subset_schemas(max_properties=4)))
    return {
        **_object(m={"anyOf": [{"$ref": "#/$defs/Model"}, {"type": "null"}], "default": None}),
        "required": draw(st.sampled_from([[], ["m"]])),
        "$defs": {"Model": model},
    }


@st.composite
def all_of_wrappers(draw: st.DrawFn) -> Schema:
    """A model wrapped in `allOf` with a description beside it (pydantic v1 style), and
    a second part that narrows one of its properties' annotations only."""
    model = _inner(draw(subset_schemas(max_properties=4)))
    return _object(w={"allOf": [{"$ref": "#/$defs/Model"}, {"title": "narrowed"}]}) | {
        "required": ["w"],
        "$defs": {"Model": model},
    }


@st.composite
def disjoint_one_ofs(draw: st.DrawFn) -> Schema:
    """`oneOf` over branches of different types, with bounds inside each."""
    low = draw(st.integers(min_value=-50, max_value=50))
    width = draw(st.integers(min_value=0, max_value=40))
    branches = [
        {"type": "string", "maxLength": draw(st.integers(min_value=0, max_value=6))},
        {"type": "integer", "minimum": low, "maximum": low + width},
        {"type": "null"},
        {"type": "array", "items": {"type": "boolean"}, "maxItems": 3},
    ]
    chosen = draw(st.lists(st.sampled_from(range(len(branches))), min_size=2, unique=True))
    return {**_object(v={"oneOf": [branches[i] for i in chosen]}), "required": ["v"]}


@st.composite
def recursive_trees(draw: st.DrawFn) -> Schema:
    """A tree whose children are trees, optionally through `Optional[...]`."""
    leaf = _inner(draw(subset_schemas(max_properties=3)))
    kids: Schema = {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
    if draw(st.booleans()):
        kids["maxItems"] = draw(st.integers(min_value=1, max_value=4))
    node = _object(value=leaf, kids=kids)
    if draw(st.booleans()):
        node["properties"]["parent"] = {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]}
    node["required"] = ["value"]
    return {"$ref": "#/$defs/Tree", "$defs": {"Tree": node}}


composed_schemas = st.one_of(
    optional_models(), all_of_wrappers(), disjoint_one_ofs(), recursive_trees()
)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@SETTINGS
@given(composed_schemas, st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_generated_values_pass_jsonschema(schema: Schema, seed: int) -> None:
    compiled = compile_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for index in range(12):
        value = generate(compiled, seed, index, DEFAULT_LIMITS)
        assert validator.is_valid(value), json.dumps(value)
        assert value == generate(compiled, seed, index, DEFAULT_LIMITS)


@SETTINGS
@given(composed_schemas)
def test_kept_mutants_fail_both_oracles_where_expected(schema: Schema) -> None:
    compiled = compile_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    reference, fast = JsonschemaOracle(schema), JsonschemaRsOracle(schema)
    base = generate(compiled, 5, 0, DEFAULT_LIMITS)
    for index, operator in enumerate(iter_operators(compiled, DEFAULT_LIMITS)):
        mutant = apply_operator(
            operator, base, generator_for(5, index, DEFAULT_LIMITS, "hostile"), compiled.root
        )
        if mutant is None or not fails_exactly_at(fast.errors(mutant), *operator.expected):
            continue
        assert not validator.is_valid(mutant), operator.label
        assert fails_exactly_at(reference.errors(mutant), *operator.expected), operator.label


@SETTINGS
@given(recursive_trees(), st.integers(min_value=0, max_value=2**16))
def test_recursive_values_stay_within_the_bound(schema: Schema, seed: int) -> None:
    compiled = compile_schema(schema)
    assert compiled.recursive
    # each expansion of Tree adds an object and an array level; past the soft bound
    # values are built at their simplest (no optional members), so two more levels at most
    bound = 2 * (SOFT_REF_DEPTH + 1) + 2 + 8
    for index in range(8):
        assert _depth(generate(compiled, seed, index, DEFAULT_LIMITS)) <= bound


# --- examples -----------------------------------------------------------------------------

OPTIONAL_TITLE: Schema = {
    **_object(
        title={"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]},
        size={"$ref": "#/$defs/Size"},
    ),
    "required": ["size"],
    "$defs": {"Size": {"type": "integer", "minimum": 1, "maximum": 9}},
}


def test_near_misses_inside_a_branch_fail_at_the_choice() -> None:
    compiled = compile_schema(OPTIONAL_TITLE)
    operators = {op.label: op for op in iter_operators(compiled, DEFAULT_LIMITS)}
    above = operators["maxLength:above-maxLength@/title[anyOf/0]"]
    assert above.expected == ("anyOf", "/title")
    assert above.family == "length"
    mutant = apply_operator(
        above, {"size": 1}, generator_for(1, 0, DEFAULT_LIMITS, "hostile"), compiled.root
    )
    assert mutant == {"size": 1, "title": "aaax"}
    assert JsonschemaOracle(OPTIONAL_TITLE).errors(mutant) == [("anyOf", "/title")]
    # through the $ref, the target's keywords are near-missed at the referring path
    assert operators["maximum:above-maximum@/size"].expected == ("maximum", "/size")


def test_both_branches_of_an_optional_are_generated() -> None:
    compiled = compile_schema(OPTIONAL_TITLE)
    titles = {
        type(doc(generate(compiled, 3, index, DEFAULT_LIMITS)).get("title", "")).__name__
        for index in range(1, 12)
    }
    assert titles == {"str", "NoneType"}


def test_one_of_two_branch_near_miss_is_valid_for_two_branches() -> None:
    schema = {
        **_object(n={"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}),
        "required": ["n"],
    }
    compiled = compile_schema(schema)
    (pair,) = [op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "oneOf"]
    mutant = doc(
        apply_operator(
            pair, {"n": -1}, generator_for(1, 0, DEFAULT_LIMITS, "hostile"), compiled.root
        )
    )
    assert mutant is not None
    assert isinstance(mutant["n"], int) and mutant["n"] >= 0
    assert JsonschemaOracle(schema).errors(mutant) == [("oneOf", "/n")]


def test_all_of_merges_bounds_and_required() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "allOf": [
            {"properties": {"a": {"type": "integer", "minimum": 3}}, "required": ["a"]},
            {"properties": {"a": {"maximum": 5}, "b": {"type": "boolean"}}, "required": ["b"]},
        ],
    }
    compiled = compile_schema(schema)
    merged = effective(compiled.root)
    assert merged.domain.required == ("a", "b")
    a = merged.domain.property_node("a")
    assert a is not None and (a.domain.lo, a.domain.hi) == (3, 5)
    values: list[Any] = [generate(compiled, 9, index, DEFAULT_LIMITS) for index in range(10)]
    assert {v["a"] for v in values} <= {3, 4, 5} and all(isinstance(v["b"], bool) for v in values)


def test_conjoin_keeps_both_checks() -> None:
    short = compile_schema({"minLength": 2})
    long = compile_schema({"maxLength": 3})
    both = conjoin(short.root, long.root)
    assert (both.domain.min_length, both.domain.max_length) == (2, 3)
    assert [validate_node(both, s) for s in ("a", "ab", "abcd")] == [False, True, False]


@pytest.mark.parametrize(
    ("schema", "code", "pointer"),
    [
        ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "schema.contradiction", ""),
        (
            _object(x={"anyOf": [{"type": "string", "minLength": 3, "maxLength": 2}, False]}),
            "schema.contradiction",
            "/properties/x/anyOf/0/minLength",
        ),
        (
            # a closed object in one branch, a property it does not know in the other
            {
                "type": "object",
                "allOf": [
                    {"properties": {"a": {"type": "integer"}}, "required": ["a"]},
                    {"additionalProperties": False},
                ],
            },
            "schema.contradiction",
            "",
        ),
    ],
    ids=["disjoint-types", "no-branch-left", "closed-in-one-branch"],
)
def test_unsatisfiable_compositions_are_refused_when_compiling(
    schema: Schema, code: str, pointer: str
) -> None:
    with pytest.raises(SchemaError) as error:
        compile_schema(schema)
    assert (error.value.problems[0].code, error.value.problems[0].pointer) == (code, pointer)
