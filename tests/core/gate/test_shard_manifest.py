"""`shard.json`: built and read back, read as untrusted, and the checks that shards fit."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from toolfuzz_gate.core.gate.shard_manifest import (
    ShardManifest,
    Unit,
    build_manifest,
    check_together,
    read_manifest,
)
from toolfuzz_gate.core.gate.sharding import Shard, select
from toolfuzz_gate.errors import ShardError

PLAN = [Unit(tool, seed, f"{tool}.seed-{seed}.json") for tool in "abc" for seed in (5, 6)]


def hashed(unit: Unit) -> str:
    return f"{ord(unit.tool[0]):02x}{unit.seed:02x}".ljust(64, "0")


def manifest(index: int, count: int = 3, **changes: Any) -> dict[str, Any]:
    shard = Shard(index, count)
    fields: dict[str, Any] = {
        "policy_file": "policy.yml",
        "policy_digest": "ab" * 32,
        "replay": "toolfuzz-gate run --policy policy.yml",
        "shard": shard,
        "plan": PLAN,
        "receipts": [(unit, hashed(unit)) for unit in select(PLAN, shard)],
    }
    fields.update(changes)
    return build_manifest(**fields)


def read(document: Any, source: str = "s/shard.json") -> ShardManifest:
    return read_manifest(document, source)


def together(*documents: dict[str, Any]) -> list[Any]:
    return check_together([(f"s{k}", read(d)) for k, d in enumerate(documents)])


def test_a_manifest_reads_back_as_built() -> None:
    read_back = read(manifest(2))
    assert read_back.shard == Shard(2, 3)
    assert read_back.plan == tuple(PLAN)
    assert [unit for unit, _ in read_back.receipts] == [PLAN[1], PLAN[4]]
    assert read_back.receipts[0][1] == hashed(PLAN[1])
    assert read_back.policy_digest == "ab" * 32


def test_three_shards_locate_every_unit_in_plan_order() -> None:
    located = together(manifest(3), manifest(1), manifest(2))
    assert [item.unit for item in located] == PLAN
    assert [item.source for item in located] == [1, 2, 0, 1, 2, 0]
    assert [item.receipt_hash for item in located] == [hashed(unit) for unit in PLAN]


def _set(document: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    *parents, last = pointer.strip("/").split("/")
    target: Any = changed
    for token in parents:
        target = target[int(token)] if isinstance(target, list) else target[token]
    target[int(last) if isinstance(target, list) else last] = value
    return changed


@pytest.mark.parametrize(
    ("pointer", "value", "message"),
    [
        ("/format", "toolfuzz-shard/2", "/format is not 'toolfuzz-shard/1'"),
        ("/shard/index", 4, "/shard/index is not an integer from 1 to 3"),
        ("/shard/count", 257, "/shard/count is not an integer from 1 to 256"),
        ("/shard/count", True, "/shard/count is not an integer"),
        ("/policy/digest", "zz", "/policy/digest is not a sha256 hex digest"),
        ("/plan/0/receipt", "../../etc/x.json", "/plan/0/receipt '../../etc/x.json' is not"),
        ("/plan/0/receipt", "/tmp/x.json", "is not a receipt file name"),
        ("/receipts/0/receipt", "summary.json", "is not a receipt file name"),
        ("/receipts/0/receipt", "shard.json", "is not a receipt file name"),
        ("/receipts/0/receiptHash", "x", "/receipts/0/receiptHash is not a sha256"),
        ("/plan/1/seed", 1.5, "/plan/1/seed is not an integer seed"),
        ("/plan", {}, "/plan is not a list"),
        ("/replay", 3, "/replay is not a string"),
    ],
)
def test_unsound_manifests_are_refused_naming_the_member(
    pointer: str, value: Any, message: str
) -> None:
    with pytest.raises(ShardError) as raised:
        read(_set(manifest(1), pointer, value))
    assert "s/shard.json" in raised.value.message
    assert message in raised.value.message


def test_extra_or_missing_members_are_refused() -> None:
    document = manifest(1)
    document["extra"] = 1
    with pytest.raises(ShardError, match="members differ"):
        read(document)
    with pytest.raises(ShardError, match=r"\(root\) is not an object"):
        read([])


def test_a_missing_shard_is_named() -> None:
    with pytest.raises(ShardError, match=r"shard\(s\) 2 of 3 missing"):
        together(manifest(1), manifest(3))


def test_a_shard_given_twice_is_named() -> None:
    with pytest.raises(ShardError, match="shard 1/3 is given twice: s0 and s2"):
        together(manifest(1), manifest(2), manifest(1), manifest(3))


@pytest.mark.parametrize(
    ("changes", "label"),
    [
        ({"policy_digest": "cd" * 32}, "the policy differ"),
        ({"replay": "toolfuzz-gate run --policy policy.yml --runs 4"}, "the arguments differ"),
        ({"plan": PLAN[:-1], "receipts": [(PLAN[1], hashed(PLAN[1]))]}, "the plan differ"),
    ],
)
def test_shards_of_different_runs_do_not_merge(changes: dict[str, Any], label: str) -> None:
    with pytest.raises(ShardError, match=f"s1 and s0 are shards of different runs: {label}"):
        together(manifest(1), manifest(2, **changes), manifest(3))


def test_mixed_n_does_not_merge() -> None:
    with pytest.raises(ShardError, match=r"different runs: N differ \(3 vs 2\)"):
        together(manifest(1), manifest(2, count=2), manifest(3))


def test_a_shard_that_ran_other_units_does_not_merge() -> None:
    moved = [(unit, hashed(unit)) for unit in (PLAN[1], PLAN[4], PLAN[2])]
    with pytest.raises(
        ShardError, match=r"b.seed-5.json \(tool .b., seed 5\) ran in two shards: s1 and s2"
    ):
        together(manifest(1), manifest(2, receipts=moved), manifest(3))
    fewer = [(PLAN[1], hashed(PLAN[1]))]
    with pytest.raises(ShardError, match="s1: shard 2/3 did not run exactly its units"):
        together(manifest(1), manifest(2, receipts=fewer), manifest(3))


def test_nothing_to_merge() -> None:
    with pytest.raises(ShardError, match="no shard directories given"):
        check_together([])


COSTS = [9_000, 1_000, 1_000, 1_000, 1_000, 1_000]


def costed(index: int, costs: list[int] = COSTS) -> dict[str, Any]:
    shard = Shard(index, 2)
    ran = [(unit, hashed(unit)) for unit in select(PLAN, shard, costs)]
    return manifest(index, 2, receipts=ran, costs=costs)


def test_shards_balanced_by_cost_say_which_costs_and_merge_by_them() -> None:
    assert read(costed(1)).costs == tuple(COSTS)
    assert [unit for unit, _ in read(costed(1)).receipts] == [PLAN[0]]
    assert "costs" not in manifest(1)  # a round-robin manifest is as it always was
    assert [item.unit for item in together(costed(2), costed(1))] == PLAN


def test_shards_balanced_by_other_costs_or_none_do_not_merge() -> None:
    other = [1_000] * 5 + [9_000]
    with pytest.raises(ShardError, match="the costs the shards were balanced by differ"):
        together(costed(1), costed(2, other))
    with pytest.raises(ShardError, match="the costs the shards were balanced by differ"):
        together(costed(1), manifest(2, 2))


def test_costs_are_read_as_untrusted() -> None:
    short = costed(1)
    short["costs"] = COSTS[:3]
    with pytest.raises(ShardError, match="one cost per unit of the plan"):
        read(short)
    negative = costed(1)
    negative["costs"] = [-1, *COSTS[1:]]
    with pytest.raises(ShardError, match="/costs/0 is not an integer"):
        read(negative)


def campaign(name: str, first: int) -> Any:
    from toolfuzz_gate.core.gate.shard_manifest import Campaign

    unit = Unit(f"stateful:{name}", 5, f"stateful_{name}.json")
    return Campaign(unit, first, "cd" * 32)


def test_stateful_campaigns_are_located_after_the_plan_in_their_first_units_order() -> None:
    # plan units 4 and 0 are shard 2's and shard 1's (round-robin over 3)
    shard_1 = manifest(1, stateful=[campaign("late", 3), campaign("early", 0)])
    shard_2 = manifest(2, stateful=[campaign("middle", 1)])
    read_back = read(shard_1)
    assert [c.unit.tool for c in read_back.stateful] == ["stateful:late", "stateful:early"]
    assert read(manifest(3)).stateful == ()  # a shard without campaigns: no member
    assert "stateful" not in manifest(3)
    located = together(shard_1, shard_2, manifest(3))
    assert [item.unit for item in located[: len(PLAN)]] == PLAN
    tail = located[len(PLAN) :]
    assert [(item.unit.tool, item.source, item.stateful) for item in tail] == [
        ("stateful:early", 0, True),
        ("stateful:middle", 1, True),
        ("stateful:late", 0, True),
    ]


def test_a_stateful_campaign_run_by_another_shard_or_twice_does_not_merge() -> None:
    wrong = manifest(2, stateful=[campaign("x", 0)])  # unit 0 is shard 1's
    with pytest.raises(ShardError, match="first tool another shard ran"):
        together(manifest(1), wrong, manifest(3))
    twice = [campaign("x", 0)]
    again = manifest(2, stateful=[campaign("x", 1)])
    with pytest.raises(ShardError, match=r"stateful_x\.json was written twice"):
        together(manifest(1, stateful=twice), again, manifest(3))
    beyond = manifest(1, stateful=[campaign("x", len(PLAN))])
    with pytest.raises(ShardError, match="/stateful/0/unit"):
        read(beyond)
