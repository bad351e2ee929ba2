"""The registry of supported string formats: one entry each (pure).

A format is supported exactly when `FORMATS` has an entry for it (and the entry lists the
document's draft). `core.schema.keywords.formats` reads the `format` keyword from this table;
`core.engine.generate` calls `make_string` so a string under a known format conforms to it,
in annotation mode too, because that is what callers send.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from random import Random

from toolfuzz_gate.core.schema.draw_modes import EDGE_PROBABILITY, HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.formats import dates, identifiers, network
from toolfuzz_gate.core.schema.formats.format_type import Format, NearMiss

FORMATS: dict[str, Format] = {
    entry.name: entry
    for entry in (
        dates.DATE_TIME,
        dates.DATE,
        dates.TIME,
        identifiers.EMAIL,
        identifiers.URI,
        identifiers.URI_REFERENCE,
        identifiers.UUID,
        network.IPV4,
        network.IPV6,
        network.HOSTNAME,
    )
}


EDGE_VALUE_PROBABILITY = 0.25
"""How often a mixed draw takes one of the format's edge values (where one fits)."""


def lookup(name: str, draft: str) -> Format | None:
    """The format `name` as the draft knows it, or None (an unknown format)."""
    entry = FORMATS.get(name)
    return entry if entry is not None and draft in entry.drafts else None


@lru_cache(maxsize=1024)
def length_range(name: str, min_length: int, max_length: int | None, cap: int) -> range | None:
    """The lengths (first to last that fit) a value of `name` may have under these bounds.

    Without a `maxLength` the high end is the format's natural length (or `minLength`).
    None when no length in the bounds fits: a contradiction in assertion mode.
    """
    entry = FORMATS[name]
    top = cap if entry.longest is None else min(entry.longest, cap)
    high = max(entry.natural, min_length) if max_length is None else max_length
    low, high = max(min_length, entry.shortest), min(high, top)
    first = next((n for n in range(low, high + 1) if entry.fits(n)), None)
    if first is None:
        return None
    last = next(n for n in range(high, first - 1, -1) if entry.fits(n))
    return range(first, last + 1)


def _length(entry: Format, lengths: range, rng: Random, mode: str) -> int:
    if mode == LOW:
        return lengths[0]
    if mode == HIGH:
        return lengths[-1]
    if rng.random() < EDGE_PROBABILITY:
        target = rng.choice((lengths[0], lengths[-1]))
    else:
        target = rng.randint(lengths[0], lengths[-1])
    for n in range(target, lengths[-1] + 1):  # the nearest fitting length at or above
        if entry.fits(n):
            return n
    return lengths[-1]


def make_value(
    name: str, rng: Random, mode: str, min_length: int, max_length: int | None, cap: int
) -> str | None:
    """A valid value of format `name` within the length bounds, or None if none fits."""
    lengths = length_range(name, min_length, max_length, cap)
    if lengths is None:
        return None
    entry = FORMATS[name]
    if mode == MIXED and entry.edges and rng.random() < EDGE_VALUE_PROBABILITY:
        fitting = [e for e in entry.edges if len(e) in lengths]
        if fitting:
            return fitting[rng.randrange(len(fitting))]
    return entry.make(rng, mode, _length(entry, lengths, rng, mode))


def make_string(
    names: Iterable[str],
    rng: Random,
    mode: str,
    min_length: int,
    max_length: int | None,
    cap: int,
) -> str | None:
    """A string conforming to every format in `names` (a merged node may carry several)."""
    wanted = tuple(names)
    for name in wanted:
        value = make_value(name, rng, mode, min_length, max_length, cap)
        if value is not None and all(FORMATS[other].check(value) for other in wanted):
            return value
    return None


def longest(names: Iterable[str], min_length: int, max_length: int | None, cap: int) -> int:
    """The longest string `make_string` can return (0 when none fits)."""
    ends = [length_range(name, min_length, max_length, cap) for name in names]
    return max((r[-1] for r in ends if r is not None), default=0)


__all__ = ["FORMATS", "HIGH", "LOW", "MIXED", "Format", "NearMiss", "lookup", "make_string"]
