"""`uniqueItems`, `prefixItems` (with `items` after it) and `contains` / `minContains` /
`maxContains`: generated arrays pass both validators, near-misses fail exactly at their
keyword and path (positional items are reached at their own index), and impossible
combinations are contradictions."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.keyword_laws import check_laws
from tests.profiles import examples
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.errors import SchemaError

SETTINGS = settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**31 - 1)

# (item schema, how many distinct values it admits; None for many)
FINITE_ITEMS: tuple[tuple[dict[str, Any], int | None], ...] = (
    ({"type": "boolean"}, 2),
    ({"type": "integer", "minimum": 0, "maximum": 3}, 4),
    ({"enum": ["x", "y", 1, 1.0, True]}, 4),  # 1 and 1.0 are one value
    ({"type": ["null", "boolean"]}, 3),
    ({"type": "string", "maxLength": 2}, None),
    ({"type": "number"}, None),
    ({"type": "object", "properties": {"k": {"type": "integer"}}, "required": ["k"]}, None),
    ({}, None),
)


def _wrap(array: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"t": array}, "required": ["t"]}


@st.composite
def unique_arrays(draw: st.DrawFn) -> dict[str, Any]:
    items, distinct = draw(st.sampled_from(FINITE_ITEMS))
    most = 6 if distinct is None else distinct
    low = draw(st.integers(0, most))
    array: dict[str, Any] = {"type": "array", "items": items, "uniqueItems": True}
    if low or draw(st.booleans()):
        array["minItems"] = low
    if draw(st.booleans()):
        array["maxItems"] = draw(st.integers(low, most + 2))
    return _wrap(array)


@SETTINGS
@given(schema=unique_arrays(), seed=seeds)
def test_unique_items(schema: dict[str, Any], seed: int) -> None:
    most = schema["properties"]["t"].get("maxItems")
    sure = {"uniqueItems"} if most is None or most >= 2 else set()
    confirmed = check_laws(schema, seed, cases=10, must_confirm=sure, must_offer=sure)
    if sure:
        assert ("uniqueItems", "/t") in confirmed


def test_unique_booleans_use_both_values_in_every_mode() -> None:
    compiled = compile_schema(
        _wrap({"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "minItems": 2})
    )
    for index in range(8):
        value = doc(generate(compiled, 3, index, DEFAULT_LIMITS))
        assert isinstance(value, dict) and sorted(value["t"]) == [False, True]


@pytest.mark.parametrize(
    ("items", "count"),
    [({"type": "boolean"}, 3), ({"enum": [1, 1.0, "a"]}, 3), ({"type": "null"}, 2)],
)
def test_more_distinct_items_than_exist_is_a_contradiction(items: Any, count: int) -> None:
    array = {"type": "array", "items": items, "uniqueItems": True, "minItems": count}
    with pytest.raises(SchemaError) as error:
        compile_schema(_wrap(array))
    # the array admits nothing, so its required parent member is reported too
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.contradiction", "/properties/t/uniqueItems"),
        ("schema.contradiction", "/required/0"),
    ]


LEAVES: tuple[dict[str, Any], ...] = (
    {"type": "integer", "minimum": -5, "maximum": 5},
    {"type": "string", "minLength": 1, "maxLength": 3},
    {"type": "boolean"},
    {"type": "null"},
)


@st.composite
def positional_arrays(draw: st.DrawFn) -> dict[str, Any]:
    prefix = draw(st.lists(st.sampled_from(LEAVES), min_size=1, max_size=4))
    array: dict[str, Any] = {"type": "array", "prefixItems": prefix}
    rest = draw(st.sampled_from([None, False, *LEAVES]))
    if rest is not None:
        array["items"] = rest
    bound = len(prefix) if rest is False else len(prefix) + 2
    low = draw(st.integers(0, bound))
    if low:
        array["minItems"] = low
    if draw(st.booleans()):
        array["maxItems"] = draw(st.integers(max(low, 1), bound + 1))
    return _wrap(array)


@SETTINGS
@given(schema=positional_arrays(), seed=seeds)
def test_prefix_items(schema: dict[str, Any], seed: int) -> None:
    array = schema["properties"]["t"]
    confirmed = check_laws(schema, seed, cases=10, must_confirm={"type"})
    reachable = min(len(array["prefixItems"]), array.get("maxItems", 99))
    for index in range(reachable):
        assert ("type", f"/t/{index}") in confirmed, (index, sorted(confirmed))
    if isinstance(array.get("items"), dict) and reachable == len(array["prefixItems"]):
        if array.get("maxItems", 99) > len(array["prefixItems"]):
            assert ("type", f"/t/{len(array['prefixItems'])}") in confirmed


def test_positions_take_their_own_schemas() -> None:
    schema = _wrap(
        {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "items": {"type": "null"},
            "minItems": 4,
        }
    )
    value = doc(generate(compile_schema(schema), 2, 1, DEFAULT_LIMITS))
    assert isinstance(value, dict)
    first, second, *rest = value["t"]
    assert isinstance(first, int) and isinstance(second, str) and rest and set(rest) == {None}


def test_closed_prefix_shorter_than_min_items_is_a_contradiction() -> None:
    array = {"type": "array", "prefixItems": [{}], "items": False, "minItems": 2}
    with pytest.raises(SchemaError) as error:
        compile_schema(_wrap(array))
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.contradiction", "/properties/t/minItems"),
        ("schema.contradiction", "/required/0"),
    ]


MATCH = {"minimum": 10, "maximum": 20}


@st.composite
def containing_arrays(draw: st.DrawFn) -> dict[str, Any]:
    array: dict[str, Any] = {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": 30},
        "contains": MATCH,
    }
    low = draw(st.integers(0, 3))
    if draw(st.booleans()):
        array["minContains"] = low
    if draw(st.booleans()):
        array["maxContains"] = draw(st.integers(max(low, 1), 4))
    if draw(st.booleans()):
        array["minItems"] = draw(st.integers(0, 5))
    if draw(st.booleans()):
        wanted = array.get("minContains", 1)
        array["maxItems"] = draw(st.integers(max(wanted, array.get("minItems", 0)), 8))
    return _wrap(array)


@SETTINGS
@given(schema=containing_arrays(), seed=seeds)
def test_contains_counts(schema: dict[str, Any], seed: int) -> None:
    array = schema["properties"]["t"]
    sure = set()
    if "minItems" not in array:
        if "minContains" not in array and "maxContains" not in array:
            sure.add("contains")
        elif array.get("minContains", 1) >= 2:
            sure.add("minContains")
    if "maxContains" in array and "maxItems" not in array and array.get("minContains", 1):
        sure.add("maxContains")  # the valid base holds a match to copy
    check_laws(schema, seed, cases=10, must_confirm=sure, must_offer=sure)


@pytest.mark.parametrize(
    ("array", "keyword"),
    [
        ({"type": "array", "contains": False}, "contains"),
        ({"type": "array", "contains": {}, "minContains": 3, "maxContains": 2}, "minContains"),
        ({"type": "array", "contains": {}, "minContains": 3, "maxItems": 2}, "minContains"),
    ],
)
def test_unreachable_contains_counts_are_contradictions(array: Any, keyword: str) -> None:
    with pytest.raises(SchemaError) as error:
        compile_schema(_wrap(array))
    assert ("schema.contradiction", f"/properties/t/{keyword}") in [
        (p.code, p.pointer) for p in error.value.problems
    ]


def test_contains_items_come_from_both_schemas_when_neither_alone_lands() -> None:
    # found by Hypothesis: an untyped 10..20 `contains` inside 0..30 integer items, with
    # minContains 2 and maxItems 2, generated [30, 10] (one match short) at seed 551
    array = {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": 30},
        "contains": {"minimum": 10, "maximum": 20},
        "minContains": 2,
        "maxItems": 2,
    }
    check_laws(_wrap(array), 551, cases=10)
