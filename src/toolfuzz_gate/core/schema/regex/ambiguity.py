"""Whether a repeated group can match the same text in two ways: the exponential case (pure).

Design note. A backtracking matcher (Python's `re`, which the reference validator runs on
every generated string, and the engine's own reading) takes exponential time exactly when
some repetition `B{n,m}` can read one string through its iterations along two different
paths: a string read in two ways by `B+` is read in 2**k ways by `k` copies of itself, and
a failing suffix makes the matcher try them all. So a repetition is safe when `B+` is
unambiguous, and only then.

The check builds the position automaton of `B+` (one state per character of the pattern,
counted repetitions written out, each iteration boundary a tagged edge) and walks pairs of
paths reading the same characters; the repetition is ambiguous when two paths that differ
somewhere (a state or an edge) both reach the end of an iteration. Paths through the empty
string are not states, so they are counted apart: a part that can match the empty string in
two ways (`(a?)?`) makes every loop around it ambiguous. The walk is bounded; a pattern too
large to decide is refused rather than guessed about.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from toolfuzz_gate.core.schema.regex.ast import (
    Alt,
    Anchor,
    Chars,
    Ranges,
    Regex,
    Repeat,
    Seq,
    children,
    first_chars,
    length_range,
)
from toolfuzz_gate.core.schema.regex.ast import intersect as intersect_ranges
from toolfuzz_gate.core.schema.regex.reader import UNSUPPORTED, PatternError

MAX_POSITIONS = 1024
"""Character positions one repetition may expand to before the check gives up."""
MAX_PAIRS = 200_000
"""Pairs of paths the walk may visit before the check gives up."""
START = 0


@dataclass
class _Automaton:
    """Positions 1.. with their character sets; edges as (target, tag) per source."""

    ranges: list[Ranges] = field(default_factory=lambda: [()])
    edges: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    tags: int = 0
    offset: int = 0

    def position(self, ranges: Ranges) -> int:
        if len(self.ranges) > MAX_POSITIONS:
            raise PatternError(
                UNSUPPORTED,
                "a repeated group too large to check for catastrophic backtracking "
                f"(more than {MAX_POSITIONS} characters once counts are written out)",
                self.offset,
            )
        self.ranges.append(ranges)
        return len(self.ranges) - 1

    def link(self, sources: Iterable[int], targets: Iterable[int]) -> None:
        """Edges from every source to every target, all with one fresh tag."""
        self.tags += 1
        kept = list(targets)
        for source in sources:
            self.edges.setdefault(source, []).extend((target, self.tags) for target in kept)


@dataclass(frozen=True)
class _Part:
    """What a sub-pattern contributes: where a match of it can begin and end."""

    first: tuple[int, ...]
    last: tuple[int, ...]
    nullable: bool


EMPTY = _Part((), (), True)


def ambiguous_repeat(node: Repeat) -> bool:
    """Whether some string is read in two ways by one or more iterations of `node.body`."""
    if _empty_ways(node.body) > 0:
        return True  # an iteration that can match nothing: an empty loop to choose or skip
    if _ambiguous_empty(node.body):
        return True
    low, high = length_range(node.body)
    if low == high and _alternations_disjoint(node.body):
        # Every iteration has the same length, so where each ends is fixed, and inside one
        # every choice is made by its first character: nothing to write out (`(a{1000}){1000}`).
        return False
    automaton = _Automaton(offset=node.offset)
    body = _build(automaton, node.body)
    automaton.link([START], body.first)
    automaton.link(body.last, body.first)  # the iteration boundary
    return _two_paths(automaton, frozenset(body.last))


def _build(automaton: _Automaton, node: Regex) -> _Part:
    if isinstance(node, Chars):
        position = automaton.position(node.ranges)
        return _Part((position,), (position,), False)
    if isinstance(node, Anchor):
        return EMPTY
    if isinstance(node, Seq):
        return _sequence(automaton, [_build(automaton, item) for item in node.items])
    if isinstance(node, Alt):
        parts = [_build(automaton, branch) for branch in node.branches]
        return _Part(
            tuple(p for part in parts for p in part.first),
            tuple(p for part in parts for p in part.last),
            any(part.nullable for part in parts),
        )
    return _repeat(automaton, node)


def _sequence(automaton: _Automaton, parts: list[_Part]) -> _Part:
    whole = EMPTY
    for part in parts:
        automaton.link(whole.last, part.first)
        whole = _Part(
            whole.first + (part.first if whole.nullable else ()),
            part.last + (whole.last if part.nullable else ()),
            whole.nullable and part.nullable,
        )
    return whole


def _repeat(automaton: _Automaton, node: Repeat) -> _Part:
    """`body{low,high}` written out: `low` copies, then either a copy that loops (no upper
    bound) or `high - low` nested optional copies (each only after the one before)."""
    if node.high is None:
        required = [_build(automaton, node.body) for _ in range(max(node.low - 1, 0))]
        required.append(_looping(automaton, node.body, optional=node.low == 0))
        return _sequence(automaton, required)
    head = _sequence(automaton, [_build(automaton, node.body) for _ in range(node.low)])
    optional = node.high - node.low
    if optional == 0:
        return head
    copies = [_build(automaton, node.body) for _ in range(optional)]
    for before, after in pairwise(copies):
        automaton.link(before.last, after.first)
    tail = _Part(copies[0].first, tuple(p for c in copies for p in c.last), True)
    return _sequence(automaton, [head, tail])


def _looping(automaton: _Automaton, body: Regex, optional: bool) -> _Part:
    part = _build(automaton, body)
    automaton.link(part.last, part.first)
    return _Part(part.first, part.last, part.nullable or optional)


def _two_paths(automaton: _Automaton, finals: frozenset[int]) -> bool:
    """Whether two different paths from the start read the same string to final positions."""
    overlap: dict[tuple[int, int], bool] = {}

    def meets(p: int, q: int) -> bool:
        key = (p, q) if p <= q else (q, p)
        if key not in overlap:
            overlap[key] = bool(intersect_ranges(automaton.ranges[p], automaton.ranges[q]))
        return overlap[key]

    seen = {(START, START, False)}
    frontier = [(START, START, False)]
    while frontier:
        p, q, differ = frontier.pop()
        for p2, tag1 in automaton.edges.get(p, ()):
            for q2, tag2 in automaton.edges.get(q, ()):
                if not meets(p2, q2):
                    continue
                apart = differ or p2 != q2 or tag1 != tag2
                if apart and p2 in finals and q2 in finals:
                    return True
                state = (p2, q2, apart)
                if state not in seen:
                    if len(seen) >= MAX_PAIRS:
                        raise PatternError(
                            UNSUPPORTED,
                            "a repeated group too complex to check for catastrophic backtracking",
                            automaton.offset,
                        )
                    seen.add(state)
                    frontier.append(state)
    return False


def disjoint_branches(node: Alt) -> bool:
    """Whether every branch of `node` reads a character and none starts with one another can."""
    seen: Ranges = ()
    for branch in node.branches:
        first = first_chars(branch)
        if intersect_ranges(seen, first) or length_range(branch)[0] == 0:
            return False
        seen = tuple(sorted(seen + first))
    return True


def _alternations_disjoint(node: Regex) -> bool:
    if isinstance(node, Alt):
        return disjoint_branches(node) and all(map(_alternations_disjoint, node.branches))
    if isinstance(node, Seq):
        return all(map(_alternations_disjoint, node.items))
    if isinstance(node, Repeat):
        return _alternations_disjoint(node.body)
    return True


def _empty_ways(node: Regex) -> int:
    """In how many ways `node` matches the empty string (capped at 2)."""
    if isinstance(node, Chars):
        return 0
    if isinstance(node, Anchor):
        return 1
    if isinstance(node, Seq):
        ways = 1
        for item in node.items:
            ways = min(2, ways * _empty_ways(item))
        return ways
    if isinstance(node, Alt):
        return min(2, sum(_empty_ways(branch) for branch in node.branches))
    inner = _empty_ways(node.body)
    if inner == 0:
        return 1 if node.low == 0 else 0
    if node.high != node.low:
        return 2  # as many empty iterations as it likes
    return min(2, inner**node.low) if node.low else 1


def _ambiguous_empty(node: Regex) -> bool:
    """Whether some part of `node` matches the empty string in two ways (`(a?)?`, `(|)`)."""
    return _empty_ways(node) > 1 or any(_ambiguous_empty(child) for child in children(node))
