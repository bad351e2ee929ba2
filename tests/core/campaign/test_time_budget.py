"""`core.campaign.time_budget`: a campaign out of time stops generating, still settles what it
found, and its receipt says what was not run. The clock is a counter here: one tick per
reading, so where the budget runs out is known."""

from __future__ import annotations

from typing import Any

from tests.core.campaign.test_saturation import TEXT_SCHEMA, Counting, CrashOnSpaces
from tests.documents import doc
from toolfuzz_gate.core.campaign.time_budget import SHRINK_CALLS_AFTER, Budget, earliest
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz


class Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def run(handler: Counting, budget: Budget | None, *, saturation: bool = False) -> FuzzResult:
    return fuzz(
        TEXT_SCHEMA,
        handler,
        ToolSpec("t"),
        FuzzConfig(41, 200, saturation=saturation),
        handler_label={"spec": "test"},
        replay_command="toolfuzz-gate run",
        budget=budget,
    )


def test_an_exhausted_budget_stops_generating_and_says_what_was_not_run() -> None:
    clock = Ticks()
    result = run(Counting(), Budget(clock, 31.0, "tool", tool_s=30.0))
    receipt = doc(result.receipt)
    budget: Any = receipt["budget"]
    assert budget["exhausted"] is True and budget["scope"] == "tool"
    assert budget["stoppedAt"] == {"stream": "valid", "case": receipt["cases"]["valid"]}
    assert 0 < receipt["cases"]["valid"] < 200
    assert budget["notRun"]["valid"] == 200 - receipt["cases"]["valid"]
    assert budget["notRun"]["hostile"] > 0 and budget["notRun"]["seam"] > 0
    assert receipt["cases"]["hostile"] == receipt["cases"]["seam"] == 0
    assert budget["shrinkCalls"] == SHRINK_CALLS_AFTER
    assert "30 s" in budget["note"] and "notRun" in budget["note"]
    assert receipt["coverage"]["type"] == "untested"


def test_findings_made_before_the_budget_ran_out_are_still_settled() -> None:
    whole = doc(run(CrashOnSpaces(), None).receipt)
    crash = [c for c in whole["counterexamples"] if c["failure"] == "crash"]
    stop_after = crash[0]["replay"]["case"] + 1
    # the campaign reads the clock once per valid case before it runs it
    clock = Ticks()
    cut = doc(run(CrashOnSpaces(), Budget(clock, stop_after + 1.5, "run", run_s=9.0)).receipt)
    assert cut["budget"]["exhausted"] is True and cut["budget"]["scope"] == "run"
    assert [c["fingerprint"] for c in cut["counterexamples"] if c["failure"] == "crash"] == [
        crash[0]["fingerprint"]
    ]
    shrunk = next(c for c in cut["counterexamples"] if c["failure"] == "crash")
    assert shrunk["reproduced"]["runs"] > 1


def test_a_budget_that_did_not_run_out_changes_nothing_but_its_member() -> None:
    without = doc(run(Counting(), None).receipt)
    budget = Budget(Ticks(), 1e9, "run", tool_s=2e9, run_s=600.0)
    within = doc(run(Counting(), budget).receipt)
    # which of the two would have ended first is not said: it depends on when it started
    assert within.pop("budget") == {"seconds": 2e9, "runSeconds": 600.0, "exhausted": False}
    for member in ("receiptHash", "budget"):
        without.pop(member, None)
        within.pop(member, None)
    assert within == without


def test_the_budget_that_ends_first_applies() -> None:
    def clock() -> float:
        return 100.0

    assert earliest(clock, None, None, None) is None
    own = earliest(clock, 30.0, 200.0, 500.0)
    assert own is not None and (own.scope, own.ends_at, own.seconds) == ("tool", 130.0, 30.0)
    assert (own.tool_s, own.run_s) == (30.0, 500.0)
    run_wide = earliest(clock, 30.0, 120.0, 500.0)
    assert run_wide is not None and (run_wide.scope, run_wide.seconds) == ("run", 500.0)
    alone = earliest(clock, None, 120.0, 500.0)
    assert alone is not None and (alone.scope, alone.tool_s) == ("run", None)
