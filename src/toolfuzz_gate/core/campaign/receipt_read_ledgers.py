"""Reading back the receipt's records of how a campaign ran and what the tool declared:
`checks`, `schemaReading`, `reach`, `saturation`, `breaker`, `budget`, `interface`, `dialect` and
`handlerNotes` (pure). Part of the one reader, `core.campaign.receipt_read`, whose
docstring lists the older shapes accepted; each function takes the member's value (None
when the receipt has none) and gives its record, or None."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.campaign.checks import CONTRACT_CHECKS, NO_CHECKS, Checks, Decision
from toolfuzz_gate.core.campaign.receipt_ledgers import (
    BreakerRecord,
    BudgetCut,
    BudgetRecord,
    CaseCounts,
    HostileAfter,
    HostileReach,
    IgnoredKeyword,
    ReachLedger,
    SaturationRecord,
    SchemaReading,
    SeamProbe,
    StoppedAt,
    StreamRun,
    ValidReach,
    Way,
)
from toolfuzz_gate.core.campaign.receipt_members import (
    Diagnostics,
    DialectRecord,
    HandlerNotes,
    RecordedInterface,
)
from toolfuzz_gate.core.campaign.receipt_shape import At
from toolfuzz_gate.core.jsonutil.canonical import JSON


def checks(at: At, value: Any) -> Checks | None:
    if value is None:
        return None
    found = at.mapping(value, "checks")
    decisions = []
    for name in CONTRACT_CHECKS:
        where = f"checks/{name}"
        item = at.mapping(found.get(name), where)
        decision = Decision(
            at.boolean(item, "applies", where),
            at.text(item, "declaredBy", where),
            at.text(item, "reason", where),
        )
        if decision != NO_CHECKS.decision(name):  # undeclared: left out, as the campaign did
            decisions.append((name, decision))
    return Checks(tuple(decisions))


def cases(at: At, value: Any) -> CaseCounts | None:
    if value is None:
        return None
    found = at.mapping(value, "cases")
    return CaseCounts(
        at.count_or_none(found, "valid", "cases"),
        at.count_or_none(found, "hostile", "cases"),
        at.count_or_none(found, "seam", "cases"),
    )


def probes(at: At, value: Any) -> tuple[SeamProbe, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise at.bad("probes", "is not a list of objects")
    found = []
    for index, item in enumerate(value):
        where = f"probes/{index}"
        given = at.mapping(item, where)
        found.append(
            SeamProbe(
                at.text(given, "name", where),
                at.text(given, "path", where),
                at.boolean(given, "valid", where),
                at.mapping(given.get("outcome"), f"{where}/outcome"),
            )
        )
    return tuple(found)


def schema_reading(at: At, value: Any) -> SchemaReading | None:
    if value is None:
        return None
    where = "schemaReading"
    found = at.mapping(value, where)
    ignored = found.get("ignoredKeywords")  # none in a receipt from before they were listed
    return SchemaReading(
        at.text(found, "draft", where),
        at.boolean(found, "formatAssertion", where),
        at.boolean(found, "recursive", where),
        at.count_or_none(found, "recursionDepth", where),
        None
        if ignored is None
        else tuple(
            IgnoredKeyword(
                at.text(item, "keyword", f"{where}/ignoredKeywords/{i}"),
                at.text(item, "pointer", f"{where}/ignoredKeywords/{i}"),
            )
            for i, item in enumerate(at.items(found, "ignoredKeywords", where))
        ),
    )


def reach(at: At, value: Any) -> ReachLedger | None:
    if value is None:
        return None
    found = at.mapping(value, "reach")
    valid = at.mapping(found.get("valid"), "reach/valid")
    hostile = at.mapping(found.get("hostile"), "reach/hostile")
    commonest = at.optional(found, "commonest", "reach")
    v, h = "reach/valid", "reach/hostile"
    return ReachLedger(
        ValidReach(
            at.count(valid, "calls", v),
            at.count(valid, "reached", v),
            at.count(valid, "rejected", v),
            at.count(valid, "errorAnswers", v),
            at.count(valid, "crashed", v),
            at.count(valid, "timedOut", v),
            at.count_or_none(valid, "answeredAlike", v),
        ),
        HostileReach(
            at.count(hostile, "calls", h),
            at.count(hostile, "rejected", h),
            at.count(hostile, "accepted", h),
            at.count(hostile, "errorAnswers", h),
            at.count(hostile, "rejectedForSchema", h),
            at.count(hostile, "answeredAsValid", h),
        ),
        None
        if commonest is None
        else Way(
            at.text(commonest, "outcome", "reach/commonest"),
            at.text(commonest, "cause", "reach/commonest"),
            at.text(commonest, "said", "reach/commonest"),
            at.count(commonest, "count", "reach/commonest"),
        ),
        at.text_or_none(found, "errorAnswer", "reach"),
    )


def saturation(at: At, value: Any) -> SaturationRecord | None:
    if value is None:
        return None
    found = at.mapping(value, "saturation")
    streams = {}
    for name, stream in found.items():
        if name == "window":
            continue
        where = f"saturation/{name}"
        given = at.mapping(stream, where)
        streams[name] = StreamRun(
            at.count(given, "planned", where),
            at.count(given, "ran", where),
            at.boolean(given, "saturated", where),
        )
    return SaturationRecord(at.count(found, "window", "saturation"), streams)


def breaker(at: At, value: Any) -> BreakerRecord | None:
    if value is None:
        return None
    found = at.mapping(value, "breaker")
    not_run = found.get("notRun")  # none in a receipt from before the cut was counted
    after = at.optional(found, "hostileAfter", "breaker")
    where = "breaker/hostileAfter"
    return BreakerRecord(
        at.text(found, "failure", "breaker"),
        at.count(found, "after", "breaker"),
        at.text(found, "stream", "breaker"),
        at.count(found, "case", "breaker"),
        at.text(found, "note", "breaker"),
        None if not_run is None else at.counts(not_run, "breaker/notRun"),
        None
        if after is None
        else HostileAfter(
            at.count(after, "ran", where),
            _number(at, after, "timeoutFactor", where),
            at.count(after, "timedOut", where),
        ),
    )


def budget(at: At, value: Any) -> BudgetRecord | None:
    if value is None:
        return None
    found = at.mapping(value, "budget")
    exhausted = at.boolean(found, "exhausted", "budget")
    cut = None
    if exhausted:
        stop = at.mapping(found.get("stoppedAt"), "budget/stoppedAt")
        cut = BudgetCut(
            at.text(found, "scope", "budget"),
            StoppedAt(
                at.text(stop, "stream", "budget/stoppedAt"),
                at.count(stop, "case", "budget/stoppedAt"),
            ),
            at.counts(found.get("notRun"), "budget/notRun"),
            at.count(found, "shrinkCalls", "budget"),
            at.text(found, "note", "budget"),
        )
    return BudgetRecord(
        at.number_or_none(found, "seconds", "budget"),
        at.number_or_none(found, "runSeconds", "budget"),
        cut,
    )


def interface(at: At, value: Any) -> RecordedInterface | None:
    if value is None:
        return None
    where = "interface"
    found = at.mapping(value, where)
    annotations = found.get("annotations")
    return RecordedInterface(
        digest=at.text(found, "digest", where),
        input_schema=found.get("inputSchema"),
        input_schema_digest=at.text(found, "inputSchemaDigest", where),
        output_schema=found.get("outputSchema"),
        output_schema_digest=at.text_or_none(found, "outputSchemaDigest", where),
        annotations=at.mapping(annotations, "interface/annotations"),
        task_support=at.text_or_none(found, "taskSupport", where),
        description=at.text_or_none(found, "description", where),
    )


def dialect(at: At, value: Any) -> DialectRecord | None:
    if value is None:
        return None
    found = at.mapping(value, "dialect")
    rewrites = found.get("rewrites")
    if not isinstance(rewrites, list):
        raise at.bad("dialect/rewrites", "is not a list")
    return DialectRecord(at.text(found, "name", "dialect"), tuple[JSON, ...](rewrites))


def handler_notes(at: At, value: Any) -> HandlerNotes | None:
    if value is None:
        return None
    where = "handlerNotes"
    found = at.mapping(value, where)
    written = found.get("writtenOutsideRootAtStart")
    return HandlerNotes(
        at.count_or_none(found, "stdoutNoiseLines", where),
        at.text_or_none(found, "stdoutNoiseSample", where),
        None if written is None else at.texts(written, f"{where}/writtenOutsideRootAtStart"),
    )


def diagnostics(at: At, value: Any) -> Diagnostics | None:
    if value is None:
        return None
    where = "diagnostics"
    found = at.mapping(value, where)
    duration = _number(at, found, "durationSeconds", where)
    return Diagnostics(
        duration,
        at.number_or_none(found, "settleSeconds", where),
        at.count_or_none(found, "dismissedTimeouts", where),
        at.optional(found, "host", where),
        at.optional(found, "profile", where),
    )


def _number(at: At, holder: dict[str, Any], name: str, where: str) -> float:
    found = at.number_or_none(holder, name, where)
    if found is None:
        raise at.bad(f"{where}/{name}", "is not a number")
    return found
