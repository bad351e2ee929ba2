"""Per-case seeding (pure): every case of a run has its own `random.Random`, seeded from
(seed, stream, case index) through sha256, so any case can be regenerated alone, and the
same seed gives the same cases in any process whatever `PYTHONHASHSEED` is.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED


def stable_int(*parts: object) -> int:
    text = "\x1f".join(map(str, parts))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def case_seed(seed: int, stream: str, index: int) -> int:
    return stable_int("toolfuzz-case", seed, stream, index)


EMPTIEST_EVERY = 16
"""Case 2, and every this many cases after it, gives every top-level member at its emptiest."""


def is_emptiest(index: int) -> bool:
    return index % EMPTIEST_EVERY == 2


def mode_for(index: int) -> str:
    """Case 0 draws every bound low, case 1 high, the rest mixed (the emptiest valid cases
    are drawn low too: `core.engine.generate`)."""
    return LOW if index == 0 else HIGH if index == 1 else MIXED


@lru_cache(maxsize=4096)
def pointer_salt(pointer: str) -> int:
    """A fixed offset per schema location, so cycled choices do not move in step."""
    return stable_int("toolfuzz-salt", pointer)
