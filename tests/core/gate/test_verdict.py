"""The verdict over hand-written head receipts and `toolfuzz-diff/1` documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.receipts import fingerprint_of, typed
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.breaking import BREAKING_CHANGE
from toolfuzz_gate.core.gate.policy import FAIL_ON, GateRules
from toolfuzz_gate.core.gate.reach_verdict import UNREACHED
from toolfuzz_gate.core.gate.verdict import AGENT_CHECKS, CHECKS, Verdict
from toolfuzz_gate.core.gate.verdict import decide as decide_typed
from toolfuzz_gate.core.schema.keywords import FAMILIES

DIFFS = Path(__file__).resolve().parents[2] / "fixtures" / "diffs"


def diff(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((DIFFS / f"{name}.json").read_text(encoding="utf-8"))
    return document


def decide(rules: GateRules, head: list[dict[str, Any]], *args: Any, **kwargs: Any) -> Verdict:
    """The verdict over hand-written head receipts, each read as a `Receipt` (a test's short
    fingerprint label made one of the engine's form)."""
    return decide_typed(rules, [_typed(r) for r in head], *args, **kwargs)


def _typed(partial: dict[str, Any]) -> Receipt:
    examples = [
        {**cx, "fingerprint": fingerprint_of(cx["fingerprint"])}
        for cx in partial.get("counterexamples", [])
    ]
    return typed({**partial, "counterexamples": examples})


def receipt(
    tool: str, failures: int = 0, unsupported: int = 0, seed: int = 41, **coverage: str
) -> dict[str, Any]:
    states = dict.fromkeys(FAMILIES, "tested")
    states.update({name.replace("_", "-"): state for name, state in coverage.items()})
    return {
        "tool": tool,
        "seed": seed,
        "coverage": states,
        "counterexamples": [{"fingerprint": f"{tool}-{i}"} for i in range(failures)],
        "unsupported": [
            {"keyword": "not", "path": f"/properties/p{i}/not"} for i in range(unsupported)
        ],
    }


def rules(*fail_on: str, **floors: str) -> GateRules:
    return GateRules(fail_on, tuple(sorted(floors.items())))


def test_every_fail_on_value_has_one_check() -> None:
    # the agent checks read agent receipts; unreached reads the policy's allowances too;
    # breaking-change the diff and the policy's allowances
    assert (*CHECKS, UNREACHED, *AGENT_CHECKS, BREAKING_CHANGE) == FAIL_ON


def test_invariant_fails_on_any_head_counterexample() -> None:
    head = [receipt("b", failures=2), receipt("a"), receipt("c", failures=1)]
    assert decide(rules("invariant"), head) == Verdict(
        True, ("invariant: counterexamples on head: 3 in b (2), c (1)",)
    )
    assert decide(rules("invariant"), [receipt("a"), receipt("b")]) == Verdict(False, ())


def test_invariant_ignores_the_baseline() -> None:
    head = [receipt("lax", failures=1)]
    assert decide(rules("invariant"), head, diff("known_failures")).failed


def test_new_counterexample_counts_only_what_base_lacks() -> None:
    head = [receipt("lax", failures=1)]
    assert decide(rules("new-counterexample"), head, diff("known_failures")) == Verdict(False, ())
    assert decide(rules("new-counterexample"), head, diff("regressed")) == Verdict(
        True, ("new-counterexample: not on base: 1 in lax (1)",)
    )


def test_new_counterexample_without_a_baseline_counts_every_one_and_says_so() -> None:
    note = "new-counterexample: no baseline, so every counterexample on head counts as new"
    assert decide(rules("new-counterexample"), [receipt("lax", failures=2)]) == Verdict(
        True, ("new-counterexample: not on base: 2 in lax (2)", note)
    )
    assert decide(rules("new-counterexample"), [receipt("lax")]) == Verdict(False, (note,))


def test_unsupported_keyword_fails_only_when_chosen() -> None:
    head = [receipt("refused", unsupported=3), receipt("fine")]
    assert decide(rules("unsupported-keyword"), head) == Verdict(
        True, ("unsupported-keyword: keywords the engine refuses: 3 in refused (3)",)
    )
    assert decide(rules("invariant"), head) == Verdict(False, ())


def test_coverage_drop_reads_the_diff() -> None:
    verdict = decide(rules("coverage-drop"), [receipt("lax")], diff("regressed"))
    assert verdict == Verdict(
        True,
        (
            "coverage-drop: 2 family(ies) no longer tested: lax enum tested -> not-applicable; "
            "removed_tool required tested -> absent",
        ),
    )
    assert decide(rules("coverage-drop"), [receipt("lax")], diff("known_failures")) == Verdict(
        False, ()
    )


def test_coverage_drop_without_a_baseline_compares_nothing() -> None:
    assert decide(rules("coverage-drop"), [receipt("lax", enum="not-applicable")]) == Verdict(
        False, ("coverage-drop: no baseline, nothing compared",)
    )


def test_min_coverage_floors() -> None:
    head = [receipt("a", enum="not-applicable"), receipt("b", pattern="unsupported")]
    assert decide(rules(enum="tested"), head) == Verdict(
        True, ("min_coverage: 1 below the floor: a (seed 41) enum is not-applicable",)
    )
    assert decide(rules(enum="not-applicable", pattern="not-applicable"), head) == Verdict(
        True, ("min_coverage: 1 below the floor: b (seed 41) pattern is unsupported",)
    )
    assert decide(rules(enum="not-applicable"), head) == Verdict(False, ())


def test_reasons_list_failures_before_notes_in_rule_order() -> None:
    head = [receipt("lax", failures=1, unsupported=1)]
    verdict = decide(rules(*FAIL_ON, required="tested"), head)
    assert verdict.failed
    assert [reason.partition(":")[0] for reason in verdict.reasons] == [
        "invariant",
        "new-counterexample",
        "unsupported-keyword",
        "new-counterexample",
        "coverage-drop",
        "breaking-change",
    ]


@pytest.mark.parametrize("fail_on", FAIL_ON)
def test_a_clean_head_against_itself_passes(fail_on: str) -> None:
    clean = {
        "format": "toolfuzz-diff/1",
        "base": {"ref": None, "sha": None},
        "head": {"ref": None, "sha": None},
        "tools": [
            {
                "tool": "a",
                "status": "unchanged",
                "schemaDigestChanged": False,
                "counterexamples": {"new": [], "fixed": [], "stillFailing": []},
                "unsupported": {"added": [], "removed": [], "still": []},
                "coverage": [],
                "invariants": [],
                "receipt": {"base": "a.json", "head": "a.json"},
            }
        ],
        "totals": dict.fromkeys(
            [
                "new",
                "fixed",
                "stillFailing",
                "unsupportedAdded",
                "unsupportedRemoved",
                "toolsAdded",
                "toolsRemoved",
                "coverageDrops",
            ],
            0,
        ),
    }
    assert decide(rules(fail_on), [receipt("a")], clean) == Verdict(False, ())


def refused_receipt(tool: str, *codes: str, seed: int = 41) -> dict[str, Any]:
    reasons = [{"code": code, "pointer": "", "message": "m"} for code in codes]
    return {**receipt(tool, seed=seed), "refused": {"code": codes[0], "reasons": reasons}}


def refusal_diff(tool: str, base: list[str], head: list[str], gone: int = 0) -> dict[str, Any]:
    """A diff entry as `core.gate.receipt_diff` writes one for a tool refused on head."""
    return {
        "tools": [
            {
                "tool": tool,
                "coverage": [],
                "counterexamples": {
                    "new": [],
                    "notRunOnHead": [{"fingerprint": f"{i:024x}"} for i in range(gone)],
                },
                "refused": {
                    "state": "new" if set(head) - set(base) else "still",
                    "added": sorted(set(head) - set(base)),
                    "base": [{"code": c} for c in base],
                    "head": [{"code": c} for c in head],
                },
            }
        ]
    }


LIMIT = "schema.limit-enum"


def test_a_refusal_fails_by_default_whatever_fail_on_lists() -> None:
    head = [refused_receipt("countries", LIMIT), receipt("fine")]
    assert decide(rules("invariant"), head) == Verdict(
        True,
        (
            "refused: 1 tool(s) not fuzzed, no baseline, every refusal counts as new: "
            "countries (schema.limit-enum)",
        ),
    )
    assert decide(rules(), head).failed


def test_a_refusal_base_already_had_is_noted_not_failed() -> None:
    head = [refused_receipt("countries", LIMIT)]
    verdict = decide(rules("invariant"), head, refusal_diff("countries", [LIMIT], [LIMIT]))
    assert verdict == Verdict(
        False, ("refused: still refused as on base: countries (schema.limit-enum)",)
    )
    other = refusal_diff("countries", ["schema.unsupported-keyword"], [LIMIT])
    assert decide(rules("invariant"), head, other).failed


def test_allow_refused_accepts_named_codes_per_tool_or_for_every_tool() -> None:
    head = [refused_receipt("countries", LIMIT)]
    for tool in ("*", "countries"):
        allowed = GateRules(("invariant",), (), ((tool, LIMIT),))
        assert decide(allowed, head) == Verdict(
            False, ("refused: allowed by the policy: countries (schema.limit-enum)",)
        )
    elsewhere = GateRules(("invariant",), (), (("other", LIMIT),))
    assert decide(elsewhere, head).failed
    both = [refused_receipt("countries", LIMIT, "schema.contradiction")]
    assert decide(GateRules(("invariant",), (), (("*", LIMIT),)), both).failed


def test_base_counterexamples_not_run_on_head_fail_unless_the_reason_is_allowed() -> None:
    head = [refused_receipt("lax", "schema.unsupported-keyword")]
    diff = refusal_diff("lax", [], ["schema.unsupported-keyword"], gone=5)
    verdict = decide(rules("new-counterexample"), head, diff)
    assert verdict.failed
    assert "not-run-on-head: base counterexamples head did not fuzz: 5 in lax (5)" in (
        verdict.reasons
    )
    allowed = GateRules(("new-counterexample",), (), (("lax", "schema.unsupported-keyword"),))
    assert not decide(allowed, head, diff).failed
    removed = refusal_diff("lax", [], [], gone=2)
    removed["tools"][0]["refused"] = {"state": None, "added": [], "base": [], "head": []}
    assert decide(rules("invariant"), [], removed).failed
    accepting = GateRules(("invariant",), (), (("*", "tool.removed"),))
    assert not decide(accepting, [], removed).failed


def flaky_receipt(tool: str, steady: int, flaky: int) -> dict[str, Any]:
    examples = [{"fingerprint": f"{tool}-s{i}", "flaky": False} for i in range(steady)]
    examples += [{"fingerprint": f"{tool}-f{i}", "flaky": True} for i in range(flaky)]
    return {**receipt(tool), "counterexamples": examples}


def test_a_flaky_counterexample_fails_the_gate_by_default() -> None:
    verdict = decide(rules("invariant"), [flaky_receipt("t", 0, 1)])
    assert verdict == Verdict(True, ("invariant: counterexamples on head: 1 in t (1)",))


def test_gate_flaky_note_notes_flaky_counterexamples_without_failing() -> None:
    noting = GateRules(("invariant", "new-counterexample"), flaky="note")
    only_flaky = decide(noting, [flaky_receipt("t", 0, 2)])
    assert not only_flaky.failed
    assert only_flaky.reasons[0].startswith("flaky: 2 counterexample(s) reproduced only")
    mixed = decide(GateRules(("invariant",), flaky="note"), [flaky_receipt("t", 1, 2)])
    assert mixed.failed
    assert mixed.reasons[0] == "invariant: counterexamples on head: 1 in t (1)"


def test_gate_flaky_note_leaves_flaky_new_counterexamples_of_the_diff_out() -> None:
    document = {
        "tools": [
            {
                "tool": "t",
                "counterexamples": {"new": [{"fingerprint": "f", "flaky": True}], "fixed": []},
            }
        ]
    }
    head = [flaky_receipt("t", 0, 1)]
    assert decide(rules("new-counterexample"), head, document).failed
    assert not decide(GateRules(("new-counterexample",), flaky="note"), head, document).failed


SKIP = "handler.task-required"


def test_a_skipped_tool_is_noted_and_never_fails_by_itself() -> None:
    head = [refused_receipt("research", SKIP), receipt("fine")]
    noted = ("skipped: 1 tool(s) not fuzzed, by design: research (handler.task-required)",)
    assert decide(rules("invariant"), head) == Verdict(False, noted)
    skipped_diff = refusal_diff("research", [], [SKIP])
    skipped_diff["tools"][0]["refused"].update(state="skipped", added=[])
    assert decide(rules("invariant"), head, skipped_diff) == Verdict(False, noted)
    mixed = [refused_receipt("research", SKIP, LIMIT)]
    assert decide(rules("invariant"), mixed).failed  # its other reason is a refusal


def test_base_counterexamples_a_skip_leaves_unrun_still_fail_unless_allowed() -> None:
    head = [refused_receipt("research", SKIP)]
    diff = refusal_diff("research", [], [SKIP], gone=1)
    diff["tools"][0]["refused"].update(state="skipped", added=[])
    assert decide(rules("invariant"), head, diff).failed
    allowed = GateRules(("invariant",), (), (("research", SKIP),))
    assert not decide(allowed, head, diff).failed


def test_a_skipped_tool_is_held_to_no_coverage_floor() -> None:
    floors = GateRules(("invariant",), (("bounds", "tested"),), (("*", LIMIT),))
    untested = {"coverage": dict.fromkeys(FAMILIES, "unsupported")}
    assert not decide(floors, [{**refused_receipt("research", SKIP), **untested}]).failed
    assert decide(floors, [{**refused_receipt("countries", LIMIT), **untested}]).failed


def test_a_state_dependent_hang_is_noted_and_a_state_dependent_crash_still_fails() -> None:
    marked = {"fresh": {"runs": 1, "failed": 0}, "note": "..."}
    slow = {"fingerprint": "a", "failure": "slow", "stateDependent": marked}
    crash = {"fingerprint": "b", "failure": "crash", "stateDependent": marked, "flaky": True}
    only_slow = decide(rules("invariant"), [{**receipt("t"), "counterexamples": [slow]}])
    assert not only_slow.failed
    assert only_slow.reasons[0].startswith("state-dependent: 1 timeout(s) only on the state")
    both = decide(rules("invariant"), [{**receipt("t"), "counterexamples": [slow, crash]}])
    assert both.failed
    assert both.reasons[0] == "invariant: counterexamples on head: 1 in t (1)"


def test_what_a_time_budget_or_the_breaker_cut_is_noted() -> None:
    cut = {"valid": 120, "hostile": 200, "seam": 4}
    budget = {
        "seconds": 60.0,
        "exhausted": True,
        "scope": "tool",
        "stoppedAt": {"stream": "valid", "case": 80},
        "notRun": cut,
        "shrinkCalls": 100,
        "note": "the tool's budget of 60 s ran out",
    }
    breaker = {
        "failure": "timeout",
        "after": 3,
        "stream": "valid",
        "case": 12,
        "note": "stopped the valid stream",
        "notRun": {"valid": 47, "hostile": 30, "seam": 4},
    }
    uncounted = {k: v for k, v in breaker.items() if k != "notRun"}  # 0.5.0's breaker
    verdict = decide(
        rules("invariant"),
        [
            {**receipt("a"), "budget": budget},
            {**receipt("b"), "breaker": breaker},
            {**receipt("c"), "budget": {"seconds": 60.0, "exhausted": False}},
            {**receipt("d"), "breaker": {**uncounted, "stream": "hostile"}},
        ],
    )
    assert not verdict.failed
    assert verdict.reasons == (
        "time budget: cut 1 tool(s): a (tool's 60.0 s; not run: 120 valid, 200 hostile, 4 seam)",
        "timeout breaker: cut 2 tool(s): b (valid stream; not run: 47 valid, 30 hostile, 4 seam);"
        " d (hostile stream; cases not run)",
    )
