"""A campaign's timeouts: which held, slow or hung, and the breaker they trip (pure over `Handler`).

A timeout is replayed when it happens, for the first of each kind (path and mutation
family): with `confirm.TIMEOUT_FACTOR` times the budget (answered: the machine's load,
dismissed), then once with `confirm.HANG_FACTOR` times it (answered: `slow`; not: `hung`).
`BREAKER_TIMEOUTS` timeouts that held trip the breaker. One tripped on the valid stream
stops it, and the near-misses still run on their first bases with `SHORT_TIMEOUT_FACTOR`
of the timeout, so a tool that hangs on every valid call keeps its hostile coverage; their
timeouts are counted, not judged (a short timeout is no evidence).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from toolfuzz_gate.core.campaign.case import Case
from toolfuzz_gate.core.campaign.confirm import (
    FOUND_ONCE,
    Reproduction,
    answers_eventually,
    replay,
)
from toolfuzz_gate.core.campaign.findings import Failure, Finding
from toolfuzz_gate.core.campaign.outcome import Handler
from toolfuzz_gate.core.campaign.receipt_ledgers import BreakerRecord, HostileAfter, NotRun
from toolfuzz_gate.core.campaign.tool import ToolSpec

BREAKER_TIMEOUTS = 3
"""Timeouts of confirmed hangs after which a campaign stops: a tool that keeps hanging
would otherwise cost a timeout (or more) on every case."""
SHORT_TIMEOUT_FACTOR = 0.25
"""After the breaker stopped the valid stream, the near-misses still run on their first
bases, with this share of the per-call timeout: a call that breaks the schema should be
refused at once, so a hang costs little there, and one is not judged (it is counted)."""


@dataclass
class Hangs:
    """The timeouts of one campaign so far."""

    evidence: dict[tuple[str, int], Reproduction] = field(default_factory=dict)
    """The confirmation of the first timeout of each kind, by its case's (stream, index)."""
    answered_late: dict[tuple[str, int], bool] = field(default_factory=dict)
    """For those: whether the call answered given far more time (`slow`) or not (`hung`);
    absent when the handler's timeout cannot be stretched."""
    breaker: BreakerRecord | None = None
    """Where the breaker tripped (the cases it cut are counted when the campaign ends)."""
    short: bool = False
    """Near-misses under way with the short timeout, after the breaker."""
    short_timeouts: int = 0
    """Near-misses that got no answer within the short timeout (counted, not judged)."""
    dismissed: int = 0
    _kinds: set[tuple[str, str]] = field(default_factory=set)
    _held: int = 0

    def holds(self, found: Finding, case: Case, handler: Handler, tool: ToolSpec) -> bool:
        """Does a timeout the campaign just met count? Replayed with the longer budget when
        it is the first of its kind (the next ones are the same hang, reported once, and
        each replay costs several timeouts); the last straw trips the breaker."""
        kind = (found.path, found.mutation)
        if kind not in self._kinds:
            evidence = FOUND_ONCE + replay(found, case, case.input, handler, tool, 1)
            if evidence.dismissed:
                self.dismissed += 1
                return False
            self._kinds.add(kind)
            self.evidence[(case.stream, case.index)] = evidence
            late = answers_eventually(case.input, handler)
            if late is not None:
                self.answered_late[(case.stream, case.index)] = late
        self._held += 1
        if self._held >= BREAKER_TIMEOUTS and self.breaker is None:
            note = (
                f"stopped after {self._held} timeouts of confirmed hangs; "
                "the remaining cases were not run"
            )
            if case.stream == "valid":
                note = (
                    f"stopped the valid stream after {self._held} timeouts of confirmed "
                    "hangs; the near-misses still ran on their first bases with a short "
                    f"timeout ({SHORT_TIMEOUT_FACTOR:g} of it); notRun counts what was cut"
                )
            self.breaker = BreakerRecord(
                Failure.TIMEOUT.value, self._held, case.stream, case.index, note
            )
        return True

    def stops(self, stream: str, index: int, first_bases: int) -> bool:
        """Has the breaker stopped `stream` before case `index`? One that stopped the valid
        stream leaves the near-misses their `first_bases` (every operator on its first
        bases, with the short timeout), unless those too keep timing out."""
        if self.breaker is None:
            return False
        if stream != "hostile" or self.breaker.stream != "valid":
            return True
        return index >= first_bases or self.short_timeouts >= BREAKER_TIMEOUTS

    def breaker_record(self, not_run: NotRun, hostile_ran: int) -> BreakerRecord | None:
        """The receipt's `breaker`: where it tripped, the cases it cut (`notRun`), and
        after one on the valid stream the near-misses that still ran and how many of those
        timed out."""
        if self.breaker is None:
            return None
        after = None
        if self.breaker.stream == "valid":
            after = HostileAfter(hostile_ran, SHORT_TIMEOUT_FACTOR, self.short_timeouts)
        return replace(self.breaker, not_run=not_run, hostile_after=after)
