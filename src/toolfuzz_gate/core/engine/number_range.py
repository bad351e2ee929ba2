"""The range the generator draws numbers from, and whether a node admits any number (pure).

A bound the schema leaves out is put far from zero (`DEFAULT_INTEGER`, `DEFAULT_NUMBER`), or
at the other bound when that lies beyond it (`minimum: 1e308` alone). Merged nodes (`allOf`
parts, a branch with its node) can hold bounds that cross or no multiple between them; the
compiler only sees those for nodes of numeric types alone, so the generator asks here before
it picks a numeric type.
"""

from __future__ import annotations

import math

from toolfuzz_gate.core.schema.multiples import common_multiple, multiple_range
from toolfuzz_gate.core.schema.node import Domain

DEFAULT_INTEGER = 2**53 - 1
DEFAULT_NUMBER = 1e15
NUMERIC = frozenset({"integer", "number"})


def span(lo: float | None, hi: float | None, default: float) -> tuple[float, float]:
    """The schema's bounds; a missing one at `default` from zero, or at the other bound when
    that lies beyond."""
    low = lo if lo is not None else min(-default, hi if hi is not None else -default)
    high = hi if hi is not None else max(default, low)
    return low, high


def integer_span(d: Domain) -> tuple[int, int]:
    lo = math.ceil(d.lo) if d.lo is not None else None
    hi = math.floor(d.hi) if d.hi is not None else None
    low, high = span(lo, hi, DEFAULT_INTEGER)
    return int(low), int(high)  # ints already: the bounds are, and so is the default


def admits_numbers(d: Domain, integer: bool) -> bool:
    """Whether some number (an integer when `integer`) lies within the bounds and is a multiple
    of every `multipleOf`."""
    lo, hi = integer_span(d) if integer else span(d.lo, d.hi, DEFAULT_NUMBER)
    if lo > hi:
        return False
    step = common_multiple(d.multiples, integer) if d.multiples else None
    if step is None:
        return True
    low, high = multiple_range(lo, hi, step)
    return low <= high
