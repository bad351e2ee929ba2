"""Reading a receipt back: the one validating reader of a `toolfuzz-receipt/1` document (pure).

`problems` says whether a document is a sound receipt at all (its format, the members every
receipt has had, a hash that matches its content); `read_receipt` then gives its `Receipt`,
or a `ReceiptShapeError` (`receipt.unreadable`) naming the first member of a shape no
version wrote. Every reader of a receipt reads the `Receipt`, never the document.

The older shapes it accepts, each read as today's receipt would say the same thing:

* no `underSpecified` (from before under-specification notes were kept): none;
* a `refused` without `reasons` (from before reasons were recorded, when a tool was refused
  for unsupported keywords only): one `schema.unsupported-keyword` reason per `unsupported`
  entry, and `problems` empty when it is absent too;
* a counterexample without `cause` (from before causes were kept; its fingerprint was
  made without one too): the empty cause;
* no `checks` (from before checks were declared): None, and `Receipt.checks_held` the
  checks that campaign held every tool to;
* no `interface`, `contract` or `cases`: None (an interface diff skips such a tool);
* a campaign's members recorded by later versions absent (0.4.0 wrote no `reach`,
  `saturation`, `replaySample` or `boundaries`): None, and `boundaries` null (no ledger);
* a `schemaReading` without `ignoredKeywords` (0.4.0; today's too when there are none):
  None;
* a `breaker` without `notRun` or `hostileAfter` (0.5.0, before the cases it cut were
  counted): None for them (the verdict's note says "cases not run");
* no `budget`, `breaker`, `dialect`, `handlerNotes` or `diagnostics` (a run without a
  budget, a breaker, a dialect, notes or `--diagnostics`, or one from before they were
  kept): None; `diagnostics` without `settleSeconds` (from before settling was timed):
  None for it.

The members read as records (`core.campaign.receipt_read_ledgers`) must read back to what
they were read from: one holding a member this version does not read is
`receipt.unreadable`, for it would be lost. A top-level member this version does not know
(a newer gate's) is kept in `Receipt.extra` as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.campaign import receipt_read_ledgers as ledgers
from toolfuzz_gate.core.campaign.findings import is_fingerprint
from toolfuzz_gate.core.campaign.receipt import (
    FORMAT,
    OPTIONAL_MEMBERS,
    OPTIONAL_RECORDS,
    Receipt,
    receipt_hash,
)
from toolfuzz_gate.core.campaign.receipt_members import (
    CampaignRecord,
    Component,
    Contract,
    Engine,
    RecordedCounterexample,
    Refused,
    Replay,
    StatefulRecord,
    Unsupported,
)
from toolfuzz_gate.core.campaign.receipt_shape import At
from toolfuzz_gate.core.campaign.refusal import UNSUPPORTED_KEYWORD, Refusal
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

REQUIRED = (
    "format",
    "tool",
    "seed",
    "runs",
    "schemaDigest",
    "handler",
    "engine",
    "limits",
    "coverage",
    "mutationCounts",
    "invariants",
    "unsupported",
    "counterexamples",
    "replayCommand",
    "receiptHash",
)
"""The members every receipt has had."""
CAMPAIGN = (
    "schemaReading",
    "reach",
    "saturation",
    "replaySample",
    "casesDigest",
    "boundaries",
    "probes",
    "dictionary",
)
"""The members a campaign that ran records (a refused tool's receipt and a stateful one have
none of them)."""
_KNOWN = frozenset(
    {*REQUIRED, *CAMPAIGN, "underSpecified", "diagnostics"}
    | {member for _, member in (*OPTIONAL_MEMBERS, *OPTIONAL_RECORDS)}
)


def problems(document: Any) -> list[str]:
    """What is wrong with a document claiming to be a receipt; empty when sound."""
    if not isinstance(document, dict):
        return ["a receipt is a JSON object"]
    found = [f"missing member {name!r}" for name in REQUIRED if name not in document]
    if document.get("format") != FORMAT:
        found.append(f"format is not {FORMAT!r}")
    if not found and receipt_hash(document) != document.get("receiptHash"):
        found.append("receiptHash does not match the content (edited or corrupted)")
    return found


def read_receipt(document: Mapping[str, Any]) -> Receipt:
    """The receipt a sound document (`problems` is empty) holds."""
    at = At(str(document.get("tool")))
    tool, seed, runs = document["tool"], document["seed"], document["runs"]
    if not isinstance(tool, str):
        raise at.bad("tool", "is not a string")
    unsupported = tuple(
        Unsupported(
            at.text(item, "keyword", f"unsupported/{i}"), at.text(item, "path", f"unsupported/{i}")
        )
        for i, item in enumerate(at.items(document, "unsupported", ""))
    )
    records = _records(at, document)
    return Receipt(
        tool=tool,
        seed=at.integer(seed, "seed"),
        runs=at.integer(runs, "runs"),
        schema_digest=at.text(document, "schemaDigest", ""),
        handler=at.mapping(document["handler"], "handler"),
        engine=_engine(at, document["engine"]),
        limits=at.mapping(document["limits"], "limits"),
        coverage=at.values(document, "coverage", str),
        mutation_counts=at.mapping(document["mutationCounts"], "mutationCounts"),
        invariants=at.values(document, "invariants", bool),
        unsupported=unsupported,
        counterexamples=_counterexamples(at, document, "counterexamples"),
        under_specified=_counterexamples(at, document, "underSpecified"),
        replay_command=at.text(document, "replayCommand", ""),
        campaign=_campaign(at, document, records),
        refused=_refused(at, document.get("refused"), unsupported),
        contract=_contract(at, document.get("contract")),
        stateful=_stateful(at, document.get("stateful")),
        diagnostics=records["diagnostics"],
        extra={k: v for k, v in document.items() if k not in _KNOWN},
        checks=records["checks"],
        cases=records["cases"],
        interface=records["interface"],
        breaker=records["breaker"],
        budget=records["budget"],
        dialect=records["dialect"],
        handler_notes=records["handler_notes"],
        **{name: _optional(at, document, member) for name, member in OPTIONAL_MEMBERS},
    )


def _optional(at: At, document: Mapping[str, Any], member: str) -> Any:
    return at.optional(document, member)


def _records(at: At, document: Mapping[str, Any]) -> dict[str, Any]:
    """The members read by `core.campaign.receipt_read_ledgers`, by `Receipt` field; each
    must read back to the value it was read from (a member of one this version does not
    know would be lost, and the receipt would no longer match its hash)."""
    found = {}
    for name, member, read in (
        ("checks", "checks", ledgers.checks),
        ("cases", "cases", ledgers.cases),
        ("interface", "interface", ledgers.interface),
        ("breaker", "breaker", ledgers.breaker),
        ("budget", "budget", ledgers.budget),
        ("dialect", "dialect", ledgers.dialect),
        ("handler_notes", "handlerNotes", ledgers.handler_notes),
        ("diagnostics", "diagnostics", ledgers.diagnostics),
        ("schema_reading", "schemaReading", ledgers.schema_reading),
        ("reach", "reach", ledgers.reach),
        ("saturation", "saturation", ledgers.saturation),
        ("probes", "probes", ledgers.probes),
    ):
        value = document.get(member)
        record: Any = read(at, value)
        if record is not None and _shown(record) != value:
            raise at.bad(member, "holds members this version does not read")
        found[name] = record
    return found


def _engine(at: At, value: Any) -> Engine:
    found = at.mapping(value, "engine")

    def part(name: str) -> Component | None:
        given = found.get(name)
        if given is None:
            return None
        where = f"engine/{name}"
        return Component(at.text(given, "name", where), at.text(given, "version", where))

    return Engine(
        at.text(found, "name", "engine"),
        at.text(found, "version", "engine"),
        part("generator"),
        part("oracle"),
        part("reference"),
    )


def _shown(record: Any) -> JSON:
    """A record (or a tuple of them) as the document holds it."""
    if isinstance(record, tuple):
        return [item.as_json() for item in record]
    found: JSON = record.as_json()
    return found


def _campaign(
    at: At, document: Mapping[str, Any], records: Mapping[str, Any]
) -> CampaignRecord | None:
    if not any(member in document for member in CAMPAIGN):
        return None
    digest = document.get("casesDigest")
    if digest is not None and not isinstance(digest, str):
        raise at.bad("casesDigest", "is not a string")
    return CampaignRecord(
        schema_reading=records["schema_reading"],
        reach=records["reach"],
        saturation=records["saturation"],
        replay_sample=_optional(at, document, "replaySample"),
        cases_digest=digest,
        boundaries=document.get("boundaries"),
        probes=records["probes"],
        dictionary=document.get("dictionary"),
    )


def _refused(at: At, value: Any, unsupported: tuple[Unsupported, ...]) -> Refused | None:
    if value is None:
        return None
    found = at.mapping(value, "refused")
    if "reasons" in found:
        reasons = tuple(Refusal.from_json(r) for r in at.items(found, "reasons", "refused"))
    else:  # a receipt from before reasons were recorded
        reasons = tuple(
            Refusal(UNSUPPORTED_KEYWORD, item.path, "unsupported keyword", item.keyword)
            for item in unsupported
        )
    problems = found.get("problems", [])
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise at.bad("refused/problems", "is not a list of strings")
    rendered = tuple(str(p) for p in problems)
    code = found.get("code", reasons[0].code if reasons else UNSUPPORTED_KEYWORD)
    if not isinstance(code, str):
        raise at.bad("refused/code", "is not a string")
    return Refused(code, rendered, reasons)


def _contract(at: At, value: Any) -> Contract | None:
    if value is None:
        return None
    found = at.mapping(value, "contract")
    ignored = found.get("ignoreOutput")
    return Contract(
        at.texts(found.get("expectedRejections", []), "contract/expectedRejections"),
        at.text_or_none(found, "errorCodes", "contract"),
        at.text_or_none(found, "dryRun", "contract"),
        None if ignored is None else at.texts(ignored, "contract/ignoreOutput"),
        at.text_or_none(found, "rejectionCode", "contract"),
        at.text_or_none(found, "rejectionAnswer", "contract"),
    )


def _stateful(at: At, value: Any) -> StatefulRecord | None:
    if value is None:
        return None
    found = at.mapping(value, "stateful")
    counts = {
        name: at.integer(found.get(name), f"stateful/{name}")
        for name in ("planned", "sequences", "calls")
    }
    return StatefulRecord(
        tools=at.values(found, "tools", str),
        links=tuple(at.items(found, "links", "stateful")),
        planned=counts["planned"],
        sequences=counts["sequences"],
        calls=counts["calls"],
        stop=at.text_or_none(found, "stop", "stateful"),
        dropped=at.values(found, "dropped", int),
    )


def _counterexamples(
    at: At, document: Mapping[str, Any], member: str
) -> tuple[RecordedCounterexample, ...]:
    return tuple(
        _counterexample(at, item, f"{member}/{index}")
        for index, item in enumerate(at.items(document, member, ""))
    )


def _counterexample(at: At, item: JSONObject, where: str) -> RecordedCounterexample:
    if not is_fingerprint(item.get("fingerprint")):
        raise at.bad(where, "has no `fingerprint` of 24 hex digits")
    cause = item.get("cause", "")  # none in a receipt from before causes were kept
    if not isinstance(cause, str):
        raise at.bad(f"{where}/cause", "is not a string")
    replay = at.mapping(item.get("replay"), f"{where}/replay")
    sizes, sequence = item.get("sizes"), item.get("sequence")
    if not isinstance(sizes, list):
        raise at.bad(f"{where}/sizes", "is not a list")
    if sequence is not None and not isinstance(sequence, list):
        raise at.bad(f"{where}/sequence", "is not a list")
    failing = item.get("failingCall")
    flaky = item.get("flaky")
    if not isinstance(flaky, bool):
        raise at.bad(f"{where}/flaky", "is not true or false")
    return RecordedCounterexample(
        fingerprint=str(item["fingerprint"]),
        failure=at.text(item, "failure", where),
        cause=cause,
        path=at.text(item, "path", where),
        mutation=at.text(item, "mutation", where),
        keyword=at.text(item, "keyword", where),
        input_kind=at.text(item, "inputKind", where),
        operator=at.text(item, "operator", where),
        input=item.get("input"),
        original_input=item.get("originalInput"),
        sizes=tuple[JSON, ...](sizes),
        error=at.mapping(item.get("error"), f"{where}/error"),
        flaky=flaky,
        suggestion=item.get("suggestion"),
        replay=Replay(
            replay.get("seed"), replay.get("runs"), replay.get("stream"), replay.get("case")
        ),
        reproduced=_optional(at, item, "reproduced"),
        state_dependent=_optional(at, item, "stateDependent"),
        sequence=None if sequence is None else tuple[JSON, ...](sequence),
        failing_call=at.integer(failing, f"{where}/failingCall") if failing is not None else None,
    )
