"""The shape of one string format and the small helpers its makers share (pure).

A `Format` carries the engine's whole reading of one `format` name: `check` (does a
string conform, following the RFC the 2020-12 specification names), `make` (a seeded
valid value of an exact length, at its low end, its high end or mixed, like the rest
of `core.engine.generate`), `fits` (which lengths its values can have, so `minLength` and
`maxLength` can be honoured or found contradictory) and `near_misses` (hostile
corruptions of a valid value that no reading of the RFC accepts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.options import DRAFTS

DIGITS = "0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz"
ALNUM = LOWER + DIGITS
HEX = "0123456789abcdef"

Corrupt = Callable[[str, Random], str | None]
"""A valid value (and seeded randomness) to a near-miss, or None where it cannot apply."""


@dataclass(frozen=True)
class NearMiss:
    """One hostile variant: `corrupt` breaks a valid value of the format."""

    variant: str
    corrupt: Corrupt


@dataclass(frozen=True)
class Format:
    """One supported `format`. `make(rng, mode, length)` is called only where `fits(length)`.

    `longest` is None when values can be padded without bound (a fraction of a second,
    a URI path); `natural` is the length generated at the high end when the schema sets
    no `maxLength`. Every edge value passes `check` (a test holds it so).
    """

    name: str
    check: Callable[[str], bool]
    make: Callable[[Random, str, int], str]
    fits: Callable[[int], bool]
    shortest: int
    longest: int | None
    natural: int
    near_misses: tuple[NearMiss, ...]
    drafts: frozenset[str] = frozenset(DRAFTS)
    edges: tuple[str, ...] = ()
    """Valid values real parsers mishandle (leap days, `+14:00`, IPv4 inside IPv6, userinfo
    and ports), drawn now and then by mixed cases where their length fits."""


def pick(rng: Random, mode: str, low: str, high: str, alphabet: str) -> str:
    """One character: the low or high end of a range, or a random one from `alphabet`."""
    if mode == LOW:
        return low
    if mode == HIGH:
        return high
    return rng.choice(alphabet)


def spread(rng: Random, mode: str, total: int, count: int, least: int, most: int) -> list[int]:
    """`count` sizes in [least, most] summing to `total` (callers make sure one exists).

    The low end gives the extra to the last parts, the high end to the first, mixed at random.
    """
    sizes = [least] * count
    extra = total - least * count
    order = list(range(count))
    if mode == LOW:
        order.reverse()
    while extra > 0:
        if mode == MIXED:
            room = [i for i in order if sizes[i] < most]
            index = rng.choice(room)
            sizes[index] += 1
            extra -= 1
            continue
        for index in order:
            grant = min(most - sizes[index], extra)
            sizes[index] += grant
            extra -= grant
    return sizes


def replace_at(text: str, index: int, new: str) -> str:
    """`text` with the characters from `index` on overwritten by `new` (same length)."""
    return text[:index] + new + text[index + len(new) :]
