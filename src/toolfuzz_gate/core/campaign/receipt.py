"""The receipt: one canonical, hashed JSON document per tool and run, as a typed tree (pure).

`Receipt` is the one shape of a receipt in memory: the campaign (`tool_fuzz`), the refused
tool (`tool_fuzz.refused_receipt`) and the stateful campaign (`sequence_receipt`) build
one, `document` is its one serialisation, and `core.campaign.receipt_read` is the one
reader. Members recorded only by some receipts (a refused tool's `refused`, a stateful
campaign's `stateful`, what a tool declares) are None when absent, and then absent from
the document, so every receipt keeps its bytes. The members a campaign records only when
it ran (`reach`, `saturation`, ...) are one `CampaignRecord`.

The hash covers everything but `receiptHash` itself and `diagnostics` (durations, host),
so the same seed, schema and engine version give the same hash, and byte-identical files,
whatever machine or moment produced them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from toolfuzz_gate.core.campaign.refusal import Refusal, is_skip
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_document

FORMAT = "toolfuzz-receipt/1"
UNHASHED = ("receiptHash", "diagnostics")


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

    schema_reading: JSONObject | None
    reach: JSONObject | None
    saturation: JSONObject | None
    replay_sample: JSONObject | None
    cases_digest: str | None
    boundaries: JSON
    probes: JSON
    dictionary: JSON

    def as_json(self) -> JSONObject:
        found: JSONObject = {"boundaries": self.boundaries}
        for member, value in (
            ("schemaReading", self.schema_reading),
            ("reach", self.reach),
            ("saturation", self.saturation),
            ("replaySample", self.replay_sample),
            ("casesDigest", self.cases_digest),
            ("probes", self.probes),
            ("dictionary", self.dictionary),
        ):
            if value is not None:
                found[member] = value
        return found


OPTIONAL_MEMBERS = (
    ("contract", "contract"),
    ("checks", "checks"),
    ("cases", "cases"),
    ("interface", "interface"),
    ("fixed_arguments", "fixedArguments"),
    ("fixtures", "fixtures"),
    ("output_schema", "outputSchema"),
    ("annotations", "annotations"),
    ("breaker", "breaker"),
    ("budget", "budget"),
    ("dialect", "dialect"),
    ("stateful", "stateful"),
    ("handler_notes", "handlerNotes"),
)
"""The members only some receipts record, as (field, member): absent when None."""


@dataclass(frozen=True)
class Receipt:
    """One receipt. `under_specified` and `invariants` are always recorded (a receipt read
    from before they were kept has them empty); `extra` holds members this version does not
    know (a newer gate's), kept as they were."""

    tool: str
    seed: int
    runs: int
    schema_digest: str
    handler: Mapping[str, JSON]
    engine: Engine
    limits: Mapping[str, JSON]
    coverage: Mapping[str, str]
    mutation_counts: Mapping[str, JSON]
    invariants: Mapping[str, bool]
    unsupported: tuple[Unsupported, ...]
    counterexamples: tuple[RecordedCounterexample, ...]
    under_specified: tuple[RecordedCounterexample, ...]
    replay_command: str
    campaign: CampaignRecord | None = None
    refused: Refused | None = None
    contract: JSONObject | None = None
    checks: JSONObject | None = None
    cases: Mapping[str, int] | None = None
    interface: JSONObject | None = None
    fixed_arguments: JSONObject | None = None
    fixtures: JSONObject | None = None
    output_schema: JSONObject | None = None
    annotations: JSONObject | None = None
    breaker: JSONObject | None = None
    budget: JSONObject | None = None
    dialect: JSONObject | None = None
    stateful: JSONObject | None = None
    handler_notes: JSONObject | None = None
    diagnostics: JSONObject | None = field(default=None, compare=False)
    extra: Mapping[str, JSON] = field(default_factory=dict)

    def body(self) -> JSONObject:
        """Every hashed member, as the document holds them."""
        found: JSONObject = {
            "format": FORMAT,
            "tool": self.tool,
            "seed": self.seed,
            "runs": self.runs,
            "schemaDigest": self.schema_digest,
            "handler": dict(self.handler),
            "engine": self.engine.as_json(),
            "limits": dict(self.limits),
            "coverage": dict[str, JSON](self.coverage),
            "mutationCounts": dict(self.mutation_counts),
            "invariants": dict[str, JSON](self.invariants),
            "unsupported": [item.as_json() for item in self.unsupported],
            "counterexamples": [item.as_json() for item in self.counterexamples],
            "underSpecified": [item.as_json() for item in self.under_specified],
            "replayCommand": self.replay_command,
            **self.extra,
        }
        if self.campaign is not None:
            found.update(self.campaign.as_json())
        if self.refused is not None:
            found["refused"] = self.refused.as_json()
        for name, member in OPTIONAL_MEMBERS:
            value: Any = getattr(self, name)
            if value is not None:
                found[member] = dict(value)
        return found

    @cached_property
    def receipt_hash(self) -> str:
        return receipt_hash(self.body())

    def document(self) -> JSONObject:
        """The receipt as its file holds it: the body, its hash and the diagnostics."""
        found = self.body()
        found["receiptHash"] = self.receipt_hash
        if self.diagnostics is not None:
            found["diagnostics"] = self.diagnostics
        return found

    def encoded(self) -> bytes:
        """The file's bytes: the canonical encoding of `document`."""
        return canonical_document(self.document())

    def with_notes(self, notes: JSONObject) -> Receipt:
        """The receipt with the handler's notes recorded (the hash covers them)."""
        return replace(self, handler_notes=notes)

    def with_diagnostics(self, diagnostics: JSONObject | None) -> Receipt:
        return replace(self, diagnostics=diagnostics)

    @property
    def reasons(self) -> tuple[Refusal, ...]:
        """Why the tool was not fuzzed (empty: it was)."""
        return self.refused.reasons if self.refused is not None else ()

    @property
    def refusal_codes(self) -> list[str]:
        """The distinct refusal codes, sorted (empty: the tool was fuzzed)."""
        return sorted({reason.code for reason in self.reasons})

    @property
    def skipped(self) -> bool:
        """Whether the tool was skipped: not fuzzed, and for skips only (`refusal.SKIPS`)."""
        codes = self.refusal_codes
        return bool(codes) and all(is_skip(code) for code in codes)

    @property
    def reach(self) -> JSONObject | None:
        return self.campaign.reach if self.campaign is not None else None

    @property
    def probes(self) -> JSON:
        return self.campaign.probes if self.campaign is not None else None


def receipt_hash(body: Mapping[str, Any]) -> str:
    """sha256 of the canonical encoding of a receipt document without its unhashed members."""
    hashed = {k: v for k, v in body.items() if k not in UNHASHED}
    return hashlib.sha256(canonical_document(hashed)).hexdigest()
