"""Draw strings that match a parsed pattern, and near-misses that do not (pure).

Matching strings are built from the tree towards a target length, then padded
with filler where the pattern is not anchored (`search` semantics: the match may
sit inside a longer string). Characters come from printable ASCII wherever the
pattern allows, because that is where every reader agrees on `\\d`, `\\w`, `\\s`,
`.` and `$`. Near-misses change one thing in a matching string: one character
swapped for one outside its set, one part dropped, an anchor broken by a
character before or after, or (for a pattern anchored at its end) a character appended,
inserted before the last one or put in its place, which a check that matches only a
prefix lets through. Callers verify every candidate (`core.schema.regex.compiled`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from random import Random

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.regex.ast import (
    Alt,
    Anchor,
    Chars,
    Ranges,
    Regex,
    Repeat,
    Seq,
    anchored_end,
    anchored_start,
    complement,
    intersect,
    length_range,
    normalise,
)

ALNUM: Ranges = normalise([(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)])
PRINTABLE: Ranges = ((0x20, 0x7E),)
SURROGATES: Ranges = ((0xD800, 0xDFFF),)
FILLER = "abcdefghijklmnopqrstuvwxyz0123456789"
REPEAT_EXTRA = 4
MAX_STEPS = 20_000
"""Tree nodes one draw may visit before giving up."""
"""How many repetitions beyond the minimum an unbounded quantifier gets without a target."""
OUTSIDE_POOL = "\n\t\x7f\u00e9"
END_CHARS = ("!", " ", "'", "/", "x", "0", "~")
"""What `end-broken` near-misses put past the end (verified: letters may still match)."""
"""Characters tried, in order, when a character outside some set is needed and
printable ASCII has none (the set is nearly everything)."""


class _Dead(Exception):
    """The choices made cannot satisfy an anchor; the draw starts again."""


@dataclass
class Piece:
    """One character of a drawn string, with the set it was drawn from (None: filler)."""

    char: str
    chars: Ranges | None


@dataclass
class _Draw:
    rng: Random
    mode: str
    limit: int
    pieces: list[Piece] = field(default_factory=list)
    used_start: bool = False
    used_end: bool = False
    steps: int = 0

    def emit(self, node: Regex, want: int) -> None:
        # Bounded work whatever the tree: nested counts (`((^){1000}){1000}`) or a
        # repetition overshooting its share give up rather than build a huge string.
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Dead
        if isinstance(node, Chars):
            self._char(node.ranges)
        elif isinstance(node, Anchor):
            self._anchor(node)
        elif isinstance(node, Seq):
            self._seq(node, want)
        elif isinstance(node, Alt):
            self._alt(node, want)
        else:
            self._repeat(node, want)

    def _char(self, ranges: Ranges) -> None:
        if self.used_end or len(self.pieces) >= self.limit:
            raise _Dead
        self.pieces.append(Piece(pick_char(ranges, self.rng, self.mode), ranges))

    def _anchor(self, node: Anchor) -> None:
        if node.start:
            if self.pieces:
                raise _Dead
            self.used_start = True
        else:
            self.used_end = True

    def _seq(self, node: Seq, want: int) -> None:
        bounds = [length_range(item) for item in node.items]
        shares = [lo for lo, _ in bounds]
        extra = want - sum(shares)
        order = list(range(len(node.items)))
        if self.mode == MIXED:
            self.rng.shuffle(order)
        elif self.mode == HIGH:
            order.reverse()
        for index in order:
            if extra <= 0:
                break
            lo, hi = bounds[index]
            room = extra if hi is None else min(extra, hi - lo)
            if self.mode == MIXED and room > 0 and index != order[-1]:
                room = self.rng.randint(0, room)
            shares[index] += room
            extra -= room
        for item, share in zip(node.items, shares, strict=True):
            self.emit(item, share)

    def _alt(self, node: Alt, want: int) -> None:
        bounds = [length_range(branch) for branch in node.branches]
        fitting = [
            i for i, (lo, hi) in enumerate(bounds) if lo <= want and (hi is None or want <= hi)
        ]
        if not fitting:
            fitting = [min(range(len(bounds)), key=lambda i: _distance(bounds[i], want))]
        if self.mode == LOW:
            index = fitting[0]
        elif self.mode == HIGH:
            index = fitting[-1]
        else:
            index = self.rng.choice(fitting)
        self.emit(node.branches[index], want)

    def _repeat(self, node: Repeat, want: int) -> None:
        lo, hi = length_range(node.body)
        top = node.high if node.high is not None else node.low + max(REPEAT_EXTRA, want)
        fewest, most = node.low, top
        if hi:
            fewest = max(fewest, -(-want // hi))
        if lo:
            most = min(most, want // lo)
        if lo == 0 and hi == 0:
            fewest = most = node.low
        if fewest > most:
            count = min(fewest, top)
        elif self.mode == LOW:
            count = fewest
        elif self.mode == HIGH:
            count = most
        else:
            count = self.rng.randint(fewest, most)
        share, left = divmod(max(want, 0), count) if count else (0, 0)
        for n in range(count):
            self.emit(node.body, share + (1 if n < left else 0))


def _distance(bounds: tuple[int, int | None], want: int) -> int:
    lo, hi = bounds
    if want < lo:
        return lo - want
    if hi is not None and want > hi:
        return want - hi
    return 0


def pick_char(ranges: Ranges, rng: Random, mode: str) -> str:
    """A character of `ranges`, preferring ASCII letters and digits, then printable ASCII."""
    chosen, total = _preferred(ranges)
    if not total:
        raise _Dead
    if mode == LOW:
        return chr(chosen[0][0])
    return _nth(chosen, rng.randrange(total))


@lru_cache(maxsize=1024)
def _preferred(ranges: Ranges) -> tuple[Ranges, int]:
    """The best tier of `ranges` to draw from, and how many characters it holds."""
    for tier in (ALNUM, PRINTABLE, complement(SURROGATES)):
        chosen = intersect(ranges, tier)
        if chosen:
            return chosen, sum(hi - lo + 1 for lo, hi in chosen)
    return (), 0


def _nth(ranges: Ranges, index: int) -> str:
    for lo, hi in ranges:
        if index <= hi - lo:
            return chr(lo + index)
        index -= hi - lo + 1
    raise AssertionError("index beyond the ranges")


def draw(tree: Regex, rng: Random, low: int, high: int, mode: str) -> list[Piece] | None:
    """One attempt at a matching string of `low..high` characters, as pieces (None: missed)."""
    plo, phi = length_range(tree)
    if plo > high:
        return None
    if mode == LOW:
        total = low
    elif mode == HIGH:
        total = high
    else:
        total = (
            rng.randint(low, high) if rng.random() < 0.5 else rng.randint(low, min(high, low + 8))
        )
    want = max(plo, total if phi is None else min(phi, total))
    state = _Draw(rng, mode, high)
    try:
        state.emit(tree, want)
    except _Dead:
        return None
    pieces = state.pieces
    pad = total - len(pieces)
    if pad > 0 and not (state.used_start and state.used_end):
        before = 0 if state.used_start else pad if state.used_end else _split(rng, mode, pad)
        fill = [Piece(c, None) for c in _filler(rng, mode, pad)]
        pieces = fill[:before] + pieces + fill[before:]
    if not low <= len(pieces) <= high:
        return None
    return pieces


def _split(rng: Random, mode: str, pad: int) -> int:
    if mode == LOW:
        return 0
    if mode == HIGH:
        return pad
    return rng.randint(0, pad)


def _filler(rng: Random, mode: str, count: int) -> str:
    if mode == LOW:
        return FILLER[0] * count
    return "".join(rng.choice(FILLER) for _ in range(count))


def text(pieces: list[Piece]) -> str:
    return "".join(piece.char for piece in pieces)


def outside(ranges: Ranges, rng: Random) -> str | None:
    """A character not in `ranges`, printable ASCII first."""
    others = intersect(complement(ranges), PRINTABLE)
    if others:
        return _nth(others, rng.randrange(sum(hi - lo + 1 for lo, hi in others)))
    for char in OUTSIDE_POOL:
        if not intersect(ranges, ((ord(char), ord(char)),)):
            return char
    return None


def iter_near_misses(tree: Regex, pieces: list[Piece], rng: Random, kind: str) -> Iterator[str]:
    """Candidate near-misses of one kind around a matching string (unverified)."""
    if kind == "char-outside-class":
        spots = [i for i, p in enumerate(pieces) if p.chars is not None]
        rng.shuffle(spots)
        for index in spots[:8]:
            ranges = pieces[index].chars
            assert ranges is not None
            char = outside(ranges, rng)
            if char is not None:
                yield text(pieces[:index]) + char + text(pieces[index + 1 :])
    elif kind == "part-dropped":
        whole = text(pieces)
        spots = list(range(len(whole)))
        rng.shuffle(spots)
        for index in spots[:8]:
            yield whole[:index] + whole[index + 1 :]
        yield ""
    elif kind == "anchor-broken":
        whole = text(pieces)
        for char in ("!", "x", "0", " ", "~"):
            if anchored_start(tree):
                yield char + whole
                yield char + whole[:-1]
            if anchored_end(tree):
                yield whole + char
                yield whole[1:] + char
    elif kind == "end-broken" and anchored_end(tree):
        # Past the end: what `re.match` without `$`, or a prefix check, lets through.
        whole = text(pieces)
        for char in END_CHARS:
            yield whole + char
            if whole:
                yield whole[:-1] + char + whole[-1]
                yield whole[:-1] + char
