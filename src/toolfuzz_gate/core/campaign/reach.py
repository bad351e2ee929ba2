"""Reach: how far a tool's calls got past its door, and answers that read as errors (pure).

A green gate means little when no valid call got past the handler's first check (every
call named a vault that does not exist) or when the server answers its rejections as
successes (`isError: false` with "Database error: no such table"). The campaign keeps a
ledger of both streams, written to the receipt's `reach`:

- valid calls: how many were *reached* (accepted with an answer that does not read as an
  error), rejected, answered with error words, crashed or timed out, and the commonest way
  they did not get through (its cause in stable words, what the handler said, how often);
- hostile calls: how many were rejected, how many *for the schema's reason* (with a cause
  no schema-valid call was rejected with: a door every call meets, such as an unknown
  vault, is not the schema's reason), how many were accepted, accepted with error words,
  or accepted with exactly the answer a valid call got.

An answer reads as an error (`error_worded`) when its first words are an error's ("Error:",
"Failed to", "Unknown vault", "No such file", "Invalid ...") or it names an exception
(`AttributeError`, a traceback). A tool *answers alike* when every valid call it accepted,
over several distinct valid inputs, got the same answer and hostile calls got it too: the
answer says nothing about the call ("No presentation is currently loaded"). Either way its
valid calls did not reach the handler's logic; `core.gate.reach_verdict` decides from the
ledgers what the gate says about it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.case import Observation
from toolfuzz_gate.core.campaign.cause import EXCEPTION, cause_of, signature
from toolfuzz_gate.core.campaign.findings import InputKind
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_ledgers import HostileReach, ReachLedger, ValidReach, Way
from toolfuzz_gate.core.campaign.rejection_code import unwrapped
from toolfuzz_gate.core.jsonutil.canonical import digest
from toolfuzz_gate.core.jsonutil.redact import bounded_message

SAID_CAP = 160
"""Characters of an answer or message a ledger keeps."""
MIN_DISTINCT_INPUTS = 3
"""Distinct valid inputs a tool must have had for one answer to all of them to count as
answering alike (a tool without arguments answers its one call the same, rightly)."""
_DISTINCT_KEPT = 8

ERROR_OPENING = re.compile(
    r"^[\s*#>!\[-]{0,3}(?:"
    r"errors?\b|exception\b|traceback\b|fatal\b|fail(?:ed|ure)?\b|unable to\b|cannot\b"
    r"|can't\b|could not\b|couldn't\b|invalid\b|unknown\b|no such\b|not found\b"
    r"|missing\b|denied\b|forbidden\b|unauthori[sz]ed\b|[\w.]*(?:Error|Exception)\b"
    r"|[\w ]{0,40}\b(?:not found|does not exist|doesn't exist)\b"
    r"|[\w .-]{0,30}\b(?:error|exception)\s*:"
    r")",
    re.IGNORECASE,
)
TRACEBACK = "Traceback (most recent call last)"


def error_worded(answer: str | None) -> bool:
    """Does an accepted call's answer read as an error (see the module's docstring)?"""
    if not answer:
        return False
    text = answer.strip()
    if ERROR_OPENING.match(text) or TRACEBACK in text:
        return True
    return any(name not in ("Error", "Exception") for name in EXCEPTION.findall(text))


@dataclass
class _Way:
    """One way calls did not get through: its count and the first words said."""

    count: int = 0
    said: str = ""


@dataclass
class Reach:
    """The ledger a campaign keeps while it runs (`note` per executed valid or hostile case)."""

    valid: Counter[str] = field(default_factory=Counter)
    hostile: Counter[str] = field(default_factory=Counter)
    ways: dict[tuple[str, str], _Way] = field(default_factory=dict)
    """Valid calls that did not get through, by (outcome, cause)."""
    valid_causes: set[str] = field(default_factory=set)
    hostile_causes: Counter[str] = field(default_factory=Counter)
    valid_answers: set[str] = field(default_factory=set)
    """Digests of the answers accepted valid calls got."""
    valid_inputs: set[str] = field(default_factory=set)
    hostile_alike: int = 0
    error_answer: str | None = None
    """The first answer that read as an error (bounded): what the reports quote."""
    first_answer: str | None = None
    """What the first accepted valid call was answered (bounded)."""

    def note(self, obs: Observation) -> None:
        outcome = obs.outcome
        if outcome is None or obs.case.kind is InputKind.SEAM:
            return
        if obs.case.kind is InputKind.VALID:
            self._valid(obs, outcome)
        else:
            self._hostile(obs, outcome)

    def _valid(self, obs: Observation, outcome: Outcome) -> None:
        self.valid["calls"] += 1
        if len(self.valid_inputs) < _DISTINCT_KEPT:
            self.valid_inputs.add(digest(obs.case.input))
        kind = outcome.kind
        if kind is OutcomeKind.ACCEPTED:
            if outcome.output_digest is not None:
                self.valid_answers.add(outcome.output_digest)
            if self.first_answer is None:
                self.first_answer = bounded_message(outcome.said or "", SAID_CAP)
            if error_worded(outcome.said):
                self._error_answer(outcome.said or "")
                self.valid["errorAnswers"] += 1
                self._way("error-answer", signature(outcome.said or ""), outcome.said or "")
            else:
                self.valid["reached"] += 1
            return
        cause = cause_of(outcome, obs.case.input) if kind is not OutcomeKind.TIMEOUT else ""
        counter = {"rejected": "rejected", "crash": "crashed", "timeout": "timedOut"}
        self.valid[counter[kind.value]] += 1
        if kind is OutcomeKind.REJECTED:
            self.valid_causes.add(cause)
        self._way(kind.value, cause, unwrapped(outcome.message))

    def _way(self, kind: str, cause: str, said: str) -> None:
        way = self.ways.setdefault((kind, cause), _Way(said=bounded_message(said, SAID_CAP)))
        way.count += 1

    def _hostile(self, obs: Observation, outcome: Outcome) -> None:
        self.hostile["calls"] += 1
        if outcome.kind is OutcomeKind.REJECTED:
            self.hostile["rejected"] += 1
            self.hostile_causes[cause_of(outcome, obs.case.input)] += 1
        elif outcome.kind is OutcomeKind.ACCEPTED:
            self.hostile["accepted"] += 1
            if error_worded(outcome.said):
                self._error_answer(outcome.said or "")
                self.hostile["errorAnswers"] += 1
            if outcome.output_digest is not None and outcome.output_digest in self.valid_answers:
                self.hostile_alike += 1

    def _error_answer(self, said: str) -> None:
        if self.error_answer is None:
            self.error_answer = bounded_message(said, SAID_CAP)

    def answers_alike(self) -> bool:
        """Did every accepted valid call, over distinct inputs, get one answer that hostile
        calls got too?"""
        return (
            len(self.valid_answers) == 1
            and len(self.valid_inputs) >= MIN_DISTINCT_INPUTS
            and self.hostile_alike > 0
        )

    def ledger(self) -> ReachLedger:
        """The receipt's `reach`."""
        valid, hostile = self.valid, self.hostile
        alike = self.answers_alike()
        for_schema = sum(
            count for cause, count in self.hostile_causes.items() if cause not in self.valid_causes
        )
        return ReachLedger(
            ValidReach(
                calls=valid["calls"],
                # with one answer that says nothing about the call, nothing got through
                reached=0 if alike else valid["reached"],
                rejected=valid["rejected"],
                error_answers=valid["errorAnswers"],
                crashed=valid["crashed"],
                timed_out=valid["timedOut"],
                answered_alike=valid["reached"] if alike else None,
            ),
            HostileReach(
                calls=hostile["calls"],
                rejected=hostile["rejected"],
                accepted=hostile["accepted"],
                error_answers=hostile["errorAnswers"],
                rejected_for_schema=for_schema,
                answered_as_valid=self.hostile_alike,
            ),
            self._commonest(alike),
            self.error_answer,
        )

    def _commonest(self, alike: bool) -> Way | None:
        """The commonest way valid calls did not get through (None when all did)."""
        ways = sorted(self.ways.items(), key=lambda item: (-item[1].count, item[0]))
        alike_count = self.valid["reached"]
        if alike and alike_count >= (ways[0][1].count if ways else 0):
            return Way("answered-alike", "", self.first_answer or "", alike_count)
        if not ways:
            return None
        (kind, cause), way = ways[0]
        return Way(kind, cause, way.said, way.count)
