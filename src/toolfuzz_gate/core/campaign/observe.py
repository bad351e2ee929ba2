"""Run one case through a handler, with the replay and key-order calls (pure over `Handler`)."""

from __future__ import annotations

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.checks import Checks
from toolfuzz_gate.core.campaign.outcome import Handler, OutcomeKind
from toolfuzz_gate.core.jsonutil.canonical import JSON


def reorder(value: JSON) -> JSON:
    """The same value with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: reorder(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reorder(item) for item in value]
    return value


def has_reorderable(value: JSON) -> bool:
    if isinstance(value, dict):
        return len(value) > 1 or any(has_reorderable(v) for v in value.values())
    if isinstance(value, list):
        return any(has_reorderable(v) for v in value)
    return False


def observe(case: Case, handler: Handler, checks: Checks | None = None) -> Observation:
    """Call the handler; for accepted valid input, call again as-is and key-reordered when
    those `checks` apply (None: always). A tool not declared deterministic is called once:
    a second call of a `create` tool would only create again."""
    assert isinstance(case.input, dict)
    replay = checks is None or checks.applies("replay")
    key_order = checks is None or checks.applies("key_order")
    replay = replay or (checks is not None and checks.applies("idempotent"))
    outcome = handler.call(case.input)
    if not case.valid or outcome.kind is not OutcomeKind.ACCEPTED or not (replay or key_order):
        return Observation(case, outcome)
    again = handler.call(case.input)
    reordered = None
    if key_order and has_reorderable(case.input):
        shuffled = reorder(case.input)
        assert isinstance(shuffled, dict)
        reordered = handler.call(shuffled)
    return Observation(case, outcome, again, reordered)
