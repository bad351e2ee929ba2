"""Run one case through a handler, with the replay and key-order calls (pure over `Handler`).

The replay and key-order calls double or triple a valid case's cost, so a campaign makes
them on a sample of its valid cases (`replay_due`): the first `REPLAY_FIRST`, then every
`REPLAY_EVERY`-th. A nondeterministic or key-order-sensitive handler is so on almost any
call (a clock, a counter, a random id, arguments read in order), which the first cases
show; the sample keeps later, rarer shapes in reach at a quarter of the cost.
"""

from __future__ import annotations

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.checks import Checks
from toolfuzz_gate.core.campaign.findings import InputKind
from toolfuzz_gate.core.campaign.outcome import Handler, OutcomeKind
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject


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


REPLAY_FIRST = 16
REPLAY_EVERY = 4


def replay_due(case: Case) -> bool:
    """Is `case` in the sample of valid cases replayed (every other kind of case is)?"""
    if case.kind is not InputKind.VALID:
        return True
    return case.index < REPLAY_FIRST or case.index % REPLAY_EVERY == 0


def replay_sample() -> JSONObject:
    """The receipt's `replaySample` rule (the counts are the campaign's)."""
    return {"first": REPLAY_FIRST, "every": REPLAY_EVERY}


def observe(
    case: Case, handler: Handler, checks: Checks | None = None, *, again: bool = True
) -> Observation:
    """Call the handler; for accepted valid input, call again as-is and key-reordered when
    those `checks` apply (None: always) and `again` (the case is in the sample). A tool
    not declared deterministic is called once: a second call of a `create` tool would only
    create again."""
    assert isinstance(case.input, dict)
    replay = checks is None or checks.applies("replay")
    key_order = checks is None or checks.applies("key_order")
    replay = replay or (checks is not None and checks.applies("idempotent"))
    outcome = handler.call(case.input)
    if not case.valid or outcome.kind is not OutcomeKind.ACCEPTED or not (replay or key_order):
        return Observation(case, outcome)
    if not again:
        return Observation(case, outcome)
    replayed = handler.call(case.input)
    reordered = None
    if key_order and has_reorderable(case.input):
        shuffled = reorder(case.input)
        assert isinstance(shuffled, dict)
        reordered = handler.call(shuffled)
    return Observation(case, outcome, replayed, reordered)
