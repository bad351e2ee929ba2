"""The members of a receipt that are records of their own: the engine, each counterexample,
the unsupported keywords, the refusal, what a campaign that ran records, the contract, the
tool's interface, the dialect, the handler's notes and a stateful campaign's facts (pure).
`core.campaign.receipt` puts them together; the records of how a campaign ran (`reach`,
`saturation`, `breaker`, `budget`, ...) are in `core.campaign.receipt_ledgers`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolfuzz_gate.core.campaign.receipt_ledgers import (
    ReachLedger,
    SaturationRecord,
    SchemaReading,
    SeamProbe,
)
from toolfuzz_gate.core.campaign.refusal import Refusal
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject


@dataclass(frozen=True)
class Component:
    """A named, versioned part of the engine (its generator, oracle, reference)."""

    name: str
    version: str

    def as_json(self) -> JSONObject:
        return {"name": self.name, "version": self.version}


@dataclass(frozen=True)
class Engine:
    """What produced the receipt; a refused receipt names no oracle, a stateful one only
    the engine."""

    name: str
    version: str
    generator: Component | None = None
    oracle: Component | None = None
    reference: Component | None = None

    def as_json(self) -> JSONObject:
        found: JSONObject = {"name": self.name, "version": self.version}
        for name, part in (
            ("generator", self.generator),
            ("oracle", self.oracle),
            ("reference", self.reference),
        ):
            if part is not None:
                found[name] = part.as_json()
        return found


@dataclass(frozen=True)
class Replay:
    """Where a counterexample's case came from: seed, runs, stream and case index."""

    seed: JSON
    runs: JSON
    stream: JSON
    case: JSON

    def as_json(self) -> JSONObject:
        return {"seed": self.seed, "runs": self.runs, "stream": self.stream, "case": self.case}


@dataclass(frozen=True)
class RecordedCounterexample:
    """One counterexample (or under-specification note) as its receipt records it.

    `sequence` and `failing_call` are a stateful campaign's; `reproduced` and
    `state_dependent` are present when the finding was confirmed or judged afresh."""

    fingerprint: str
    failure: str
    cause: str
    path: str
    mutation: str
    keyword: str
    input_kind: str
    operator: str
    input: JSON
    original_input: JSON
    sizes: tuple[JSON, ...]
    error: Mapping[str, JSON]
    flaky: bool
    suggestion: JSON
    replay: Replay
    reproduced: Mapping[str, JSON] | None = None
    state_dependent: Mapping[str, JSON] | None = None
    sequence: tuple[JSON, ...] | None = None
    failing_call: int | None = None

    def as_json(self) -> JSONObject:
        found: JSONObject = {
            "fingerprint": self.fingerprint,
            "failure": self.failure,
            "cause": self.cause,
            "path": self.path,
            "mutation": self.mutation,
            "keyword": self.keyword,
            "inputKind": self.input_kind,
            "operator": self.operator,
            "input": self.input,
            "originalInput": self.original_input,
            "sizes": list(self.sizes),
            "error": dict(self.error),
            "flaky": self.flaky,
            "suggestion": self.suggestion,
            "replay": self.replay.as_json(),
        }
        if self.reproduced is not None:
            found["reproduced"] = dict(self.reproduced)
        if self.state_dependent is not None:
            found["stateDependent"] = dict(self.state_dependent)
        if self.sequence is not None:
            found["sequence"] = list(self.sequence)
        if self.failing_call is not None:
            found["failingCall"] = self.failing_call
        return found

    def tagged(self, tool: str) -> JSONObject:
        """The counterexample as a diff lists it: its members and the tool's name."""
        return {**self.as_json(), "tool": tool}

    @property
    def reason(self) -> str | None:
        """The error's `reason`, when the handler's outcome gave one."""
        found = self.error.get("reason")
        return found if isinstance(found, str) else None


@dataclass(frozen=True)
class Unsupported:
    """A keyword the engine did not support, and where."""

    keyword: str
    path: str

    def as_json(self) -> JSONObject:
        return {"keyword": self.keyword, "path": self.path}


@dataclass(frozen=True)
class Refused:
    """Why a tool was not fuzzed: the first reason's code, each reason rendered as the
    console prints it (`problems`, kept from before reasons were recorded), and each."""

    code: str
    problems: tuple[str, ...]
    reasons: tuple[Refusal, ...]

    def as_json(self) -> JSONObject:
        return {
            "code": self.code,
            "problems": list(self.problems),
            "reasons": [reason.as_json() for reason in self.reasons],
        }


@dataclass(frozen=True)
class CampaignRecord:
    """What a campaign that ran records beyond its findings: how the schema was read, what
    it reached, when it saturated, its replay sample, the digest of its cases, the bounds
    it hit (`boundaries`, null without a ledger), the probes and the dictionary it used.
    A member None was not recorded by the version that wrote the receipt (absent from its
    document; `boundaries` is null then)."""

    schema_reading: SchemaReading | None
    reach: ReachLedger | None
    saturation: SaturationRecord | None
    replay_sample: JSONObject | None
    cases_digest: str | None
    boundaries: JSON
    probes: tuple[SeamProbe, ...] | None
    dictionary: JSON

    def as_json(self) -> JSONObject:
        found: JSONObject = {"boundaries": self.boundaries}
        for member, record in (
            ("schemaReading", self.schema_reading),
            ("reach", self.reach),
            ("saturation", self.saturation),
        ):
            if record is not None:
                found[member] = record.as_json()
        if self.probes is not None:
            found["probes"] = [probe.as_json() for probe in self.probes]
        for member, value in (
            ("replaySample", self.replay_sample),
            ("casesDigest", self.cases_digest),
            ("dictionary", self.dictionary),
        ):
            if value is not None:
                found[member] = value
        return found


@dataclass(frozen=True)
class Contract:
    """What the tool was judged under: its expected rejections, error codes and dry-run
    member, and (only when declared, so other receipts keep their bytes) the output members
    ignored and how a rejection's code is read from its text or answer."""

    expected_rejections: tuple[str, ...]
    error_codes: str | None
    dry_run: str | None
    ignore_output: tuple[str, ...] | None = None
    rejection_code: str | None = None
    rejection_answer: str | None = None

    def as_json(self) -> JSONObject:
        found: JSONObject = {
            "expectedRejections": list(self.expected_rejections),
            "errorCodes": self.error_codes,
            "dryRun": self.dry_run,
        }
        if self.ignore_output is not None:
            found["ignoreOutput"] = list(self.ignore_output)
        if self.rejection_code is not None:
            found["rejectionCode"] = self.rejection_code
        if self.rejection_answer is not None:
            found["rejectionAnswer"] = self.rejection_answer
        return found


@dataclass(frozen=True)
class StatefulRecord:
    """What a stateful campaign inferred (each tool's kind, the links between tools) and
    did (sequences planned and run, calls, why it stopped, findings dropped and why)."""

    tools: Mapping[str, str]
    links: tuple[JSONObject, ...]
    planned: int
    sequences: int
    calls: int
    stop: str | None
    dropped: Mapping[str, int]

    def as_json(self) -> JSONObject:
        return {
            "tools": dict[str, JSON](self.tools),
            "links": list(self.links),
            "planned": self.planned,
            "sequences": self.sequences,
            "calls": self.calls,
            "stop": self.stop,
            "dropped": dict[str, JSON](self.dropped),
        }


@dataclass(frozen=True)
class RecordedInterface:
    """The receipt's `interface` (`core.campaign.interface`): what an agent is written
    against. The schemas are the tool's (data, kept as JSON; None when too big to keep,
    their digests kept); `digest` is of all the other members."""

    digest: str
    input_schema: JSON
    input_schema_digest: str
    output_schema: JSON
    output_schema_digest: str | None
    annotations: Mapping[str, JSON]
    task_support: str | None
    description: str | None

    def body(self) -> JSONObject:
        """Every member but `digest` (what it is the digest of)."""
        return {
            "inputSchema": self.input_schema,
            "inputSchemaDigest": self.input_schema_digest,
            "outputSchema": self.output_schema,
            "outputSchemaDigest": self.output_schema_digest,
            "annotations": dict(self.annotations),
            "taskSupport": self.task_support,
            "description": self.description,
        }

    def as_json(self) -> JSONObject:
        return {"digest": self.digest, **self.body()}


@dataclass(frozen=True)
class DialectRecord:
    """The receipt's `dialect`: the dialect the schema was read in and each rewrite it
    made (`core.schema.dialects`: pointer, from, to, dialect; kept as JSON, it quotes
    the schema)."""

    name: str
    rewrites: tuple[JSON, ...]

    def as_json(self) -> JSONObject:
        return {"name": self.name, "rewrites": list(self.rewrites)}


@dataclass(frozen=True)
class HandlerNotes:
    """The receipt's `handlerNotes`: what the handler's adapter noticed beyond single calls
    (each None when it noticed nothing of the kind): non-protocol lines an MCP server
    printed on stdout (how many, the first), files found written outside a sandbox's root
    at its start."""

    stdout_noise_lines: int | None = None
    stdout_noise_sample: str | None = None
    written_outside_root_at_start: tuple[str, ...] | None = None

    def __bool__(self) -> bool:
        return self != NO_NOTES

    def as_json(self) -> JSONObject:
        found: JSONObject = {}
        if self.stdout_noise_lines is not None:
            found["stdoutNoiseLines"] = self.stdout_noise_lines
        if self.stdout_noise_sample is not None:
            found["stdoutNoiseSample"] = self.stdout_noise_sample
        if self.written_outside_root_at_start is not None:
            found["writtenOutsideRootAtStart"] = list(self.written_outside_root_at_start)
        return found


NO_NOTES = HandlerNotes()


@dataclass(frozen=True)
class Diagnostics:
    """The receipt's `diagnostics` (with `--diagnostics`; outside the hash, for they depend
    on the machine): how long the campaign took, how much of it went to settling its
    findings, the timeouts dismissed under the machine's load, and where it ran (`host`)
    with the time spent by kind of work (`profile`, `edges.handlers.timing`: kept as JSON,
    a breakdown by bucket). A member None was not recorded."""

    duration_seconds: float
    settle_seconds: float | None = None
    dismissed_timeouts: int | None = None
    host: JSONObject | None = None
    profile: JSONObject | None = None

    @property
    def cost_seconds(self) -> float:
        """The tool's whole time: the profile's wall time, else the campaign's duration."""
        wall = self.profile.get("wallSeconds") if self.profile is not None else None
        if isinstance(wall, int | float) and not isinstance(wall, bool):
            return wall
        return self.duration_seconds

    def as_json(self) -> JSONObject:
        found: JSONObject = {"durationSeconds": self.duration_seconds}
        for member, value in (
            ("settleSeconds", self.settle_seconds),
            ("dismissedTimeouts", self.dismissed_timeouts),
            ("host", self.host),
            ("profile", self.profile),
        ):
            if value is not None:
                found[member] = value
        return found
