"""Where a draw leans within its bounds (pure data): the generator's mode for a case,
handed down to format and pattern sampling.

`LOW` keeps every bound at its low end, `HIGH` at its high end, `MIXED` draws edges and
interior values at random.
"""

from __future__ import annotations

LOW, HIGH, MIXED = "low", "high", "mixed"
EDGE_PROBABILITY = 0.5
"""How often a `MIXED` draw takes an edge of its range rather than an interior value."""
