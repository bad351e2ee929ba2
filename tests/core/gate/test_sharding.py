"""`--shard I/N` parsing and the assignment of (tool, seed) units to shards: round-robin, or
balanced by measured costs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from tests.receipts import typed
from toolfuzz_gate.core.gate.sharding import (
    MAX_SHARDS,
    Shard,
    balanced,
    parse_shard,
    select,
    shard_of,
    unit_costs,
)
from toolfuzz_gate.errors import UsageError

SETTINGS = settings(max_examples=examples(80))

units = st.lists(
    st.tuples(st.text(max_size=8), st.integers(-(2**31), 2**31)), unique=True, max_size=60
)


@pytest.mark.parametrize(
    ("text", "expected"), [("1/1", Shard(1, 1)), ("2/3", Shard(2, 3)), ("256/256", Shard(256, 256))]
)
def test_parse_shard_accepts_i_of_n(text: str, expected: Shard) -> None:
    assert parse_shard(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0/3", "I must be between 1 and N (3)"),
        ("4/3", "I must be between 1 and N (3)"),
        ("1/0", "N must be between 1 and 256"),
        ("1/257", "N must be between 1 and 256"),
        ("a/b", "is not I/N"),
        ("1/3/4", "is not I/N"),
        ("-1/3", "is not I/N"),
        (" 1/3", "is not I/N"),
        ("1/٣", "is not I/N"),
        ("", "is not I/N"),
        ("1" * 5000 + "/3", "is not I/N"),
    ],
)
def test_parse_shard_refuses_anything_else(text: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_shard(text)
    assert message in raised.value.message
    assert "--shard I/N" in raised.value.hint
    assert len(raised.value.message) < 200


@SETTINGS
@given(units, st.integers(1, MAX_SHARDS))
def test_every_unit_is_in_exactly_one_shard(plan: list[tuple[str, int]], count: int) -> None:
    shards = [select(plan, Shard(index, count)) for index in range(1, count + 1)]
    ran = [unit for shard in shards for unit in shard]
    assert sorted(ran) == sorted(plan)
    assert len(ran) == len(plan)
    sizes = [len(shard) for shard in shards]
    assert max(sizes) - min(sizes) <= 1
    for shard in shards:
        assert shard == [unit for unit in plan if unit in shard]


@SETTINGS
@given(units, st.integers(1, MAX_SHARDS))
def test_assignment_depends_only_on_the_position(plan: list[tuple[str, int]], count: int) -> None:
    renamed = [(f"other-{k}", k) for k in range(len(plan))]
    for index in range(1, min(count, 8) + 1):
        positions = [plan.index(unit) for unit in select(plan, Shard(index, count))]
        assert positions == [renamed.index(unit) for unit in select(renamed, Shard(index, count))]
        assert all(shard_of(k, count) == index for k in positions)


def test_round_robin_in_plan_order() -> None:
    plan = ["a5", "a6", "b5", "b6", "c5", "c6", "d5"]
    assert select(plan, Shard(1, 3)) == ["a5", "b6", "d5"]
    assert select(plan, Shard(2, 3)) == ["a6", "c5"]
    assert select(plan, Shard(3, 3)) == ["b5", "c6"]
    assert select(plan, Shard(1, 1)) == plan
    assert select(plan, Shard(8, 8)) == []


def test_costs_share_the_units_out_longest_first_to_the_least_loaded_shard() -> None:
    # a 30 s tool and nine of 1 s: round-robin gives one shard 33 s and the other 9 s
    costs = [30_000] + [1_000] * 9
    assert balanced(costs, 2) == [1, 2, 2, 2, 2, 2, 2, 2, 2, 2]
    units = list("abcdefghij")
    assert select(units, Shard(1, 2), costs) == ["a"]
    assert select(units, Shard(2, 2), costs) == units[1:]
    assert sum(costs[k] for k in range(10) if k % 2 == 0) == 34_000  # round-robin's worst


@SETTINGS
@given(st.lists(st.integers(0, 10**6), max_size=40), st.integers(1, 7))
def test_balanced_shards_cover_the_plan_and_equal_costs_are_round_robin(
    costs: list[int], count: int
) -> None:
    owners = balanced(costs, count)
    assert all(1 <= owner <= count for owner in owners) and len(owners) == len(costs)
    units = list(range(len(costs)))
    parts = [select(units, Shard(index, count), costs) for index in range(1, count + 1)]
    assert sorted(unit for part in parts for unit in part) == units
    equal = [7] * len(costs)
    assert balanced(equal, count) == [shard_of(k, count) for k in range(len(costs))]


def test_unit_costs_come_from_the_receipts_diagnostics_else_the_median() -> None:
    measured: dict[str, Any] = {
        "a.json": {"diagnostics": {"profile": {"wallSeconds": 30.25}, "durationSeconds": 29}},
        "b.json": {"diagnostics": {"durationSeconds": 1.5}},
        "c.json": {"diagnostics": {"durationSeconds": 2}},
        "d.json": {"receiptHash": "no diagnostics"},
        "f.json": {"diagnostics": {"durationSeconds": -1}},
    }
    files = ["a.json", "b.json", "c.json", "d.json", "f.json", "new.json"]
    read = {name: typed(partial) for name, partial in measured.items()}
    assert unit_costs(files, read) == [30_250, 1_500, 2_000] + [2_000] * 3
    assert unit_costs(["x.json", "y.json"], {}) == [1_000, 1_000]
