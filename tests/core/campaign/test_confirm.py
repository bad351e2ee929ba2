"""`core.campaign.confirm` in the engine: every independent failure reported, shrinking that keeps
the
cause, counterexamples confirmed by replay (flaky ones marked, timeouts that answer given
more time dismissed) and the timeout breaker, over tiny in-process handlers.

The same properties against real subprocesses are in `tests/cli/test_confirm.py`.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.documents import doc
from toolfuzz_gate.core.campaign.checks import ALL_CHECKS
from toolfuzz_gate.core.campaign.confirm import FOUND_ONCE, Reproduction
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind, Replaying
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.gate.policy import GateRules
from toolfuzz_gate.core.gate.verdict import decide
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size

SCHEMA: JSONObject = {
    "type": "object",
    "properties": {"path": {"type": "string", "maxLength": 40}},
    "required": ["path"],
    "additionalProperties": False,
}
TOOL = ToolSpec("files", checks=ALL_CHECKS)


def accepted(arguments: JSONObject) -> Outcome:
    output_digest, size = digest_and_size(arguments)
    return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def rejected_if_hostile(arguments: JSONObject) -> Outcome | None:
    path = arguments.get("path")
    if set(arguments) != {"path"} or not isinstance(path, str) or len(path) > 40:
        return Outcome(OutcomeKind.REJECTED, error_code="schema-invalid")
    return None


class Counting:
    """A handler that can be restarted and given longer timeouts, and counts both."""

    def __init__(self) -> None:
        self.calls = 0
        self.restarts = 0
        self.restarted_at = 0
        self.factor = 1.0

    def restart(self) -> None:
        self.restarts += 1
        self.restarted_at = self.calls

    def scale_timeout(self, factor: float) -> None:
        self.factor = factor

    def call(self, arguments: JSONObject) -> Outcome:
        self.calls += 1
        return rejected_if_hostile(arguments) or self.answer(arguments)

    def answer(self, arguments: JSONObject) -> Outcome:
        return accepted(arguments)


class FileSystem(Counting):
    """Two bugs: a long path fails with ENAMETOOLONG, any other with EISDIR (as seen on a
    real server, where the first shrank into the second)."""

    def answer(self, arguments: dict[str, Any]) -> Outcome:
        path = arguments["path"]
        if len(path) > 10:
            return Outcome(OutcomeKind.CRASH, message=f"Error: ENAMETOOLONG: open '{path}'")
        return Outcome(OutcomeKind.CRASH, message="Error: EISDIR: illegal operation, read")


class PatternRules(Counting):
    """Rejects valid calls with the generic code, for two different reasons."""

    def answer(self, arguments: dict[str, Any]) -> Outcome:
        path = arguments["path"]
        reason = f"pattern too long: {len(path)} > 10" if len(path) > 10 else "nothing matched"
        return Outcome(OutcomeKind.REJECTED, error_code="tool-error", message=reason)


class CodedRules(Counting):
    """Rejects valid calls with two declared-looking codes, one per reason."""

    def answer(self, arguments: dict[str, Any]) -> Outcome:
        code = "name-too-long" if len(arguments["path"]) > 10 else "is-a-directory"
        return Outcome(OutcomeKind.REJECTED, error_code=code, message=f"{code}: 12 bytes")


class CrashOneCallInThree(Counting):
    def call(self, arguments: JSONObject) -> Outcome:
        if (self.calls + 1) % 3 == 0:
            self.calls += 1
            return Outcome(OutcomeKind.CRASH, message="RuntimeError: pool lost")
        return super().call(arguments)


class SlowUnderLoad(Counting):
    """Every valid call overruns the configured timeout, and answers within three times it."""

    def answer(self, arguments: JSONObject) -> Outcome:
        if self.factor < 2:
            return Outcome(OutcomeKind.TIMEOUT, message="no answer within 2 s")
        return accepted(arguments)


class AlwaysHangs(Counting):
    def call(self, arguments: JSONObject) -> Outcome:
        self.calls += 1
        return Outcome(OutcomeKind.TIMEOUT, message="no answer")


def run(handler: Any, runs: int = 12, **options: Any) -> FuzzResult:
    return fuzz(
        SCHEMA,
        handler,
        TOOL,
        FuzzConfig(41, runs),
        handler_label={"spec": type(handler).__name__},
        replay_command="toolfuzz-gate fuzz",
        **options,
    )


def by_cause(result: FuzzResult, failure: str) -> dict[str, Any]:
    return {
        c["cause"]: c for c in doc(result.receipt)["counterexamples"] if c["failure"] == failure
    }


def test_two_independent_crashes_are_both_reported_each_with_its_own_fingerprint() -> None:
    result = run(FileSystem())
    crashes = by_cause(result, "crash")
    assert set(crashes) == {"ENAMETOOLONG", "EISDIR"}
    assert crashes["ENAMETOOLONG"]["fingerprint"] != crashes["EISDIR"]["fingerprint"]


def test_shrinking_refuses_a_step_into_another_exception() -> None:
    crash = by_cause(run(FileSystem()), "crash")["ENAMETOOLONG"]
    # Every path of ten characters or fewer crashes too, with EISDIR: shrinking by class and
    # path alone would have ended at "" and reported the other bug under this one's name.
    assert len(crash["input"]["path"]) == 11, crash
    assert "ENAMETOOLONG" in crash["error"]["message"]


def test_shrinking_refuses_a_step_into_another_rejection_reason() -> None:
    rejections = by_cause(run(PatternRules()), "valid-rejected")
    long_one = rejections["tool-error pattern too long"]
    assert len(long_one["input"]["path"]) == 11, long_one
    assert "tool-error nothing matched" in rejections


def test_shrinking_refuses_a_step_into_another_rejection_code() -> None:
    rejections = by_cause(run(CodedRules()), "valid-rejected")
    assert set(rejections) == {"name-too-long", "is-a-directory"}
    assert len(rejections["name-too-long"]["input"]["path"]) == 11


def test_a_deterministic_failure_is_confirmed_by_two_replays_in_a_fresh_process() -> None:
    handler = FileSystem()
    result = run(handler, runs=4)
    examples = doc(result.receipt)["counterexamples"]
    for example in examples:
        assert example["reproduced"] == {"runs": 3, "failed": 3}
        assert example["flaky"] is False
    # One restart, after the campaign and the shrinking, before the replays.
    assert handler.restarts == 1
    assert doc(result.receipt)["invariants"]["no-crash"] is False
    assert handler.calls - handler.restarted_at >= 2 * len(examples)


def test_a_crash_on_one_call_in_three_is_reported_flaky_and_still_fails_the_gate() -> None:
    result = run(CrashOneCallInThree())
    crashes = [c for c in doc(result.receipt)["counterexamples"] if c["failure"] == "crash"]
    assert crashes
    for crash in crashes:
        assert crash["flaky"] is True, crash
        assert crash["reproduced"]["runs"] == 3
        assert 1 <= crash["reproduced"]["failed"] < 3
    assert decide(GateRules(), [result.receipt]).failed


def test_a_timeout_that_answers_with_a_longer_budget_is_not_reported() -> None:
    handler = SlowUnderLoad()
    result = run(handler, clock=iter(range(100)).__next__)
    assert doc(result.receipt)["counterexamples"] == []
    assert doc(result.receipt)["invariants"]["no-timeout"] is True
    # Every valid call (the valid cases and the valid seam probes) overran, and was let off.
    assert doc(result.receipt)["diagnostics"]["dismissedTimeouts"] >= result.counts["valid"]
    assert handler.factor == 1.0, "the longer budget is for the replay only"
    assert not decide(GateRules(), [result.receipt]).failed


def test_the_breaker_stops_a_tool_that_always_times_out_with_one_finding() -> None:
    handler = AlwaysHangs()
    result = run(handler, runs=50)
    [timeout] = doc(result.receipt)["counterexamples"]
    assert timeout["failure"] == "hung"
    assert timeout["reproduced"] == {"runs": 3, "failed": 3}
    assert doc(result.receipt)["breaker"]["after"] == 3
    # After the breaker the near-misses run with the short timeout; three of them hang too.
    assert doc(result.receipt)["cases"] == {"valid": 3, "hostile": 3, "seam": 0}
    # Three cases, the first replayed with the longer budget and once more with far more
    # (the next two are the same hang), three near-misses, then one more replay to confirm
    # the counterexample: no shrinking and no search for the member at fault (every
    # question would cost a timeout).
    assert handler.calls == 3 + 2 + 3 + 1
    assert "untested" in doc(result.receipt)["coverage"].values()


class HangsOnValidCalls(Counting):
    """Refuses a call its schema forbids at once; hangs on every other."""

    def answer(self, arguments: JSONObject) -> Outcome:
        return Outcome(OutcomeKind.TIMEOUT, message="no answer")


def test_after_the_breaker_the_near_misses_still_run_with_the_short_timeout() -> None:
    handler = HangsOnValidCalls()
    receipt = doc(run(handler, runs=50).receipt)
    breaker = receipt["breaker"]
    assert breaker["stream"] == "valid" and breaker["after"] == 3
    # Every operator met its first bases, each refused: the hostile families are tested.
    assert receipt["cases"]["valid"] == 3
    assert receipt["cases"]["hostile"] == breaker["hostileAfter"]["ran"] > 0
    assert breaker["hostileAfter"]["timedOut"] == 0
    assert breaker["hostileAfter"]["timeoutFactor"] == 0.25
    assert "untested" not in receipt["coverage"].values()
    assert receipt["coverage"]["type"] == "tested"
    # What the breaker cut: the rest of the valid stream, the later rounds of near-misses
    # and the seam probes.
    assert breaker["notRun"]["valid"] == 47
    assert breaker["notRun"]["hostile"] > 0
    assert handler.factor == 1.0, "the short timeout is for the near-misses only"


def test_receipts_with_confirmed_findings_stay_byte_identical() -> None:
    first, second = run(FileSystem()), run(FileSystem())
    assert first.receipt == second.receipt
    assert doc(first.receipt)["receiptHash"] == doc(second.receipt)["receiptHash"]


@pytest.mark.parametrize(
    ("evidence", "flaky", "dismissed"),
    [
        (Reproduction(3, 3), False, False),
        (Reproduction(3, 2), True, True),
        (Reproduction(3, 0), False, True),
    ],
)
def test_reproduction(evidence: Reproduction, flaky: bool, dismissed: bool) -> None:
    assert evidence.flaky is flaky
    assert evidence.dismissed is dismissed
    assert FOUND_ONCE + evidence == Reproduction(evidence.runs + 1, evidence.failed + 1)


def test_the_test_handlers_offer_the_replaying_seam() -> None:
    assert isinstance(FileSystem(), Replaying)
