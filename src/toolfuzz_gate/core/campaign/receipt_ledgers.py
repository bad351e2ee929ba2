"""The receipt's records of how a campaign ran: how it read the schema, how far its calls
got (`reach`), when its streams saturated, the seam probes it ran, and where the timeout
breaker or the time budget cut it short (pure). The campaign builds them
(`core.campaign.reach`, `saturation`, `seed_run`, `hangs`, `time_budget`), `as_json` is
each one's member as the receipt holds it, and `core.campaign.receipt_read` reads them
back.

A field None is a member the record leaves out of its document: one only some campaigns
say (`answeredAlike`, `ignoredKeywords`), or one an older version did not write (a 0.5.0
breaker has no `notRun`), so a receipt read back keeps its bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject


@dataclass(frozen=True)
class IgnoredKeyword:
    """A name JSON Schema does not define, read as an annotation, and where."""

    keyword: str
    pointer: str

    def as_json(self) -> JSONObject:
        return {"keyword": self.keyword, "pointer": self.pointer}


@dataclass(frozen=True)
class SchemaReading:
    """How the campaign read the schema (the receipt's `schemaReading`): its draft, whether
    `format` asserted, for a recursive schema how many `$ref` expansions deep values go
    before they are built simplest, and the names read as annotations (only when some)."""

    draft: str
    format_assertion: bool
    recursive: bool
    recursion_depth: int | None
    ignored_keywords: tuple[IgnoredKeyword, ...] | None = None

    def as_json(self) -> JSONObject:
        found: JSONObject = {
            "draft": self.draft,
            "formatAssertion": self.format_assertion,
            "recursive": self.recursive,
            "recursionDepth": self.recursion_depth,
        }
        if self.ignored_keywords is not None:
            found["ignoredKeywords"] = [item.as_json() for item in self.ignored_keywords]
        return found


@dataclass(frozen=True)
class ValidReach:
    """How the valid calls fared: `reached` got through; `answered_alike` (None unless the
    tool answered every call alike) counts those that only seemed to."""

    calls: int
    reached: int
    rejected: int
    error_answers: int
    crashed: int
    timed_out: int
    answered_alike: int | None = None

    def as_json(self) -> JSONObject:
        found: JSONObject = {
            "calls": self.calls,
            "reached": self.reached,
            "rejected": self.rejected,
            "errorAnswers": self.error_answers,
            "crashed": self.crashed,
            "timedOut": self.timed_out,
        }
        if self.answered_alike is not None:
            found["answeredAlike"] = self.answered_alike
        return found


@dataclass(frozen=True)
class HostileReach:
    """How the near-misses fared: rejected (for the schema's reason: a cause no valid call
    was rejected with), accepted, accepted with error words or with a valid call's answer."""

    calls: int
    rejected: int
    accepted: int
    error_answers: int
    rejected_for_schema: int
    answered_as_valid: int

    def as_json(self) -> JSONObject:
        return {
            "calls": self.calls,
            "rejected": self.rejected,
            "accepted": self.accepted,
            "errorAnswers": self.error_answers,
            "rejectedForSchema": self.rejected_for_schema,
            "answeredAsValid": self.answered_as_valid,
        }


@dataclass(frozen=True)
class Way:
    """The commonest way valid calls did not get through: its outcome (`rejected`,
    `error-answer`, `answered-alike`, ...), cause, the first words said, how often."""

    outcome: str
    cause: str
    said: str
    count: int

    def as_json(self) -> JSONObject:
        return {
            "outcome": self.outcome,
            "cause": self.cause,
            "said": self.said,
            "count": self.count,
        }


@dataclass(frozen=True)
class ReachLedger:
    """The receipt's `reach` (`core.campaign.reach`): both streams' counts, the commonest
    way valid calls did not get through (None when all did) and the first answer that read
    as an error."""

    valid: ValidReach
    hostile: HostileReach
    commonest: Way | None
    error_answer: str | None

    def as_json(self) -> JSONObject:
        return {
            "valid": self.valid.as_json(),
            "hostile": self.hostile.as_json(),
            "commonest": None if self.commonest is None else self.commonest.as_json(),
            "errorAnswer": self.error_answer,
        }


@dataclass(frozen=True)
class StreamRun:
    """One stream's cases planned and gone through, and whether it saturated."""

    planned: int
    ran: int
    saturated: bool

    def as_json(self) -> JSONObject:
        return {"planned": self.planned, "ran": self.ran, "saturated": self.saturated}


@dataclass(frozen=True)
class SaturationRecord:
    """The receipt's `saturation` (`core.campaign.saturation`): the window, and each stream
    begun (`valid`, `hostile`) by name."""

    window: int
    streams: Mapping[str, StreamRun]

    def as_json(self) -> JSONObject:
        found: JSONObject = {"window": self.window}
        for name, stream in self.streams.items():
            found[name] = stream.as_json()
        return found


@dataclass(frozen=True)
class CaseCounts:
    """The receipt's `cases`: the cases of each stream the campaign ran (all None for a
    refused tool's receipt, whose `cases` is empty)."""

    valid: int | None = None
    hostile: int | None = None
    seam: int | None = None

    @property
    def total(self) -> int:
        return (self.valid or 0) + (self.hostile or 0) + (self.seam or 0)

    def as_json(self) -> JSONObject:
        found: JSONObject = {}
        for name, count in (("valid", self.valid), ("hostile", self.hostile), ("seam", self.seam)):
            if count is not None:
                found[name] = count
        return found


@dataclass(frozen=True)
class SeamProbe:
    """One seam probe the campaign ran (`core.engine.probes`): its name, where, whether its
    input was schema-valid, and the outcome's summary (`Outcome.summary`, as the case log
    has it)."""

    name: str
    path: str
    valid: bool
    outcome: Mapping[str, JSON]

    def as_json(self) -> JSONObject:
        return {
            "name": self.name,
            "path": self.path,
            "valid": self.valid,
            "outcome": dict(self.outcome),
        }


NotRun = Mapping[str, int]
"""Cases of each stream (`valid`, `hostile`, `seam`, `stateful`) a cut left out."""
NOT_RUN_STREAMS = ("valid", "hostile", "seam", "stateful")


def not_run_json(counts: NotRun) -> JSONObject:
    return dict[str, JSON](counts)


@dataclass(frozen=True)
class HostileAfter:
    """After a breaker on the valid stream: the near-misses that still ran, with what share
    of the timeout, and how many of them timed out."""

    ran: int
    timeout_factor: float
    timed_out: int

    def as_json(self) -> JSONObject:
        return {"ran": self.ran, "timeoutFactor": self.timeout_factor, "timedOut": self.timed_out}


@dataclass(frozen=True)
class BreakerRecord:
    """The receipt's `breaker` (`core.campaign.hangs`): the failure that tripped it, after
    how many, on which stream and case, what it says, the cases it cut (None in a receipt
    from before they were counted) and, after one on the valid stream, `hostile_after`."""

    failure: str
    after: int
    stream: str
    case: int
    note: str
    not_run: NotRun | None = None
    hostile_after: HostileAfter | None = None

    def as_json(self) -> JSONObject:
        found: JSONObject = {
            "failure": self.failure,
            "after": self.after,
            "stream": self.stream,
            "case": self.case,
            "note": self.note,
        }
        if self.not_run is not None:
            found["notRun"] = not_run_json(self.not_run)
        if self.hostile_after is not None:
            found["hostileAfter"] = self.hostile_after.as_json()
        return found


@dataclass(frozen=True)
class StoppedAt:
    """Where a campaign's time ran out: before case `case` of `stream`."""

    stream: str
    case: int

    def as_json(self) -> JSONObject:
        return {"stream": self.stream, "case": self.case}


@dataclass(frozen=True)
class BudgetCut:
    """What an exhausted budget says: which budget (`scope`, `tool` or `run`), where the
    campaign stopped, the cases not run, the shrinking calls each finding had, a note."""

    scope: str
    stopped_at: StoppedAt
    not_run: NotRun
    shrink_calls: int
    note: str


@dataclass(frozen=True)
class BudgetRecord:
    """The receipt's `budget` (`core.campaign.time_budget`): the budgets declared (the
    tool's `seconds`, the run's `run_seconds`), and `cut` when one ran out."""

    seconds: float | None
    run_seconds: float | None
    cut: BudgetCut | None

    @property
    def exhausted(self) -> bool:
        return self.cut is not None

    @property
    def cut_seconds(self) -> float | None:
        """The seconds of the budget that ran out (None: none did)."""
        if self.cut is None:
            return None
        return self.seconds if self.cut.scope == "tool" else self.run_seconds

    def as_json(self) -> JSONObject:
        found: JSONObject = {}
        if self.seconds is not None:
            found["seconds"] = self.seconds
        if self.run_seconds is not None:
            found["runSeconds"] = self.run_seconds
        found["exhausted"] = self.cut is not None
        if self.cut is not None:
            found["scope"] = self.cut.scope
            found["stoppedAt"] = self.cut.stopped_at.as_json()
            found["notRun"] = not_run_json(self.cut.not_run)
            found["shrinkCalls"] = self.cut.shrink_calls
            found["note"] = self.cut.note
        return found
