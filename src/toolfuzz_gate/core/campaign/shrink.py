"""Shrink a failing input to a minimal one that fails the same way (pure).

Design note. The order is shortlex on the canonical JSON text (`sort_key`): a
candidate is only tried when its encoding is shorter, or as long and
lexicographically smaller. That one rule makes every accepted step a strict
decrease (so shrinking terminates and never grows the input) and prefers what
a reader finds simpler: fewer members, shorter arrays and strings, numbers
nearer zero (fewer digits), plain letters (a NUL or an emoji encodes as an
escape, longer than `a`); `true` counts as simpler than `false`, being
shorter. Candidates are proposed biggest-cut first (drop a member, halve an
array or string, jump a number most of the way to zero, then single
characters) and the first one the caller's `keeps` accepts is taken; `keeps`
re-runs the validator and the handler, and accepts only the same failure
class at the same path, so shrinking can never turn a hostile case valid or
a crash into a clean rejection. A budget bounds the handler calls.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_compact

SIMPLE_TEXT = re.compile(r"[^a-z]")
# In the order, lower-case letters come before every other character (the ASCII
# canonical text never holds raw control characters, so these slots are free).
LETTERS_FIRST = str.maketrans({chr(ord("a") + i): chr(1 + i) for i in range(26)})


def sort_key(value: JSON) -> tuple[int, str]:
    text = canonical_compact(value)
    return (len(text), text.translate(LETTERS_FIRST))


def _descending(size: int) -> Iterator[int]:
    """Cut sizes from `size` down to 1 by halving: big cuts first."""
    cut = size
    while cut >= 1:
        yield cut
        cut //= 2


def _numbers(value: int | float) -> Iterator[JSON]:
    if isinstance(value, float):
        if value.is_integer():
            yield int(value)
        else:
            yield round(value)
            yield round(value, 2)
    whole = int(value)
    sign = 1 if whole > 0 else -1
    for cut in _descending(abs(whole)):
        yield whole - sign * cut


MAX_DELETIONS = 128


def _strings(value: str) -> Iterator[JSON]:
    for cut in _descending(len(value)):
        yield value[: len(value) - cut]
    simple = SIMPLE_TEXT.sub("a", value)
    if simple != value:
        yield simple
    if value != "a" * len(value):
        yield "a" * len(value)
    for cut in _descending(len(value)):
        yield value[cut:]
    # One character at a time, so a prefix before the character that matters can go too.
    for index in range(min(len(value), MAX_DELETIONS)):
        yield value[:index] + value[index + 1 :]


Edit = tuple[tuple[str | int, ...], str, str]
"""Where a candidate changed the input, the value there before, and after (canonical)."""


def _local(value: JSON) -> Iterator[JSON]:
    """Simpler variants of `value` itself (not of its members), biggest change first."""
    if isinstance(value, dict):
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
    elif isinstance(value, list):
        for cut in _descending(len(value)):
            yield value[: len(value) - cut]
        for index in range(len(value)):
            yield value[:index] + value[index + 1 :]
    elif isinstance(value, bool):
        return  # `true` already sorts before `false`: nothing simpler to offer
    elif isinstance(value, int | float):
        yield from _numbers(value)
    elif isinstance(value, str):
        yield from _strings(value)


def _edits(value: JSON, where: tuple[str | int, ...]) -> Iterator[tuple[Edit, JSON]]:
    before = canonical_compact(value)
    for smaller in _local(value):
        yield (where, before, canonical_compact(smaller)), smaller
    if isinstance(value, dict):
        for key, member in value.items():
            for edit, smaller in _edits(member, (*where, key)):
                yield edit, {**value, key: smaller}
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for edit, smaller in _edits(item, (*where, index)):
                yield edit, [*value[:index], smaller, *value[index + 1 :]]


def _hinted(value: JSON, hint: JSON, where: tuple[str | int, ...]) -> Iterator[tuple[Edit, JSON]]:
    """Members replaced by the hint's member at the same place (array items beyond the
    hint's length by its first item): one step to a schema's simplest value."""
    if isinstance(value, dict) and isinstance(hint, dict):
        for key, member in value.items():
            if key not in hint:
                continue
            simpler = hint[key]
            before, after = canonical_compact(member), canonical_compact(simpler)
            if before != after:
                yield ((*where, key), before, after), {**value, key: simpler}
            for edit, smaller in _hinted(member, simpler, (*where, key)):
                yield edit, {**value, key: smaller}
    elif isinstance(value, list) and isinstance(hint, list) and hint:
        for index, item in enumerate(value):
            simpler = hint[min(index, len(hint) - 1)]
            before, after = canonical_compact(item), canonical_compact(simpler)
            if before != after:
                yield (
                    ((*where, index), before, after),
                    [
                        *value[:index],
                        simpler,
                        *value[index + 1 :],
                    ],
                )
            for edit, smaller in _hinted(item, simpler, (*where, index)):
                yield edit, [*value[:index], smaller, *value[index + 1 :]]


def candidates(value: JSON) -> Iterator[JSON]:
    """Simpler variants of `value`, one change each, biggest first."""
    for _, candidate in _edits(value, ()):
        yield candidate


def shrink(
    value: JSON, keeps: Callable[[JSON], bool], budget: int, hint: JSON = None
) -> tuple[JSON, list[int]]:
    """The smallest input found, and the size of each accepted step (first is the original).

    `hint`, when given, is a simple valid value of the same schema (the generator's
    low-end case): replacing a member by the hint's member is tried first, which reaches
    the simplest value in one handler call instead of many small steps.

    A local edit that was refused once (the same change to the same value at the same
    place) is not tried again after an unrelated step succeeds: that keeps the budget
    for edits not yet tried, at the price of rarely missing one whose fate changed.
    """
    current = value
    current_key = sort_key(value)
    sizes = [current_key[0]]
    refused: set[Edit] = set()
    progress = True
    while progress and budget > 0:
        progress = False
        proposals = _edits(current, ())
        if hint is not None:
            proposals = itertools.chain(_hinted(current, hint, ()), proposals)
        for edit, candidate in proposals:
            if edit in refused:
                continue
            key = sort_key(candidate)
            if key >= current_key:
                continue
            budget -= 1
            if keeps(candidate):
                current, current_key = candidate, key
                sizes.append(key[0])
                progress = True
                break
            refused.add(edit)
            if budget <= 0:
                break
    return current, sizes
