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

from toolfuzz_gate.core.campaign.checks import Checks, held_before_declared
from toolfuzz_gate.core.campaign.receipt_ledgers import (
    BreakerRecord,
    BudgetRecord,
    CaseCounts,
    ReachLedger,
    SeamProbe,
)
from toolfuzz_gate.core.campaign.receipt_members import (
    CampaignRecord,
    Contract,
    Diagnostics,
    DialectRecord,
    Engine,
    HandlerNotes,
    RecordedCounterexample,
    RecordedInterface,
    Refused,
    StatefulRecord,
    Unsupported,
)
from toolfuzz_gate.core.campaign.refusal import Refusal, is_skip
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_document

FORMAT = "toolfuzz-receipt/1"
UNHASHED = ("receiptHash", "diagnostics")


OPTIONAL_MEMBERS = (
    ("fixed_arguments", "fixedArguments"),
    ("fixtures", "fixtures"),
    ("output_schema", "outputSchema"),
    ("annotations", "annotations"),
)
"""The members only some receipts record that are kept as JSON, as (field, member): absent
when None. They are data, not the receipt's own structure: the tool's pinned arguments and
fixtures by JSON Pointer, its output schema and the server's annotations as declared."""
OPTIONAL_RECORDS = (
    ("checks", "checks"),
    ("cases", "cases"),
    ("refused", "refused"),
    ("contract", "contract"),
    ("stateful", "stateful"),
    ("interface", "interface"),
    ("breaker", "breaker"),
    ("budget", "budget"),
    ("dialect", "dialect"),
    ("handler_notes", "handlerNotes"),
)
"""The members only some receipts record that are records of their own (`as_json`), as
(field, member): absent when None."""


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
    contract: Contract | None = None
    checks: Checks | None = None
    cases: CaseCounts | None = None
    interface: RecordedInterface | None = None
    fixed_arguments: JSONObject | None = None
    fixtures: JSONObject | None = None
    output_schema: JSONObject | None = None
    annotations: JSONObject | None = None
    breaker: BreakerRecord | None = None
    budget: BudgetRecord | None = None
    dialect: DialectRecord | None = None
    stateful: StatefulRecord | None = None
    handler_notes: HandlerNotes | None = None
    diagnostics: Diagnostics | None = field(default=None, compare=False)
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
        for name, member in OPTIONAL_RECORDS:
            record: Any = getattr(self, name)
            if record is not None:
                found[member] = record.as_json()
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
            found["diagnostics"] = self.diagnostics.as_json()
        return found

    def encoded(self) -> bytes:
        """The file's bytes: the canonical encoding of `document`."""
        return canonical_document(self.document())

    def with_notes(self, notes: HandlerNotes) -> Receipt:
        """The receipt with the handler's notes recorded (the hash covers them)."""
        return replace(self, handler_notes=notes)

    def with_diagnostics(self, diagnostics: Diagnostics | None) -> Receipt:
        return replace(self, diagnostics=diagnostics)

    @property
    def checks_held(self) -> Checks:
        """The contract checks the campaign held the tool to (for a receipt from before
        checks were declared, those it held every tool to)."""
        return self.checks if self.checks is not None else held_before_declared()

    @property
    def max_output_bytes(self) -> int | None:
        """The output ceiling the tool was judged under (`limits.maxOutputBytes`)."""
        found = self.limits.get("maxOutputBytes")
        return found if isinstance(found, int) and not isinstance(found, bool) else None

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
    def reach(self) -> ReachLedger | None:
        return self.campaign.reach if self.campaign is not None else None

    @property
    def probes(self) -> tuple[SeamProbe, ...] | None:
        return self.campaign.probes if self.campaign is not None else None


def receipt_hash(body: Mapping[str, Any]) -> str:
    """sha256 of the canonical encoding of a receipt document without its unhashed members."""
    hashed = {k: v for k, v in body.items() if k not in UNHASHED}
    return hashlib.sha256(canonical_document(hashed)).hexdigest()
