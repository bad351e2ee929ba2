"""Steering an aimed valid case towards the edges the boundary ledger still misses (pure data).

An aimed case (`core.engine.ledger`) is an ordinary mixed case whose generator is told, at
some schema locations, what to decide: which type of a union, which `anyOf`/`oneOf` branch,
which optional members to include, how many items, or the exact scalar to give. Each
location gets one `Steer`; the locations on the way to an edge get the steers that lead
there (the branch that holds it, the member that holds it, at least one item). Every decision
a steer asks for is still checked by the generator against the node it is made for, and an
aimed value that does not validate is dropped for the plain case of its index.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import json_equal


@dataclass(frozen=True)
class Steer:
    """What the generator decides at one schema location (None / empty: its own draw)."""

    type: str | None = None
    branches: tuple[tuple[str, int], ...] = ()
    """(`anyOf` or `oneOf`, the index of the branch to take)."""
    members: frozenset[str] = frozenset()
    """Optional members to include."""
    count: int | None = None
    """Items to make (or characters, for no string: strings are steered by `value`)."""
    least: int = 0
    """At least this many items (an edge lies inside an item)."""
    value: tuple[JSON] | None = None
    """The exact scalar to give, boxed so that `null` can be asked for."""

    def branch(self, keyword: str) -> int | None:
        for name, index in self.branches:
            if name == keyword:
                return index
        return None


NO_STEER = Steer()

Aim = Mapping[str, Steer]
"""Steers by the schema location (JSON Pointer) of the node they are for."""


def combine(first: Steer, second: Steer) -> Steer | None:
    """Both steers at once, or None when they ask for different things."""
    if first.type and second.type and first.type != second.type:
        return None
    if first.count is not None and second.count is not None and first.count != second.count:
        return None
    count = first.count if first.count is not None else second.count
    least = max(first.least, second.least)
    if count is not None and count < least:
        return None
    if first.value is not None and second.value is not None:
        if not json_equal(first.value[0], second.value[0]):
            return None
    branches = dict(first.branches)
    for keyword, index in second.branches:
        if branches.setdefault(keyword, index) != index:
            return None
    return Steer(
        first.type or second.type,
        tuple(sorted(branches.items())),
        first.members | second.members,
        count,
        least,
        first.value if first.value is not None else second.value,
    )


def add_steers(aim: dict[str, Steer], steers: tuple[tuple[str, Steer], ...]) -> bool:
    """Add `steers` to `aim` if every one agrees with what `aim` already asks; else leave
    `aim` as it was and say False."""
    merged: dict[str, Steer] = {}
    for pointer, steer in steers:
        known = merged.get(pointer, aim.get(pointer))
        both = steer if known is None else combine(known, steer)
        if both is None:
            return False
        merged[pointer] = both
    aim.update(merged)
    return True
