"""Shrinking a failing sequence to the fewest calls and the smallest arguments (pure).

Design: every candidate is run from a fresh state (`Server.fresh`), so what survives is a
whole reproduction, not a suffix that needs state the campaign happened to build. First
calls are dropped in chunks, halves first, then smaller, from the last but one back to the
first (delta debugging: a long prefix of earlier sequences goes in a few runs), down to
single calls, repeating while something goes;
then each call's arguments, member by member in name order: an optional member left out,
else a simpler value of the same type, kept only when the tool's schema still admits the
arguments. A candidate is kept when the same check fails at the same tool with the same
cause (`SequenceFinding.identity`), and the sequence is cut after the failing call. Links
survive: a call that took a value from a dropped call keeps the value it was sent, and
links to later calls are renumbered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from toolfuzz_gate.core.campaign.stateful.sequence import Call, LinkRef, Step
from toolfuzz_gate.core.campaign.stateful.sequence_checks import SequenceFinding
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

Attempt = Callable[[Sequence[Call]], tuple[list[Step], SequenceFinding] | None]
"""Run calls from a fresh state; the steps and the finding of the wanted identity, or None."""
Admits = Callable[[str, JSONObject], bool]
"""Does the tool's schema admit these arguments?"""


@dataclass
class Shrunk:
    steps: list[Step]
    finding: SequenceFinding
    attempts: int


def recorded(steps: Sequence[Step], through: int) -> list[Call]:
    """The calls of `steps` up to and including `through`, as made (links fixed)."""
    return [Call(s.call.tool, s.call.arguments, s.call.links) for s in steps[: through + 1]]


def shifted(steps: Sequence[Step], offset: int) -> list[Step]:
    """`steps` placed after `offset` others: their links renumbered."""
    return [replace(s, call=_relinked(s.call, lambda at: at + offset)) for s in steps]


def rebased(steps: Sequence[Step], start: int) -> list[Step]:
    """`steps` from `start` on, as a sequence of their own: links to the steps left out
    dropped (each call keeps the value it was sent), the others renumbered."""
    if start <= 0:
        return list(steps)
    return [
        replace(s, call=_relinked(s.call, lambda at: at - start if at >= start else None))
        for s in steps[start:]
    ]


def _relinked(call: Call, moved: Callable[[int], int | None]) -> Call:
    links = []
    for link in call.links:
        at = moved(link.step)
        if at is not None:
            links.append(LinkRef(link.member, at, link.output, link.origin))
    return Call(call.tool, call.arguments, tuple(links), call.bind)


def shrink_sequence(
    steps: list[Step],
    finding: SequenceFinding,
    attempt: Attempt,
    admits: Admits,
    budget: int,
    required: Callable[[str], frozenset[str]],
) -> Shrunk:
    best = Shrunk(steps[: finding.step + 1], finding, 0)

    def tried(calls: list[Call]) -> bool:
        if best.attempts >= budget:
            return False
        best.attempts += 1
        outcome = attempt(calls)
        if outcome is None:
            return False
        best.steps = outcome[0][: outcome[1].step + 1]
        best.finding = outcome[1]
        return True

    size = max(1, (len(best.steps) - 1) // 2)
    while best.attempts < budget and len(best.steps) > 1:
        removed = False
        start = len(best.steps) - 1 - size  # chunks of `size`, from the last but one back
        while start > -size and best.attempts < budget:
            low, high = max(0, start), min(start + size, len(best.steps) - 1)
            if low < high and tried(_without(recorded(best.steps, len(best.steps) - 1), low, high)):
                removed = True
            start -= size
        if removed:
            size = max(1, min(size, (len(best.steps) - 1) // 2))
        elif size == 1:
            break
        else:
            size //= 2
    for index in range(len(best.steps)):
        if index >= len(best.steps):
            break
        call = best.steps[index].call
        linked = {link.member for link in call.links}
        for member in sorted(call.arguments):
            if member in linked:
                continue
            for simpler in _simpler(call.arguments, member, required(call.tool)):
                if not admits(call.tool, simpler):
                    continue
                calls = recorded(best.steps, len(best.steps) - 1)
                if index >= len(calls):
                    break
                calls[index] = Call(call.tool, simpler, calls[index].links)
                if tried(calls):
                    call = best.steps[index].call
                    break
    return best


def _without(calls: list[Call], start: int, stop: int) -> list[Call]:
    """`calls` without those from `start` to `stop` (exclusive), links renumbered."""
    width = stop - start

    def moved(at: int) -> int | None:
        if at < start:
            return at
        return None if at < stop else at - width

    return [_relinked(call, moved) for call in calls[:start] + calls[stop:]]


def _simpler(arguments: JSONObject, member: str, required: frozenset[str]) -> list[JSONObject]:
    value = arguments[member]
    found: list[JSONObject] = []
    if member not in required:
        found.append({k: v for k, v in arguments.items() if k != member})
    for smaller in _smaller_values(value):
        found.append({**arguments, member: smaller})
    return found


def _smaller_values(value: JSON) -> list[JSON]:
    if isinstance(value, bool):
        return [False] if value else []
    if isinstance(value, int):
        return [v for v in (0, 1) if abs(v) < abs(value)]
    if isinstance(value, float):
        return [0.0] if value != 0 else []
    if isinstance(value, str):
        return [v for v in ("", "a") if len(v) < len(value)]
    if isinstance(value, list):
        return [[], value[:1]] if len(value) > 1 else ([[]] if value else [])
    return []
