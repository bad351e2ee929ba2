"""The small syntax tree an ECMA-262 pattern is read into, and code-point sets (pure).

Character sets are normalised tuples of inclusive code-point ranges, so the
translator, the backtracking analysis and the sampler share one reading.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_CODE_POINT = 0x10FFFF
Ranges = tuple[tuple[int, int], ...]


def normalise(ranges: list[tuple[int, int]] | Ranges) -> Ranges:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return tuple(merged)


def complement(ranges: Ranges) -> Ranges:
    result: list[tuple[int, int]] = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            result.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CODE_POINT:
        result.append((start, MAX_CODE_POINT))
    return tuple(result)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    result: list[tuple[int, int]] = []
    for alo, ahi in a:
        for blo, bhi in b:
            lo, hi = max(alo, blo), min(ahi, bhi)
            if lo <= hi:
                result.append((lo, hi))
    return normalise(result)


def contains(ranges: Ranges, code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in ranges)


DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = normalise([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
# ECMA-262 WhiteSpace and LineTerminator code points.
SPACE: Ranges = normalise(
    [
        *((0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A)),
        *((0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)),
        (0xFEFF, 0xFEFF),
    ]
)
LINE_TERMINATORS: Ranges = normalise([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
DOT: Ranges = complement(LINE_TERMINATORS)
ANY: Ranges = ((0, MAX_CODE_POINT),)


@dataclass(frozen=True)
class Chars:
    """One character from `ranges` (a literal is a one-point set)."""

    ranges: Ranges
    offset: int


@dataclass(frozen=True)
class Seq:
    items: tuple[Regex, ...]


@dataclass(frozen=True)
class Alt:
    branches: tuple[Regex, ...]
    offset: int


@dataclass(frozen=True)
class Repeat:
    """`body` repeated `low` to `high` times (`high` None: unbounded); laziness is irrelevant
    to whether a match exists, so it is not kept."""

    body: Regex
    low: int
    high: int | None
    offset: int


@dataclass(frozen=True)
class Anchor:
    """`^` (start) or `$` (end) of the input: ECMA reads both without the multiline flag."""

    start: bool


Regex = Chars | Seq | Alt | Repeat | Anchor


def children(node: Regex) -> tuple[Regex, ...]:
    """The nodes directly inside `node` (none for characters and anchors)."""
    if isinstance(node, Seq):
        return node.items
    if isinstance(node, Alt):
        return node.branches
    if isinstance(node, Repeat):
        return (node.body,)
    return ()


def size(node: Regex) -> int:
    return 1 + sum(size(child) for child in children(node))


def length_range(node: Regex) -> tuple[int, int | None]:
    """The fewest and most characters `node` can match (None: no bound)."""
    if isinstance(node, Chars):
        return 1, 1
    if isinstance(node, Anchor):
        return (0, 0)
    if isinstance(node, Seq):
        low, high = 0, 0
        unbounded = False
        for item in node.items:
            lo, hi = length_range(item)
            low += lo
            if hi is None:
                unbounded = True
            else:
                high += hi
        return low, None if unbounded else high
    if isinstance(node, Alt):
        ranges = [length_range(b) for b in node.branches]
        highs = [hi for _, hi in ranges]
        return min(lo for lo, _ in ranges), None if None in highs else max(h or 0 for h in highs)
    lo, hi = length_range(node.body)
    if node.high is None:
        return lo * node.low, None if hi != 0 else 0
    return lo * node.low, None if hi is None else hi * node.high


def all_chars(node: Regex) -> Ranges:
    """Every character `node` can consume anywhere."""
    if isinstance(node, Chars):
        return node.ranges
    if isinstance(node, Anchor):
        return ()
    if isinstance(node, Seq):
        return normalise([r for item in node.items for r in all_chars(item)])
    if isinstance(node, Alt):
        return normalise([r for branch in node.branches for r in all_chars(branch)])
    return all_chars(node.body)


def first_chars(node: Regex) -> Ranges:
    """The characters a match of `node` can begin with (over-approximated)."""
    if isinstance(node, Chars):
        return node.ranges
    if isinstance(node, Anchor):
        return ()
    if isinstance(node, Seq):
        found: list[tuple[int, int]] = []
        for item in node.items:
            found.extend(first_chars(item))
            if length_range(item)[0] > 0:
                break
        return normalise(found)
    if isinstance(node, Alt):
        return normalise([r for branch in node.branches for r in first_chars(branch)])
    return first_chars(node.body)


def anchors(node: Regex) -> bool:
    return isinstance(node, Anchor) or any(anchors(child) for child in children(node))


def anchored_start(node: Regex) -> bool:
    """Every match of `node` begins at the start of the input."""
    if isinstance(node, Anchor):
        return node.start
    if isinstance(node, Seq):
        return bool(node.items) and anchored_start(node.items[0])
    if isinstance(node, Alt):
        return all(anchored_start(branch) for branch in node.branches)
    return False


def anchored_end(node: Regex) -> bool:
    """Every match of `node` ends at the end of the input."""
    if isinstance(node, Anchor):
        return not node.start
    if isinstance(node, Seq):
        return bool(node.items) and anchored_end(node.items[-1])
    if isinstance(node, Alt):
        return all(anchored_end(branch) for branch in node.branches)
    return False
