r"""Refuse patterns a backtracking matcher could take super-quadratic time on (pure).

The reference validator runs Python's backtracking `re` on the raw pattern, so
the gate only accepts patterns whose worst case stays near n**2 on an n-character
input. Two shapes break that. A repeated group whose iterations can read the same
text in more than one way (`(a+)+`, `(a|a)*`, `(-a?a?)+`) is exponential; one whose
iterations read every string in one way only is not, however its parts overlap
(`(-[a-z]+)*`, where each iteration starts with a character nothing else in it reads,
or a host name's `([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+`, where each ends with
one): `core.schema.regex.ambiguity` decides which on the pattern's automaton. A
repeated alternation must also have branches that start differently (`(a|ab)+`
is refused, though it is only quadratic). And k long quantifiers in a
row over overlapping characters (`a*a*`) cost n**k, times n more when the pattern
is not anchored at the start (`search` retries at every offset): the sum must stay
at most 2.
"""

from __future__ import annotations

from toolfuzz_gate.core.schema.regex.ambiguity import ambiguous_repeat, disjoint_branches
from toolfuzz_gate.core.schema.regex.ast import (
    Alt,
    Chars,
    Ranges,
    Regex,
    Repeat,
    Seq,
    all_chars,
    anchored_start,
    intersect,
)
from toolfuzz_gate.core.schema.regex.reader import UNSUPPORTED, PatternError

LONG_SPAN = 8
"""A quantifier whose count can vary by more than this is treated as unbounded."""
MAX_COST_EXPONENT = 2
SHORT_FACTOR_LIMIT = 4096
"""Short quantifiers multiplying the work by this much cost as much as one long one."""
SHORT_FACTOR_FREE = 16
"""A product of spans up to this is a constant factor, not a degree."""


def check_safety(tree: Regex) -> None:
    """Raise `PatternError` when `tree` could backtrack catastrophically."""
    _check_nesting(tree, repeated=False)
    cost = _Cost()
    cost.walk(tree)
    exponent = cost.degree + (0 if anchored_start(tree) else 1)
    if exponent > MAX_COST_EXPONENT:
        raise PatternError(
            UNSUPPORTED,
            "unbounded quantifiers over overlapping characters in a row "
            f"(worst case about n**{exponent} steps on an n-character string; "
            "anchor the pattern with ^ or make the parts disjoint)",
            cost.offset,
        )


def _check_nesting(node: Regex, repeated: bool) -> None:
    if isinstance(node, Seq):
        for item in node.items:
            _check_nesting(item, repeated)
    elif isinstance(node, Alt):
        if repeated and not disjoint_branches(node):
            raise PatternError(
                UNSUPPORTED,
                "a repeated alternation whose branches can start with the same character "
                "(catastrophic backtracking)",
                node.offset,
            )
        for branch in node.branches:
            _check_nesting(branch, repeated)
    elif isinstance(node, Repeat):
        repeats = node.high is None or node.high > 1
        if repeats and ambiguous_repeat(node):
            raise PatternError(
                UNSUPPORTED,
                "a repeated group that can match the same text in more than one way, "
                "like (a+)+ (catastrophic backtracking)",
                node.offset,
            )
        _check_nesting(node.body, repeated or repeats)


class _Cost:
    """Counts the most quantifiers that are ambiguous with each other at once.

    A quantifier stays "open" until a required character it cannot consume
    follows it. A new long quantifier overlapping k open long ones raises the
    degree to k+1; short ones (`a?`, `a{0,3}`) multiply the work by their span,
    and enough of them in a row count as one more long one.
    """

    def __init__(self) -> None:
        self.degree = 0
        self.offset = 0
        self.open: list[tuple[Ranges, int | None]] = []

    def walk(self, node: Regex) -> None:
        if isinstance(node, Seq):
            for item in node.items:
                self.walk(item)
        elif isinstance(node, Alt):
            before = list(self.open)
            after: list[tuple[Ranges, int | None]] = []
            for branch in node.branches:
                self.open = list(before)
                self.walk(branch)
                after.extend(self.open)
            self.open = list(dict.fromkeys(after))  # one quantifier open in two branches is one
        elif isinstance(node, Chars):
            self.open = [(s, w) for s, w in self.open if intersect(s, node.ranges)]
        elif isinstance(node, Repeat):
            self._repeat(node)

    def _repeat(self, node: Repeat) -> None:
        if node.low > 0:
            self.walk(node.body)  # the first repetition is required
        span = None if node.high is None else node.high - node.low
        chars = all_chars(node.body)
        if span == 0 or not chars:
            return
        weight = None if span is None or span > LONG_SPAN else span + 1
        overlapping = [w for s, w in self.open if intersect(s, chars)] + [weight]
        longs = sum(1 for w in overlapping if w is None)
        factor = 1
        for w in overlapping:
            factor *= w or 1
        degree = longs
        while factor > SHORT_FACTOR_FREE:
            degree += 1
            factor = -(-factor // SHORT_FACTOR_LIMIT)
        if degree > self.degree:
            self.degree = degree
            self.offset = node.offset
        self.open = [*self.open, (chars, weight)]
