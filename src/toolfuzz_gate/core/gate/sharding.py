"""Splitting a policy run across CI jobs: `--shard I/N` and the units each shard runs (pure).

A unit is one (tool, seed) pair, in the order the policy lists them (tools, then each
tool's seeds). Unit k (0-based) belongs to shard k mod N + 1: round-robin over the plan.
That depends only on the plan and N, never on `hash()` or the machine, so every job of a
matrix agrees. It also balances exactly: shard sizes differ by at most one, where a sha256
of each unit would balance only on average (and a CI matrix waits for its slowest job);
consecutive seeds of one tool land on different shards, spreading a slow tool's cost.

Balanced by count is not balanced by time when one tool takes 30 s and another 1 s. Given
each unit's measured cost (`--shard-costs DIR`: a previous run's receipts with
`--diagnostics`, `unit_costs`), the units go longest first, each to the shard with the least
cost so far (ties: the lower shard, then the earlier unit): still a function of the plan, N
and the costs alone, and with equal costs exactly the round-robin.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.errors import UsageError

MAX_SHARDS = 256
MAX_COST_S = 10**6
"""A unit's measured seconds past this are not believed (a receipt is read as untrusted)."""
_SHARD = re.compile(r"([0-9]{1,3})/([0-9]{1,3})")

Unit = TypeVar("Unit")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`I/N` with `1 <= I <= N <= 256`, or `UsageError`."""
    hint = f"give --shard I/N with 1 <= I <= N <= {MAX_SHARDS}, e.g. --shard 2/3"
    found = _SHARD.fullmatch(text)
    if found is None:
        raise UsageError(f"--shard {text[:40]!r} is not I/N", hint=hint)
    index, count = int(found.group(1)), int(found.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise UsageError(f"--shard {text}: N must be between 1 and {MAX_SHARDS}", hint=hint)
    if not 1 <= index <= count:
        raise UsageError(f"--shard {text}: I must be between 1 and N ({count})", hint=hint)
    return Shard(index, count)


def shard_of(position: int, count: int) -> int:
    """The shard (1-based) of the unit at `position` (0-based) in the plan."""
    return position % count + 1


def select(units: Sequence[Unit], shard: Shard, costs: Sequence[int] | None = None) -> list[Unit]:
    """The units of `shard`, in plan order: round-robin, or balanced by `costs` (one per
    unit) when given."""
    if costs is None:
        owners = [shard_of(k, shard.count) for k in range(len(units))]
    else:
        owners = balanced(costs, shard.count)
    return [unit for unit, owner in zip(units, owners, strict=True) if owner == shard.index]


def balanced(costs: Sequence[int], count: int) -> list[int]:
    """The shard (1-based) of each unit: longest first, to the least loaded shard."""
    loads = [0] * count
    owners = [0] * len(costs)
    for k in sorted(range(len(costs)), key=lambda k: (-costs[k], k)):
        least = min(range(count), key=lambda i: (loads[i], i))
        owners[k] = least + 1
        loads[least] += costs[k]
    return owners


def unit_costs(files: Sequence[str], measured: Mapping[str, Receipt]) -> list[int]:
    """Each unit's cost in milliseconds, by its receipt file name, from `measured` (file name
    -> a previous run's receipt): the tool's whole time (`diagnostics.profile.wallSeconds`,
    else `durationSeconds`); a unit without one (new, or run without `--diagnostics`) costs
    the median of those with one, or 1 s when none has one."""
    known = {name: cost for name in files if (cost := _cost(measured.get(name))) is not None}
    ordered = sorted(known.values())
    typical = ordered[len(ordered) // 2] if ordered else 1000
    return [known.get(name, typical) for name in files]


def _cost(receipt: Receipt | None) -> int | None:
    block = receipt.diagnostics if receipt is not None else None
    if block is None:
        return None
    seconds = block.cost_seconds
    return round(seconds * 1000) if 0 <= seconds < MAX_COST_S else None
