"""The regression corpus: promoted counterexamples as case files, and their replay (pure).

A case file (`toolfuzz-case/1`, canonical JSON) holds one minimized input, what a correct
handler must do with it and where it came from. Replaying judges the input with the
campaign's own machinery (`observe` + `check_observation`), so a case fails for exactly
the reasons the fuzzer would report; the verdict is `still-failing` (the same failure
class at the same path, with the same cause when the case has one), `fixed` (no finding)
or `changed` (other findings only). A receipt replayed without a policy is judged under the
contract it records (`spec_from_receipt`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.case import Case
from toolfuzz_gate.core.campaign.confirm import observe_patiently
from toolfuzz_gate.core.campaign.findings import (
    Failure,
    Finding,
    InputKind,
    as_observed,
    is_fingerprint,
)
from toolfuzz_gate.core.campaign.invariants import INVARIANTS, check_observation
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle
from toolfuzz_gate.core.campaign.outcome import Handler, handler_words
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import Contract, RecordedCounterexample
from toolfuzz_gate.core.campaign.rejection_code import pattern_problem, recoding, regex_problem
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.gate.quoting import shown
from toolfuzz_gate.core.gate.verdict import Verdict
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import bounded_message, is_complete
from toolfuzz_gate.core.schema.dialects import normalize
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.errors import ReceiptError, SchemaError, UsageError

FORMAT = "toolfuzz-case/1"
STILL_FAILING = "still-failing"
FIXED = "fixed"
CHANGED = "changed"
STALE = "stale"
FAILING_OUTCOMES = (STILL_FAILING, CHANGED)
"""Replay outcomes that fail the gate: the input breaks an invariant again."""
_WHOLE_CALL = (Failure.REPLAY_UNSTABLE, Failure.METAMORPHIC_KEY_ORDER)
_VALID_ONLY = (Failure.VALID_REJECTED, *_WHOLE_CALL)
_TYPE_NAMES: dict[type, str] = {str: "a string", dict: "an object"}
_MEMBERS: dict[str, type] = {
    "tool": str,
    "fingerprint": str,
    "failure": str,
    "inputKind": str,
    "path": str,
    "keyword": str,
    "mutation": str,
    "operator": str,
    "input": dict,
    "expected": dict,
    "provenance": dict,
}


@dataclass(frozen=True)
class RegressionCase:
    """A case file, checked: everything replaying needs."""

    tool: str
    fingerprint: str
    failure: Failure
    input_kind: InputKind
    path: str
    keyword: str
    mutation: str
    operator: str
    input: JSONObject
    valid: bool
    """The input is schema-valid: a correct handler accepts it (or rejects it with a
    declared business code); otherwise a correct handler rejects it."""
    stream: str
    index: int
    cause: str = ""
    """The failure's cause (`core.campaign.cause`), when it has one: failing with another cause is
    another bug (`changed`), not this one still failing."""


@dataclass(frozen=True)
class Replayed:
    case: RegressionCase
    outcome: str
    """`still-failing`, `fixed`, `changed` or `stale`."""
    findings: tuple[Finding, ...]
    observed: str
    """What the handler did with the input (`accepted`, `rejected`, `crash`, `timeout`)."""
    said: str = ""
    """The handler's own words about it (its error code and message), when it said any."""
    output_text: str | None = None
    """An accepted call's output as text, when the handler was asked to keep it (agent
    mode: `Outcome.output_text`)."""


def case_location(tool: str, fingerprint: str) -> tuple[str, str]:
    """The (directory, file name) of a case under the corpus directory, both safe names."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", tool)[:100]
    if safe.strip(".") == "":
        safe = "_" + safe
    return safe, f"{fingerprint}.json"


def select(receipt: Receipt, fingerprints: Sequence[str]) -> list[RecordedCounterexample]:
    """The receipt's counterexamples with those fingerprints, in the order given (all of
    them, in receipt order, for none); an unknown fingerprint is a `UsageError`."""
    by_fingerprint = {cx.fingerprint: cx for cx in receipt.counterexamples}
    if not fingerprints:
        return list(by_fingerprint.values())
    unknown = [f for f in fingerprints if f not in by_fingerprint]
    if unknown:
        known = ", ".join(by_fingerprint) or "none (the receipt has no counterexamples)"
        raise UsageError(
            f"the receipt has no counterexample with fingerprint {shown(unknown[0])}",
            hint=f"its fingerprints: {known}",
        )
    return [by_fingerprint[f] for f in dict.fromkeys(fingerprints)]


def build_case(receipt: Receipt, cx: RecordedCounterexample) -> JSONObject:
    """The case file promoting `example`, one counterexample of the sound `receipt`.

    Raises `ReceiptError` when it cannot be replayed faithfully: its input was elided in
    the receipt, it is an engine disagreement rather than a handler failure, or the
    receipt does not say whether the input is schema-valid.
    """
    fingerprint = cx.fingerprint
    failure = cx.failure
    if failure == Failure.ORACLE_DISAGREEMENT.value:
        raise ReceiptError(
            f"counterexample {fingerprint} is an oracle disagreement (a bug in the engine's "
            "validators, not in the handler): there is nothing to replay against the handler"
        )
    replay = cx.replay
    if not isinstance(cx.input, dict) or not is_complete(cx.input):
        raise ReceiptError(
            f"counterexample {fingerprint}: the receipt elides part of its input (strings over "
            "256 characters are stored as length, sha256 and head), so it cannot be promoted",
            hint="regenerate the full input from its replay coordinates (seed "
            f"{replay.seed}, runs {replay.runs}, stream {replay.stream}, "
            f"case {replay.case}): re-run the receipt's replayCommand with --cases FILE",
        )
    valid = _validity(receipt, cx)
    return {
        "format": FORMAT,
        "tool": receipt.tool,
        "fingerprint": fingerprint,
        "failure": failure,
        "inputKind": cx.input_kind,
        "path": cx.path,
        "keyword": cx.keyword,
        "mutation": cx.mutation,
        "operator": cx.operator,
        **({"cause": cx.cause} if cx.cause else {}),
        "input": cx.input,
        "expected": {
            "outcome": "accepted" if valid else "rejected",
            "inputValid": valid,
            "invariant": _invariant_of(str(failure)),
        },
        "provenance": {
            "receiptHash": receipt.receipt_hash,
            "seed": replay.seed,
            "runs": replay.runs,
            "stream": replay.stream,
            "case": replay.case,
            "engineVersion": receipt.engine.version,
            "schemaDigest": receipt.schema_digest,
        },
    }


def _invariant_of(failure: str) -> str | None:
    for invariant in INVARIANTS:
        if any(f.value == failure for f in invariant.failures):
            return invariant.name
    return None


def _validity(receipt: Receipt, cx: RecordedCounterexample) -> bool:
    """Was the input schema-valid? The kind says so for valid and hostile cases; a seam
    probe's validity comes from its failure class, its error, or the receipt's probes."""
    kind, failure = cx.input_kind, cx.failure
    if kind == InputKind.VALID.value:
        return True
    if kind == InputKind.HOSTILE.value or failure == Failure.HOSTILE_ACCEPTED.value:
        return False
    if failure in {f.value for f in _VALID_ONLY}:
        return True
    valid = cx.error.get("inputValid")
    if isinstance(valid, bool):
        return valid
    seen = {
        probe.valid
        for probe in receipt.probes or ()
        if probe.name == cx.operator and probe.path == cx.path
    }
    if len(seen) == 1:
        return seen.pop()
    raise ReceiptError(
        f"counterexample {cx.fingerprint}: the receipt does not say whether its input "
        "is schema-valid, so the expected outcome is unknown and it cannot be promoted"
    )


def parse_case(document: Any) -> RegressionCase:
    """The case a case file describes; `ValueError` naming the first problem."""
    if not isinstance(document, dict):
        raise ValueError("a case file is a JSON object")
    if document.get("format") != FORMAT:
        raise ValueError(f"format is not {FORMAT!r} (got {shown(document.get('format'))})")
    for name, wanted in _MEMBERS.items():
        if not isinstance(document.get(name), wanted):
            raise ValueError(f"member {name!r} is missing or not {_TYPE_NAMES[wanted]}")
    if not is_fingerprint(document["fingerprint"]):
        raise ValueError(f"fingerprint {shown(document['fingerprint'])} is not 24 hex digits")
    try:
        failure = Failure(document["failure"])
        kind = InputKind(document["inputKind"])
    except ValueError as error:
        raise ValueError(f"unknown failure class or input kind: {error}") from None
    expected, provenance = document["expected"], document["provenance"]
    if not isinstance(expected.get("inputValid"), bool):
        raise ValueError("expected/inputValid is missing or not a boolean")
    stream, index = provenance.get("stream"), provenance.get("case")
    if not isinstance(stream, str) or not isinstance(index, int) or isinstance(index, bool):
        raise ValueError("provenance/stream or provenance/case is missing or mistyped")
    return RegressionCase(
        tool=document["tool"],
        fingerprint=document["fingerprint"],
        failure=failure,
        input_kind=kind,
        path=document["path"],
        keyword=document["keyword"],
        mutation=document["mutation"],
        operator=document["operator"],
        cause=document["cause"] if isinstance(document.get("cause"), str) else "",
        input=document["input"],
        valid=expected["inputValid"],
        stream=stream,
        index=index,
    )


def replay_case(
    case: RegressionCase, handler: Handler, tool: ToolSpec, valid_now: bool | None = None
) -> Replayed:
    """Run the case's input through `handler` and judge it as the campaign would.

    `valid_now`: the input's validity under the tool's current schema (None: unknown);
    when it differs from the recorded one the case is `stale` and the handler not called.
    """
    if valid_now is not None and valid_now != case.valid:
        return Replayed(case, STALE, (), "not-run")
    family = "seam" if case.input_kind is InputKind.SEAM else case.mutation
    judged = Case(
        case.input_kind,
        family,
        case.path,
        case.input,
        case.index,
        case.stream,
        case.valid,
        case.keyword,
        case.operator,
    )
    observation = observe_patiently(
        judged, recoding(handler, tool.rejection_pattern, tool.answer_pattern)
    )
    # A note on the schema is not a failure: a case that now only draws one is fixed.
    findings = tuple(
        found
        for found in check_observation(observation, tool)
        if found.failure is not Failure.UNDER_SPECIFIED
    )
    expected_path = "" if case.failure in _WHOLE_CALL else case.path
    if any(
        f.failure is as_observed(case.failure)
        and f.path == expected_path
        and (not case.cause or f.cause == case.cause)
        for f in findings
    ):
        outcome = STILL_FAILING
    elif findings:
        outcome = CHANGED
    else:
        outcome = FIXED
    answer = observation.outcome
    observed = answer.kind.value if answer else "not-run"
    said = handler_words(answer.error_code, answer.message) if answer is not None else ""
    text = answer.output_text if answer is not None else None
    return Replayed(case, outcome, findings, observed, said, text)


def render_replayed(replayed: Replayed, where: str) -> str:
    """One line: the outcome, the case and, when it changed, what fails now."""
    case = replayed.case
    text = (
        f"{replayed.outcome}: {case.tool} {case.failure.value} at {case.path or '/'} "
        f"({case.fingerprint}, {where}); the handler's answer: {replayed.observed}"
    )
    if replayed.outcome == STALE:
        side = "invalid" if case.valid else "valid"
        return (
            f"{STALE}: {case.tool} {case.failure.value} at {case.path or '/'} "
            f"({case.fingerprint}, {where}); the input is schema-{side} now: re-promote or "
            "delete the case"
        )
    if replayed.outcome == CHANGED:
        now = sorted({f"{f.failure.value} at {f.path or '/'}" for f in replayed.findings})
        text += f"; now: {', '.join(now)}"
    if replayed.said:
        text += f"; it said: {bounded_message(' '.join(replayed.said.split()), 200)}"
    return text


def schema_judge(
    document: JSON, options: SchemaOptions, dialect: str | None
) -> Callable[[JSON], bool] | None:
    """Validity under `document` by the reference validator, or None when the engine
    refuses the schema (its limits are what bound the validator's work)."""
    normalized, _ = normalize(document, dialect)
    try:
        compile_schema(normalized, limits=DEFAULT_LIMITS, options=options)
    except SchemaError:
        return None
    return JsonschemaOracle(normalized, options).is_valid


def gate_on_regressions(verdict: Verdict, replayed: Sequence[Replayed]) -> Verdict:
    """`verdict`, failed with one more reason when a corpus case fails again. The policy's
    `fail_on` does not matter: a promoted case is a failure someone chose to keep out."""
    failing = [
        f"{r.case.tool} {r.case.failure.value} at {r.case.path or '/'} ({r.outcome})"
        for r in replayed
        if r.outcome in FAILING_OUTCOMES
    ]
    if not failing:
        return verdict
    reason = f"regression: {len(failing)} corpus case(s) fail again: {'; '.join(failing)}"
    return Verdict(True, (reason, *verdict.reasons))


def spec_from_receipt(receipt: Receipt) -> ToolSpec:
    """The contract the receipt was judged under (`contract`, the output ceiling)."""
    contract = receipt.contract or Contract((), None, None)
    rejections = contract.expected_rejections
    codes, dry_run = contract.error_codes, contract.dry_run
    ceiling = receipt.max_output_bytes
    recoding = contract.rejection_code
    answer = contract.rejection_answer
    for key, given, problem_of in (
        ("errorCodes", codes, regex_problem),
        ("rejectionCode", recoding, pattern_problem),
        ("rejectionAnswer", answer, regex_problem),
    ):
        problem = problem_of(given) if isinstance(given, str) else None
        if problem is not None:
            raise ReceiptError(f"the receipt's contract/{key}: {problem}")
    return ToolSpec(
        receipt.tool,
        expected_rejections=rejections,
        error_codes=codes,
        rejection_code=recoding,
        rejection_answer=answer,
        dry_run=dry_run,
        max_output_bytes=ceiling if isinstance(ceiling, int) else DEFAULT_MAX_OUTPUT_BYTES,
        checks=receipt.checks_held,
    )
