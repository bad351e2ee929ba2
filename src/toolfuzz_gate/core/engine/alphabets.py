"""The alphabets plain strings are drawn from, and the draw itself (pure)."""

from __future__ import annotations

from functools import lru_cache
from random import Random

ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_."
CHARSETS: tuple[tuple[str, str, int], ...] = (
    # (name, alphabet, worst-case UTF-8 bytes per character)
    ("ascii", ASCII, 1),
    ("whitespace", " \t\n\r\u00a0\u2003\u3000", 3),
    ("non-ascii", "éßñçüЖжΩ中文한글عربי\u0301", 3),
    ("astral", "\U0001f600\U0001f389\U0001d538\U0001d54f\U0001f0a1\U00020000a", 4),
    ("control", "ab\x00\x01\x07\x1b\x7f\r\n\t", 1),
    ("mixed", ASCII + "é中\U0001f600\x00\u3000\u200b", 4),
)
"""Case 0 draws from the first, case 1 from the last, the others from any."""


@lru_cache(maxsize=64)
def _byte_table(alphabet: str) -> dict[int, str]:
    return {byte: alphabet[byte % len(alphabet)] for byte in range(256)}


def random_text(rng: Random, alphabet: str, length: int) -> str:
    """`length` characters drawn from `alphabet`, one random byte each.

    Drawing all the bytes at once and mapping them with `str.translate` keeps the
    per-character work in C; the modulo bias is irrelevant for fuzzing.
    """
    if length <= 0:
        return ""
    raw = rng.getrandbits(8 * length).to_bytes(length, "little")
    return raw.decode("latin-1").translate(_byte_table(alphabet))
