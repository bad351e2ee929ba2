"""Scalar draws of the valid-value generator: integers, numbers, multiples, strings, and the
alphabets plain strings are drawn from (pure).

`Scalars` is the half of `core.engine.generate.Generator` that draws one scalar within a
node's bounds, at the low end, the high end or mixed; the generator adds the walk over
types, choices, arrays and objects.
"""

from __future__ import annotations

import math
from functools import cached_property, lru_cache
from random import Random

from toolfuzz_gate.core.engine import dictionary
from toolfuzz_gate.core.engine.number_edges import (
    FLOAT_EDGES,
    INT_EDGES,
    INTEGER_FLOAT_LIMIT,
    INTEGER_FLOAT_PROBABILITY,
    PAST_2_53,
    SPECIAL_FLOATS,
    SPECIAL_PROBABILITY,
    within,
)
from toolfuzz_gate.core.engine.number_range import DEFAULT_NUMBER, integer_span, span
from toolfuzz_gate.core.engine.seeds import pointer_salt
from toolfuzz_gate.core.engine.sizes import string_cap
from toolfuzz_gate.core.schema.draw_modes import EDGE_PROBABILITY, HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.formats import make_string as make_format_string
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.multiples import (
    as_json,
    common_multiple,
    multiple_range,
    nearest_agreeing,
)
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.regex import sample_all
from toolfuzz_gate.core.schema.validate import validate_node

DICTIONARY_EVERY = 5
"""One mixed case in this many draws a location's plain string from the dictionary of
troublesome strings, each time from the next category (`core.engine.dictionary`)."""
_within = within

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


class NoValue(Exception):
    """The generator found no valid value for a node (raised inside, caught at choices).

    `proven`: the node has no value at all (a part compiled as empty, no type every part
    admits, no usable branch), not merely none the generator could build; only then may the
    compiler call the schema contradictory (`core.engine.satisfiable`)."""

    def __init__(self, pointer: str, why: str, *, proven: bool = False) -> None:
        super().__init__(f"{pointer or '(root)'}: {why}")
        self.pointer = pointer
        self.why = why
        self.proven = proven


class Scalars:
    """Scalar draws over the generator's seed, mode and limits (fields of the dataclass)."""

    seed_material: int
    index: int
    mode: str
    limits: Limits
    integer_floats: bool
    dictionary_used: list[str]

    @cached_property
    def rng(self) -> Random:
        """Made on first use: seeding costs about as much as a small value, and most
        hostile cases never draw; once made it is a plain attribute, read on every draw."""
        return Random(self.seed_material)

    def _choose(self, edges: tuple[int | float, ...], lo: int, hi: int) -> int:
        if self.mode == LOW:
            return lo
        if self.mode == HIGH:
            return hi
        rng = self.rng
        if edges and rng.random() < EDGE_PROBABILITY:
            return int(rng.choice(edges))
        return rng.randint(lo, hi)

    def _integer(self, node: Node) -> int | float:
        d = node.domain
        lo, hi = integer_span(d)
        if lo > hi:  # merged bounds that cross (`allOf` parts, a branch and its node)
            raise NoValue(node.pointer, "no integer lies within every bound")
        if d.multiples:
            return int(self._multiple(node, lo, hi, integer=True))
        # An unbounded side also reaches just past 2**53, where a double stops counting by one.
        reach_lo = lo if d.lo is not None else min(PAST_2_53)
        reach_hi = hi if d.hi is not None else max(PAST_2_53)
        edges = _within(reach_lo, reach_hi, (lo, hi, lo + 1, hi - 1, *INT_EDGES, *PAST_2_53))
        if self.mode != MIXED:
            return self._choose(edges, lo, hi)
        if self.rng.random() >= EDGE_PROBABILITY:
            value = self.rng.randint(max(lo, min(hi, -1000)), min(hi, max(lo, 1000)))
        else:
            value = self._choose(edges, lo, hi)
        if self.integer_floats and self.rng.random() < INTEGER_FLOAT_PROBABILITY:
            return float(value) if abs(value) < INTEGER_FLOAT_LIMIT else value
        return value

    def _number(self, node: Node) -> int | float:
        d = node.domain
        lo, hi = span(d.lo, d.hi, DEFAULT_NUMBER)
        if lo > hi:
            raise NoValue(node.pointer, "no number lies within every bound")
        if d.multiples:
            return self._multiple(node, lo, hi, integer=False)
        if self.mode == LOW:
            return lo
        if self.mode == HIGH:
            return hi
        middle = (lo + hi) / 2
        if math.isinf(middle):  # near the ends of the float range the sum overflows
            middle = lo / 2 + hi / 2
        edges = _within(lo, hi, (lo, hi, middle, *FLOAT_EDGES))
        roll = self.rng.random()
        if roll < SPECIAL_PROBABILITY:
            special = self.rng.choice(SPECIAL_FLOATS)
            if validate_node(node, special):
                return special
        if roll < EDGE_PROBABILITY:
            edge = self.rng.choice(edges)
            # -0.0 is valid wherever 0 is (it compares equal); its sign is what code trips on
            return -0.0 if edge == 0 and self.rng.random() < 0.5 else edge
        near_low, near_high = math.ceil(max(lo, -1e6)), math.floor(min(hi, 1e6))
        if roll < 0.75 and near_low <= near_high:
            return self.rng.randint(near_low, near_high)
        if math.isinf(hi - lo):
            return middle + (self.rng.random() - 0.5) * (hi / 2 - lo / 2)
        return self.rng.uniform(lo, hi)

    def _multiple(self, node: Node, lo: float, hi: float, integer: bool) -> int | float:
        """A multiple of every `multipleOf` within the bounds that all validators accept."""
        factors = node.domain.multiples
        step = common_multiple(factors, integer)
        if step is None:
            return 0
        k_range = multiple_range(lo, hi, step)
        low, high = k_range
        if low > high:  # merged bounds and steps (the compiler judges numeric nodes only)
            raise NoValue(node.pointer, f"no multiple of {step} lies within the bounds")
        edges = _within(low, high, (low, high, low + 1, high - 1, 0, 1, -1))
        if self.mode == MIXED and self.rng.random() >= EDGE_PROBABILITY:
            start = self.rng.randint(max(low, min(high, -1000)), min(high, max(low, 1000)))
        else:
            start = self._choose(edges, low, high)
        found = nearest_agreeing(start, k_range, step, factors, integer)
        return found if found is not None else as_json(start, step, integer)

    def _string(self, node: Node) -> str:
        d = node.domain
        cap = self.limits.max_string_bytes
        if d.formats:
            formatted = make_format_string(
                d.formats, self.rng, self.mode, d.min_length, d.max_length, cap
            )
            if formatted is not None and all(p.agreed_match(formatted) for p in d.patterns):
                return formatted  # else an annotation no string fits: any string is valid
        lo = d.min_length
        hi = string_cap(node, self.limits)
        if self.mode == MIXED:
            # A fixed schedule, shifted per location: at every location each category of
            # the dictionary comes round once in DICTIONARY_EVERY * len(CATEGORIES) cases.
            turn, off = divmod(self.index + pointer_salt(node.pointer), DICTIONARY_EVERY)
            if off == 0:
                troublesome = self._from_dictionary(node, turn, lo, hi)
                if troublesome is not None:
                    return troublesome
        if d.patterns:
            matching = sample_all(d.patterns, self.rng, lo, hi, self.mode)
            if matching is None or len(matching.encode("utf-8")) > cap:
                raise NoValue(node.pointer, "no string matching the pattern was found")
            return matching
        length = self._choose(_within(lo, hi, (lo, hi, lo + 1, 1)), lo, hi)
        if self.mode == LOW:
            _, alphabet, width = CHARSETS[0]
        elif self.mode == HIGH:
            _, alphabet, width = CHARSETS[-1]
        else:
            _, alphabet, width = self.rng.choice(CHARSETS)
        if length * width > cap:
            alphabet = ASCII  # keep the string within the byte limit
        return random_text(self.rng, alphabet, length)

    def _from_dictionary(self, node: Node, turn: int, lo: int, hi: int) -> str | None:
        """A dictionary entry fitted to the bounds, if it also keeps every pattern."""
        drawn = dictionary.draw(self.rng, turn, lo, hi)
        if drawn is None:
            return None
        entry, text = drawn
        cap = self.limits.max_string_bytes
        if len(text) * 4 > cap and len(text.encode("utf-8")) > cap:
            return None
        patterns = node.domain.patterns
        if patterns and not all(p.agreed_match(text) for p in patterns):
            return None
        self.dictionary_used.append(entry)
        return text
