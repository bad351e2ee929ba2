"""`--shard I/N` parsing and the round-robin assignment of (tool, seed) units to shards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.gate.sharding import MAX_SHARDS, Shard, parse_shard, select, shard_of
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
