"""Confirm a finding before it is reported: replay its input and count (pure over `Handler`).

A counterexample is evidence people act on, so one observation is not enough. Its input
is replayed `CONFIRMATIONS` more times, after the handler's process was started afresh
where the adapter can restart one (`Replaying`; once per tool, as restarting a server can
take a second), and must fail the same way (the same failure class, path and cause). One
that fails only sometimes is still a defect and is reported, marked flaky with how often
it reproduced. A timeout is different: the replays get `TIMEOUT_FACTOR` times the budget,
and a call that answers within it was slowed by the machine, not hung by the input, so
the timeout is dismissed (machine noise must never fail a pull request). One that holds is
given `HANG_FACTOR` times the budget once more, which tells a slow call (it answers then)
from a hung one (it does not).

Fresh state. A campaign's calls leave state behind (a document its own calls grew, a
store they filled), so a failure it found may be the state's, not the input's. Crashes and
timeouts are confirmed on a handler started afresh (`start_fresh`: a new process, the
declared reset, a new working directory where the adapter made its own); one that never
fails there is reported as state-dependent, never as confirmed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.findings import Failure, Finding
from toolfuzz_gate.core.campaign.invariants import check_observation
from toolfuzz_gate.core.campaign.observe import observe
from toolfuzz_gate.core.campaign.outcome import (
    Handler,
    OutcomeKind,
    Pinging,
    Refreshing,
    Replaying,
    start_fresh_through,
)
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

CONFIRMATIONS = 2
"""Replays of a counterexample's minimal input beyond the call that found it."""
TIMEOUT_FACTOR = 3.0
"""A timeout is replayed with this many times the per-call budget."""
HANG_FACTOR = 6.0
"""A timeout that held at `TIMEOUT_FACTOR` is replayed once with this many times the
budget: `slow` when it answers then, `hung` when it does not (12 s at the default 2 s)."""
FRESH_FAILURES = frozenset({Failure.CRASH, Failure.INTERNAL_ERROR, Failure.TIMEOUT})
"""The failures confirmed on fresh state: those a campaign's accumulated state can cause."""
EFFECT_FAILURES = frozenset(
    {
        Failure.MUTATION_ON_REJECTION,
        Failure.DRY_RUN_MUTATION,
        Failure.READ_ONLY_MUTATION,
        Failure.NOT_IDEMPOTENT,
    }
)


@dataclass(frozen=True)
class Reproduction:
    """How many times an input was run, and how many of those failed the same way."""

    runs: int
    failed: int

    @property
    def flaky(self) -> bool:
        return 0 < self.failed < self.runs

    @property
    def dismissed(self) -> bool:
        """A timeout that answered once given more time: not a finding."""
        return self.failed < self.runs

    def __add__(self, other: Reproduction) -> Reproduction:
        return Reproduction(self.runs + other.runs, self.failed + other.failed)

    def as_json(self) -> JSONObject:
        return {"runs": self.runs, "failed": self.failed}


FOUND_ONCE = Reproduction(1, 1)
"""The call that found a failure (or the last accepted shrink step) counts as one run."""


def fails_alike(
    found: Finding, case: Case, value: JSON, handler: Handler, tool: ToolSpec
) -> bool | None:
    """Does `value`, run as `case` was, fail with `found`'s class, path and cause? None
    when the call could not tell: a failure judged from committed state, on a call whose
    state was not observed (the first call of a fresh process that does not announce it)."""
    alike = failing_alike(found, case, value, handler, tool)
    return alike if alike is None or isinstance(alike, bool) else True


def failing_alike(
    found: Finding, case: Case, value: JSON, handler: Handler, tool: ToolSpec
) -> Finding | bool | None:
    """`fails_alike`, with the finding itself when it does: what the handler said about
    `value` (not about the input the failure was first found with)."""
    observed = observe(replace(case, input=value), handler, tool.checks)
    for finding in check_observation(observed, tool):
        if finding.identity == found.identity:
            return finding
    unseen = observed.outcome is not None and not observed.outcome.effects_observed
    return None if found.failure in EFFECT_FAILURES and unseen else False


def observe_patiently(case: Case, handler: Handler) -> Observation:
    """`observe`, and when the call timed out, once more with the longer budget, whose
    answer stands: a replayed case's timeout is judged as a campaign's is, so machine load
    cannot make a fixed case fail again."""
    observed = observe(case, handler)
    if observed.outcome is None or observed.outcome.kind is not OutcomeKind.TIMEOUT:
        return observed
    if not isinstance(handler, Replaying):
        return observed
    handler.scale_timeout(TIMEOUT_FACTOR)
    try:
        return observe(case, handler)
    finally:
        handler.scale_timeout(1.0)


def restart(handler: Handler) -> None:
    """Start the handler's process afresh, where the adapter runs one: confirmations then
    replay in a process that neither the campaign nor the shrinking used."""
    if isinstance(handler, Replaying):
        handler.restart()


def start_fresh(handler: Handler) -> bool:
    """Start the handler on fresh state (`Refreshing`), or at least in a fresh process;
    False when it cannot be started again at all (an in-process handler)."""
    if not isinstance(handler, Refreshing | Replaying):
        return False
    start_fresh_through(handler)
    return True


def answers_eventually(value: JSON, handler: Handler) -> bool | None:
    """Does a call that timed out answer when given `HANG_FACTOR` times the budget (None:
    the handler's timeout cannot be stretched)?"""
    if not isinstance(handler, Replaying) or not isinstance(value, dict):
        return None
    handler.scale_timeout(HANG_FACTOR)
    try:
        outcome = handler.call(value)
    finally:
        handler.scale_timeout(1.0)
    return outcome.kind is not OutcomeKind.TIMEOUT


def ping(handler: Handler) -> bool | None:
    """Is the handler's process still there to answer (None: it cannot be asked)?"""
    if not isinstance(handler, Pinging):
        return None
    answer = handler.ping()
    return None if answer is None else answer.kind is OutcomeKind.ACCEPTED


def replay(
    found: Finding,
    case: Case,
    value: JSON,
    handler: Handler,
    tool: ToolSpec,
    times: int,
    seen: list[Finding] | None = None,
) -> Reproduction:
    """Run `value` `times` more times; a timeout with the longer budget, stopping at the
    first answer (one is enough to dismiss it). A run that could not tell is not counted,
    and is tried once more. The findings of the runs that failed alike go into `seen`."""
    timeout = found.failure is Failure.TIMEOUT
    stretching = handler if timeout and isinstance(handler, Replaying) else None
    if stretching is not None:
        stretching.scale_timeout(TIMEOUT_FACTOR)
    runs = failed = 0
    try:
        for _ in range(times + 1):
            if runs == times:
                break
            verdict = failing_alike(found, case, value, handler, tool)
            if verdict is None:
                continue
            runs += 1
            if verdict:
                failed += 1
                if seen is not None and isinstance(verdict, Finding):
                    seen.append(verdict)
            elif timeout:
                break
    finally:
        if stretching is not None:
            stretching.scale_timeout(1.0)
    return Reproduction(runs, failed)
