"""The numbers generation reaches for beyond a range's own ends (pure data and filters).

Plain edges (`INT_EDGES`, `FLOAT_EDGES`) are drawn whenever the range holds them. The
`SPECIAL_FLOATS` are the values real code mishandles: negative zero (`-0.0 < 0` is false
but its sign prints), the smallest subnormal and the smallest normal double, integers
just past 2**53 (where a double stops counting by one), and doubles near the top of the
range (`x * 100` overflows). An unbounded integer reaches just past 2**53 too.
"""

from __future__ import annotations

from functools import lru_cache

INT_EDGES = (0, 1, -1, 2**31 - 1, -(2**31), 2**53 - 1, -(2**53 - 1))
PAST_2_53 = (2**53, 2**53 + 1, -(2**53 + 1))
"""Reached only on an unbounded side: a double cannot hold 2**53 + 1."""
FLOAT_EDGES = (0.0, 0.5, -0.5, 1e-9, 1e15, -1e15)
SPECIAL_FLOATS = (
    -0.0,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    2.0**53,
    2.0**53 + 2,
    1e308,
    -1e308,
    1.7976931348623157e308,
)
SPECIAL_PROBABILITY = 0.1
"""How often a mixed number draw tries a special float (kept when the node admits it)."""
INTEGER_FLOAT_PROBABILITY = 0.1
"""How often a mixed integer draw is given as a float (`1.0`), where the draft allows it."""
INTEGER_FLOAT_LIMIT = 2**53
"""Past this a float is not the same integer any more."""


@lru_cache(maxsize=1024)
def within(lo: float, hi: float, candidates: tuple[int | float, ...]) -> tuple[int | float, ...]:
    """The candidate edge values inside [lo, hi], without repeats, in order."""
    return tuple(dict.fromkeys(e for e in candidates if lo <= e <= hi))
