"""Splitting a policy run across CI jobs: `--shard I/N` and the units each shard runs (pure).

A unit is one (tool, seed) pair, in the order the policy lists them (tools, then each
tool's seeds). Unit k (0-based) belongs to shard k mod N + 1: round-robin over the plan.
That depends only on the plan and N, never on `hash()` or the machine, so every job of a
matrix agrees. It also balances exactly: shard sizes differ by at most one, where a sha256
of each unit would balance only on average (and a CI matrix waits for its slowest job);
consecutive seeds of one tool land on different shards, spreading a slow tool's cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from toolfuzz_gate.errors import UsageError

MAX_SHARDS = 256
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


def select(units: Sequence[Unit], shard: Shard) -> list[Unit]:
    """The units of `shard`, in plan order."""
    return [unit for k, unit in enumerate(units) if shard_of(k, shard.count) == shard.index]
