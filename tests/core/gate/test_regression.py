"""`core.gate.regression`: case files built from hand-written receipts, the refusals (elided input,
engine disagreements, unknown validity), parsing, and replay verdicts over scripted handlers."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.profiles import examples
from tests.receipts import typed
from toolfuzz_gate.core.campaign.checks import ALL_CHECKS
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_members import RecordedCounterexample
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.regression import (
    CHANGED,
    FIXED,
    FORMAT,
    STALE,
    STILL_FAILING,
    case_location,
    gate_on_regressions,
    parse_case,
    replay_case,
    schema_judge,
    spec_from_receipt,
)
from toolfuzz_gate.core.gate.regression import build_case as build_typed
from toolfuzz_gate.core.gate.regression import select as select_typed
from toolfuzz_gate.core.gate.verdict import Verdict
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_document
from toolfuzz_gate.core.jsonutil.redact import is_complete, present
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.errors import ReceiptError, UsageError

TOOL = ToolSpec("renderPoster", expected_rejections=("policy-pixel-budget",), checks=ALL_CHECKS)
HOSTILE: dict[str, Any] = {
    "fingerprint": "8f57b61d8ce72698857063fc",
    "failure": "hostile-accepted",
    "path": "/width",
    "mutation": "bounds",
    "keyword": "maximum",
    "inputKind": "hostile",
    "operator": "maximum:above-maximum@/width",
    "input": {"title": "a", "width": 401},
    "originalInput": {"title": "K", "width": 401},
    "sizes": [30, 28],
    "error": {"outcome": "accepted", "reason": "accepted a call that breaks maximum"},
    "suggestion": None,
    "replay": {"seed": 41, "runs": 24, "stream": "hostile", "case": 21},
}
CRASH: dict[str, Any] = {
    **HOSTILE,
    "fingerprint": "0123456789abcdef01234567",
    "failure": "crash",
    "path": "/title",
    "mutation": "valid",
    "keyword": "",
    "inputKind": "valid",
    "operator": "",
    "input": {"title": "", "width": 64},
    "error": {"inputValid": True, "outcome": "crash", "reason": "crash on a schema-valid call"},
    "replay": {"seed": 41, "runs": 24, "stream": "valid", "case": 3},
}


def receipt(*examples: dict[str, Any], probes: list[Any] | None = None) -> JSONObject:
    return {
        "format": "toolfuzz-receipt/1",
        "tool": "renderPoster",
        "seed": 41,
        "runs": 24,
        "schemaDigest": "ab" * 32,
        "engine": {"name": "toolfuzz-gate", "version": "9.9.9"},
        "counterexamples": [copy.deepcopy(e) for e in examples],
        "probes": probes or [],
        "receiptHash": "cd" * 32,
    }


def build_case(document: JSONObject, example: dict[str, Any]) -> JSONObject:
    """The case file of `example`, one of the hand-written receipt's counterexamples, both
    read as the typed receipt has them."""
    read = typed(document)
    [found] = [cx for cx in read.counterexamples if cx.fingerprint == example["fingerprint"]]
    return build_typed(read, found)


def select(document: JSONObject, fingerprints: list[str]) -> list[RecordedCounterexample]:
    return select_typed(typed(document), fingerprints)


class Scripted:
    """A handler answering every call with `answer(arguments)`; it records the calls."""

    def __init__(self, answer: Callable[[JSONObject], Outcome]) -> None:
        self.answer = answer
        self.calls: list[JSONObject] = []

    def call(self, arguments: JSONObject) -> Outcome:
        self.calls.append(arguments)
        return self.answer(arguments)


def accepted(arguments: JSONObject) -> Outcome:
    return Outcome(OutcomeKind.ACCEPTED, output_digest="d", output_bytes=3)


def rejected(arguments: JSONObject) -> Outcome:
    return Outcome(OutcomeKind.REJECTED, error_code="schema-range")


def crashed(arguments: JSONObject) -> Outcome:
    return Outcome(OutcomeKind.CRASH, message="KeyError")


def test_a_hostile_case_file_records_input_expectation_and_provenance() -> None:
    case = build_case(receipt(HOSTILE), HOSTILE)
    assert case == {
        "format": FORMAT,
        "tool": "renderPoster",
        "fingerprint": HOSTILE["fingerprint"],
        "failure": "hostile-accepted",
        "inputKind": "hostile",
        "path": "/width",
        "keyword": "maximum",
        "mutation": "bounds",
        "operator": "maximum:above-maximum@/width",
        "input": {"title": "a", "width": 401},
        "expected": {"outcome": "rejected", "inputValid": False, "invariant": "hostile-rejected"},
        "provenance": {
            "receiptHash": typed(receipt(HOSTILE)).receipt_hash,
            "seed": 41,
            "runs": 24,
            "stream": "hostile",
            "case": 21,
            "engineVersion": "9.9.9",
            "schemaDigest": "ab" * 32,
        },
    }
    assert canonical_document(case) == canonical_document(build_case(receipt(HOSTILE), HOSTILE))


def test_a_valid_crash_expects_acceptance() -> None:
    case = build_case(receipt(CRASH), CRASH)
    assert case["expected"] == {"outcome": "accepted", "inputValid": True, "invariant": "no-crash"}


def test_an_elided_input_is_refused_with_the_replay_coordinates() -> None:
    example = {**HOSTILE, "input": present({"title": "x" * 300, "width": 401})}
    with pytest.raises(ReceiptError) as caught:
        build_case(receipt(example), example)
    assert "elides part of its input" in caught.value.message
    assert "seed 41, runs 24, stream hostile, case 21" in caught.value.hint


def test_an_oracle_disagreement_is_not_promotable() -> None:
    example = {**HOSTILE, "failure": "oracle-disagreement"}
    with pytest.raises(ReceiptError, match="oracle disagreement"):
        build_case(receipt(example), example)


def seam(failure: str, error: dict[str, Any]) -> dict[str, Any]:
    return {
        **HOSTILE,
        "failure": failure,
        "inputKind": "seam",
        "mutation": "seam:unsafe-key:__proto__",
        "operator": "unsafe-key:__proto__",
        "path": "",
        "keyword": "",
        "error": error,
    }


def test_a_seam_probe_takes_its_validity_from_the_receipts_probes() -> None:
    example = seam("mutation-on-rejection", {"outcome": "rejected"})
    probe = {"name": "unsafe-key:__proto__", "path": "", "valid": False, "outcome": {"kind": "x"}}
    probes = [probe]
    case = doc(build_case(receipt(example, probes=probes), example))
    assert case["expected"]["inputValid"] is False and case["expected"]["outcome"] == "rejected"
    with pytest.raises(ReceiptError, match="does not say whether its input is schema-valid"):
        build_case(receipt(example), example)


def test_a_seam_crash_takes_its_validity_from_the_error() -> None:
    example = seam("crash", {"inputValid": True, "outcome": "crash"})
    assert doc(build_case(receipt(example), example))["expected"]["inputValid"] is True


def test_select_keeps_the_order_given_and_names_the_known_fingerprints() -> None:
    document = receipt(HOSTILE, CRASH)
    assert [c.fingerprint for c in select(document, [])] == [
        HOSTILE["fingerprint"],
        CRASH["fingerprint"],
    ]
    chosen = select(document, [CRASH["fingerprint"], CRASH["fingerprint"]])
    assert [c.fingerprint for c in chosen] == [CRASH["fingerprint"]]
    with pytest.raises(UsageError) as caught:
        select(document, ["feedface"])
    assert HOSTILE["fingerprint"] in caught.value.hint and CRASH["fingerprint"] in caught.value.hint


def test_case_locations_are_safe_names() -> None:
    assert case_location("renderPoster", "ab" * 12) == ("renderPoster", f"{'ab' * 12}.json")
    assert case_location("../../etc", "f" * 24)[0] == ".._.._etc"
    assert case_location("..", "f" * 24)[0] == "_.."
    assert case_location("a/b c", "f" * 24)[0] == "a_b_c"


def test_parse_round_trips_and_names_what_is_wrong() -> None:
    document = build_case(receipt(HOSTILE), HOSTILE)
    parsed = parse_case(document)
    assert (parsed.failure, parsed.path) == (Failure.HOSTILE_ACCEPTED, "/width")
    assert parsed.valid is False
    broken: list[tuple[Any, str]] = [
        ([], "a case file is a JSON object"),
        ({**document, "format": "toolfuzz-case/2"}, "format is not 'toolfuzz-case/1'"),
        ({**document, "input": "x"}, "member 'input' is missing or not an object"),
        ({k: v for k, v in document.items() if k != "tool"}, "member 'tool' is missing"),
        ({**document, "fingerprint": "../x"}, "is not 24 hex digits"),
        ({**document, "failure": "on-fire"}, "unknown failure class"),
        ({**document, "expected": {"outcome": "rejected"}}, "expected/inputValid"),
        ({**document, "provenance": {"stream": "hostile"}}, "provenance/stream"),
    ]
    for value, message in broken:
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            parse_case(value)


def case_of(example: dict[str, Any]) -> Any:
    return parse_case(build_case(receipt(example), example))


def test_a_hostile_case_still_fails_while_accepted_and_is_fixed_once_rejected() -> None:
    case = case_of(HOSTILE)
    lax = Scripted(accepted)
    replayed = replay_case(case, lax, TOOL)
    assert replayed.outcome == STILL_FAILING and replayed.observed == "accepted"
    assert lax.calls == [HOSTILE["input"]]
    assert replay_case(case, Scripted(rejected), TOOL).outcome == FIXED


def test_a_different_failure_is_changed() -> None:
    replayed = replay_case(case_of(HOSTILE), Scripted(crashed), TOOL)
    assert replayed.outcome == CHANGED
    assert [f.failure for f in replayed.findings] == [Failure.CRASH]


def test_a_valid_crash_is_judged_at_its_diagnosed_path() -> None:
    case = case_of(CRASH)
    crash = replay_case(case, Scripted(crashed), TOOL)
    assert crash.outcome == STILL_FAILING
    assert [(f.failure, f.path) for f in crash.findings] == [(Failure.CRASH, "/title")]
    # valid input rejected with a declared business code is a correct answer
    business = Scripted(lambda a: Outcome(OutcomeKind.REJECTED, error_code="policy-pixel-budget"))
    assert replay_case(case, business, TOOL).outcome == FIXED
    undeclared = replay_case(case, Scripted(rejected), TOOL)
    assert undeclared.outcome == CHANGED
    assert [f.failure for f in undeclared.findings] == [Failure.VALID_REJECTED]
    # a tool whose schema is not declared complete: the same rejection is a note, not a
    # failure, so the crash is fixed
    lax = ToolSpec("renderPoster")
    assert replay_case(case, Scripted(rejected), lax).outcome == FIXED


def test_regressions_fail_the_verdict_first_and_fixed_ones_do_not() -> None:
    passed = Verdict(False, ("coverage-drop: no baseline, nothing compared",))
    fixed = replay_case(case_of(HOSTILE), Scripted(rejected), TOOL)
    assert gate_on_regressions(passed, [fixed]) == passed
    again = replay_case(case_of(HOSTILE), Scripted(accepted), TOOL)
    changed = replay_case(case_of(HOSTILE), Scripted(crashed), TOOL)
    verdict = gate_on_regressions(passed, [fixed, again, changed])
    assert verdict.failed
    assert verdict.reasons == (
        "regression: 2 corpus case(s) fail again: renderPoster hostile-accepted at /width "
        "(still-failing); renderPoster hostile-accepted at /width (changed)",
        "coverage-drop: no baseline, nothing compared",
    )


def test_an_input_that_changed_sides_is_stale_and_not_run() -> None:
    case = case_of(HOSTILE)
    lax = Scripted(accepted)
    stale = replay_case(case, lax, TOOL, valid_now=True)
    assert (stale.outcome, stale.observed, lax.calls) == (STALE, "not-run", [])
    assert replay_case(case, lax, TOOL, valid_now=False).outcome == STILL_FAILING
    assert gate_on_regressions(Verdict(False, ()), [stale]) == Verdict(False, ())


def test_the_schema_judge_uses_the_current_schema_and_declines_refused_ones() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"width": {"type": "integer", "maximum": 400}},
    }
    judge = schema_judge(schema, SchemaOptions(), None)
    assert judge is not None
    assert (judge({"width": 401}), judge({"width": 400})) == (False, True)
    refused = {**schema, "contentSchema": {"required": ["width"]}}
    assert schema_judge(refused, SchemaOptions(), None) is None


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


@settings(max_examples=examples(60))
@given(st.dictionaries(st.text(max_size=6), _values, max_size=5))
def test_promotion_keeps_complete_inputs_exactly_and_refuses_elided_ones(
    arguments: dict[str, Any],
) -> None:
    recorded = present(arguments)
    example = {**HOSTILE, "input": recorded}
    if not is_complete(recorded):
        with pytest.raises(ReceiptError, match="elides part of its input"):
            build_case(receipt(example), example)
        return
    case = build_case(receipt(example), example)
    assert parse_case(json.loads(canonical_document(case))).input == recorded
    assert canonical_document(case) == canonical_document(build_case(receipt(example), example))


class SlowUnlessStretched(Scripted):
    """Overruns the configured timeout; answers within the longer budget when `hangs` is
    false (machine load), never when it is true (a real hang)."""

    def __init__(self, hangs: bool) -> None:
        super().__init__(accepted)
        self.hangs = hangs
        self.factor = 1.0

    def restart(self) -> None:
        pass

    def scale_timeout(self, factor: float) -> None:
        self.factor = factor

    def call(self, arguments: JSONObject) -> Outcome:
        self.calls.append(arguments)
        if self.hangs or self.factor == 1.0:
            return Outcome(OutcomeKind.TIMEOUT, message="no answer")
        return accepted(arguments)


def test_a_replayed_timeout_is_judged_with_the_longer_budget() -> None:
    timeout = {**CRASH, "failure": "timeout", "fingerprint": "0" * 24}
    timeout["error"] = {**CRASH["error"], "outcome": "timeout", "reason": "timeout"}
    case = case_of(timeout)
    loaded = SlowUnlessStretched(hangs=False)
    assert replay_case(case, loaded, TOOL).outcome == FIXED, "machine load fails nothing"
    # The call that timed out, then the stretched one with its replay and key-order calls.
    assert loaded.factor == 1.0 and len(loaded.calls) == 4
    assert replay_case(case, SlowUnlessStretched(hangs=True), TOOL).outcome == STILL_FAILING


def test_the_contract_is_read_back_with_its_rejection_code_checked() -> None:
    contract: dict[str, Any] = {"expectedRejections": ["not found"], "errorCodes": None}
    assert spec_from_receipt(typed({"tool": "t", "contract": contract})).rejection_code is None
    contract["rejectionCode"] = "(?P<code>not found)$"
    spec = spec_from_receipt(typed({"tool": "t", "contract": contract}))
    assert spec.rejection_code == "(?P<code>not found)$" and spec.rejection_pattern is not None
    contract["rejectionCode"] = "(not found)"
    with pytest.raises(ReceiptError, match="contract/rejectionCode: has no group named 'code'"):
        spec_from_receipt(typed({"tool": "t", "contract": contract}))
