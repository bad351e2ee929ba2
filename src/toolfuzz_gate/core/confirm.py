"""Confirm a finding before it is reported: replay its input and count (pure over `Handler`).

A counterexample is evidence people act on, so one observation is not enough. Its input
is replayed `CONFIRMATIONS` more times, the first in a fresh handler process where the
adapter can restart one (`Replaying`), and must fail the same way (the same failure
class, path and cause). One that fails only sometimes is still a defect and is reported,
marked flaky with how often it reproduced. A timeout is different: the replays get
`TIMEOUT_FACTOR` times the budget, and a call that answers within it was slowed by the
machine, not hung by the input, so the timeout is dismissed (machine noise must never
fail a pull request). Findings judged from committed state are replayed in the same
process: a fresh one may not report the state it starts from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from toolfuzz_gate.core.canonical import JSON, JSONObject
from toolfuzz_gate.core.case import Case
from toolfuzz_gate.core.findings import Failure, Finding
from toolfuzz_gate.core.invariants import check_observation
from toolfuzz_gate.core.observe import observe
from toolfuzz_gate.core.outcome import Handler, Replaying
from toolfuzz_gate.core.tool import ToolSpec

CONFIRMATIONS = 2
"""Replays of a counterexample's minimal input beyond the call that found it."""
TIMEOUT_FACTOR = 3.0
"""A timeout is replayed with this many times the per-call budget."""
SAME_PROCESS = frozenset({Failure.MUTATION_ON_REJECTION, Failure.DRY_RUN_MUTATION})


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


def fails_alike(found: Finding, case: Case, value: JSON, handler: Handler, tool: ToolSpec) -> bool:
    """Does `value`, run as `case` was, fail with `found`'s class, path and cause?"""
    observed = observe(replace(case, input=value), handler)
    return any(f.identity == found.identity for f in check_observation(observed, tool))


def replay(
    found: Finding, case: Case, value: JSON, handler: Handler, tool: ToolSpec, times: int
) -> Reproduction:
    """Run `value` `times` more times; a timeout with the longer budget, stopping at the
    first answer (one is enough to dismiss it)."""
    timeout = found.failure is Failure.TIMEOUT
    replaying = handler if isinstance(handler, Replaying) else None
    if replaying is not None and found.failure not in SAME_PROCESS:
        replaying.restart()
    if replaying is not None and timeout:
        replaying.scale_timeout(TIMEOUT_FACTOR)
    runs = failed = 0
    try:
        for _ in range(times):
            runs += 1
            if fails_alike(found, case, value, handler, tool):
                failed += 1
            elif timeout:
                break
    finally:
        if replaying is not None and timeout:
            replaying.scale_timeout(1.0)
    return Reproduction(runs, failed)
