"""The generator's caps (pure): which types it makes at a depth, how long a string and how
many items it makes at most, and how deep it follows a `$ref` recursion.

`core.engine.generate` draws within them; `core.engine.estimate` bounds sizes by them.
"""

from __future__ import annotations

from functools import lru_cache

from toolfuzz_gate.core.jsonutil.values import TYPE_NAMES
from toolfuzz_gate.core.schema.keywords.pattern import open_high
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node

UNBOUNDED_EXTRA_LENGTH = 24
UNBOUNDED_EXTRA_ITEMS = 4
ANY_DEPTH = 2
"""From this depth an untyped value is made a scalar (no more nesting)."""
SOFT_REF_DEPTH = 2
"""Past this many `$ref` expansions on one path, values are built at their simplest."""
HARD_REF_DEPTH = SOFT_REF_DEPTH + 6
"""Past this many, the branch being built is given up (a recursion with no way out)."""


@lru_cache(maxsize=256)
def generated_types(types: frozenset[str], scalars_only: bool) -> tuple[str, ...]:
    """Which types to generate for a node, in a fixed order; `integer` is within `number`."""
    names = [t for t in TYPE_NAMES if t in types and not (t == "integer" and "number" in types)]
    if scalars_only and len(names) > 1:
        names = [t for t in names if t not in ("array", "object")] or names
    return tuple(names)


def string_cap(node: Node, limits: Limits) -> int:
    d = node.domain
    hi = d.max_length if d.max_length is not None else open_high(d, UNBOUNDED_EXTRA_LENGTH)
    return min(hi, limits.max_string_bytes)


def items_cap(node: Node, limits: Limits) -> int:
    d = node.domain
    fewest = max(d.min_items, len(d.prefix_items), d.min_contains)
    hi = d.max_items if d.max_items is not None else fewest + UNBOUNDED_EXTRA_ITEMS
    return min(hi, limits.max_items)
