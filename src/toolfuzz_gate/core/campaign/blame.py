"""Blame by evidence: which call a server that died after answering died of (pure over `Handler`).

A server may answer a call and die just after it (an unhandled rejection on the next tick
of its event loop), or stop answering; the campaign then meets the dead server with its
next call, which did nothing wrong. So when a call costs the handler its process right
after the handler answered another (`Campaign.suspects`), the pair is replayed on a server
started afresh: the failing call alone (still failing: its own bug), then the call before
it followed by a `ping` (the server gone: that call's bug). The finding, its shrinking, its
confirmation and its suggestion then go through `ThenPing`, which makes every call that
pair, so what is reported about the call before was seen on that replay.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.confirm import fails_alike, start_fresh
from toolfuzz_gate.core.campaign.findings import Failure, Finding
from toolfuzz_gate.core.campaign.invariants import check_observation
from toolfuzz_gate.core.campaign.observe import observe, reorder
from toolfuzz_gate.core.campaign.outcome import (
    Handler,
    Outcome,
    OutcomeKind,
    Pinging,
    Replaying,
    ping_through,
    start_fresh_through,
)
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

DIED_AFTER_ANSWERING = "died after answering"
"""The cause of a crash blamed on the call the server answered just before it died."""
BLAMED = frozenset({Failure.CRASH, Failure.TIMEOUT})


def last_answered(obs: Observation) -> Case | None:
    """The case of the observation's last call, as that call was made, when the handler
    answered it (None when it did not: a process that died is no suspect for the next)."""
    calls = [(obs.case.input, obs.outcome), (obs.case.input, obs.replay)]
    calls.append((reorder(obs.case.input), obs.reordered))
    made = [(value, outcome) for value, outcome in calls if outcome is not None]
    if not made:
        return None
    value, outcome = made[-1]
    if outcome.ended or outcome.kind is OutcomeKind.TIMEOUT:
        return None
    return replace(obs.case, input=value)


class ThenPing:
    """A handler whose every answered call is followed by a `ping`: a server gone after
    answering makes the call a CRASH (`DIED_AFTER_ANSWERING`), one silent a TIMEOUT."""

    def __init__(self, inner: Handler) -> None:
        self.inner = inner

    def call(self, arguments: JSONObject) -> Outcome:
        outcome = self.inner.call(arguments)
        if outcome.ended or outcome.kind is OutcomeKind.TIMEOUT:
            return outcome
        answer = ping_through(self.inner)
        if answer is None or answer.kind is OutcomeKind.ACCEPTED:
            return outcome
        if answer.kind is OutcomeKind.TIMEOUT:
            said = f"answered, then did not answer a ping: {answer.message}"
            return Outcome(OutcomeKind.TIMEOUT, message=said, ended=True)
        said = f"answered, then died before answering a ping: {answer.message}"
        return Outcome(OutcomeKind.CRASH, message=said, cause=DIED_AFTER_ANSWERING, ended=True)

    def restart(self) -> None:
        if isinstance(self.inner, Replaying):
            self.inner.restart()

    def scale_timeout(self, factor: float) -> None:
        if isinstance(self.inner, Replaying):
            self.inner.scale_timeout(factor)

    def start_fresh(self) -> None:
        start_fresh_through(self.inner)

    def ping(self) -> Outcome | None:
        return ping_through(self.inner)


@dataclass(frozen=True)
class Blame:
    """A failure moved to the call answered before it: its finding and case, and the
    handler every later question about it goes through."""

    finding: Finding
    case: Case
    handler: ThenPing


def blame(
    found: Finding, case: Case, suspect: Case | None, handler: Handler, tool: ToolSpec
) -> Blame | None:
    """The failure moved to `suspect` (the call answered just before `case`'s), when a
    replay of the pair on fresh servers says so: `case` alone passes, `suspect` then a
    ping fails. None: `found` stays where it was found."""
    if suspect is None or found.failure not in BLAMED or not isinstance(handler, Pinging):
        return None
    if not start_fresh(handler):
        return None
    if fails_alike(found, case, case.input, handler, tool) is not False:
        return None  # it fails alone (or could not tell): its own bug
    start_fresh(handler)
    pinging = ThenPing(handler)
    observed = observe(suspect, pinging, tool.checks)
    for moved in check_observation(observed, tool):
        if moved.failure in BLAMED and observed.outcome is not None and observed.outcome.ended:
            reason = (
                f"the server answered this call and then stopped: the next call (case "
                f"{case.index} of the {case.stream} stream) met it gone. Replayed on a fresh "
                "server, that call alone passed and this one followed by a ping did not"
            )
            error = {**moved.error, "reason": reason, "blamedFrom": _where(case)}
            return Blame(replace(moved, error=error), suspect, pinging)
    return None


def _where(case: Case) -> JSONObject:
    return {"stream": case.stream, "case": case.index}
