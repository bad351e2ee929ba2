"""The agent checks of `fail_on`: judged on agent receipts, failing only when listed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolfuzz_gate.core.gate.agent_diff import diff_agent
from toolfuzz_gate.core.gate.policy import GateRules
from toolfuzz_gate.core.gate.verdict import decide


def _agent(reached: bool, failing: bool, erroneous: bool) -> dict[str, Any]:
    fix = {"verified": False}
    return {
        "tool": "geocode",
        "findings": [
            {"kind": "counterexample", "agentReachable": reached},
            {"kind": "note", "agentReachable": True},  # a note never counts
        ],
        "documentationProbes": [{"failing": failing}],
        "correctness": [
            {"template": None},
            {"erroneous": erroneous, "underspecified": ["country", "city"], "refinement": fix},
        ],
    }


def test_each_agent_check_fails_on_its_own_findings_only() -> None:
    both = GateRules(fail_on=("agent-reachable", "agent-correctness"))
    assert decide(both, [], None, [_agent(False, False, False)]).failed is False
    verdict = decide(both, [], None, [_agent(True, True, True)])
    assert verdict.reasons == (
        "agent-reachable: counterexamples an agent reaches and documentation probes failing: "
        "2 in geocode (2)",
        "agent-correctness: erroneous prompt sets: 1 in geocode (1); underspecified: geocode "
        "city, geocode country; description fixes verified: 0 of 1",
    )
    reachable = GateRules(fail_on=("agent-reachable",))
    assert decide(reachable, [], None, [_agent(False, False, True)]).failed is False
    assert decide(GateRules(fail_on=()), [], None, [_agent(True, True, True)]).failed is False


def test_an_unjudged_check_fails_its_own_agent_check_unless_the_policy_notes_it() -> None:
    receipt = _agent(False, False, False)
    receipt["health"] = {
        "unjudged": [
            {"check": "agent-correctness", "what": "prompt set 1", "reason": "unreadable"},
            {"check": "agent-correctness", "what": "prompt set 2", "reason": "unreadable"},
        ]
    }
    correctness = GateRules(fail_on=("agent-correctness",))
    verdict = decide(correctness, [], None, [receipt])
    assert verdict.failed is True
    assert verdict.reasons == (
        "agent-correctness: agent mode could not judge (the model's replies were unusable): "
        "2 in geocode (2)",
    )
    noted = decide(
        GateRules(fail_on=("agent-correctness",), agent_unjudged="note"), [], None, [receipt]
    )
    assert noted.failed is False and noted.reasons == verdict.reasons
    reachable = GateRules(fail_on=("agent-reachable",))
    assert decide(reachable, [], None, [receipt]).failed is False  # not its check
    del receipt["health"]  # a receipt from before 0.6.0 has none
    assert decide(correctness, [], None, [receipt]).failed is False


def _reached(fingerprint: str, path: str = "/country") -> dict[str, Any]:
    return {
        "kind": "counterexample",
        "agentReachable": True,
        "fingerprint": fingerprint,
        "failure": "crash",
        "path": path,
        "prompt": f"prompt for {fingerprint}",
    }


def _erroneous(*named: str, template: str = "Where is [A]?") -> dict[str, Any]:
    fix = {"verified": False}
    return {
        "erroneous": True,
        "template": template,
        "underspecified": list(named),
        "refinement": fix,
    }


def _receipt(findings: list[Any], sets: list[Any], probes: Sequence[Any] = ()) -> dict[str, Any]:
    return {
        "tool": "geocode",
        "findings": findings,
        "documentationProbes": list(probes),
        "correctness": sets,
    }


def test_agent_findings_are_diffed_against_the_base_by_identity_not_wording() -> None:
    base = _receipt(
        [_reached("aaa"), _reached("bbb")],
        [_erroneous("country", template="Where's [A]?")],
        [{"failing": True, "failures": ["crash"], "prompt": "old words"}],
    )
    head = _receipt(
        [_reached("aaa"), _reached("ccc", "/limit")],
        [_erroneous("country"), _erroneous("limit")],
        [{"failing": True, "failures": ["crash"], "prompt": "new words"}],
    )
    found = diff_agent([head], [base])
    assert [(f.label(), state) for f, state in found.head] == [
        ("geocode counterexample crash at /country (aaa)", "still"),
        ("geocode counterexample crash at /limit (ccc)", "new"),
        ("geocode documentation probe (crash)", "still"),  # another prompt, the same failure
        ("geocode prompt set naming country", "still"),  # another template, the same argument
        ("geocode prompt set naming limit", "new"),
    ]
    assert [f.label() for f in found.fixed] == ["geocode counterexample crash at /country (bbb)"]
    both = GateRules(fail_on=("agent-reachable", "agent-correctness"))
    verdict = decide(both, [], None, [head], agent_base=[base])
    assert verdict.failed is True  # a still-reached finding fails, as `invariant` does
    assert verdict.reasons == (
        "agent-reachable: counterexamples an agent reaches and documentation probes failing: "
        "3 in geocode (3); against the base: 1 new, 2 still",
        "agent-correctness: erroneous prompt sets: 2 in geocode (2); underspecified: geocode "
        "country, geocode limit; description fixes verified: 0 of 2; against the base: 1 new, "
        "1 still",
        "agent-reachable: fixed against the base: geocode counterexample crash at /country (bbb)",
    )


def test_without_base_agent_receipts_nothing_is_diffed_and_the_reasons_are_unchanged() -> None:
    head = _receipt([_reached("aaa")], [])
    found = diff_agent([head], None)
    assert found.against_base is False and [s for _, s in found.head] == [None]
    rules = GateRules(fail_on=("agent-reachable",))
    assert (
        decide(rules, [], None, [head]).reasons
        == decide(rules, [], None, [head], agent_base=None).reasons
    )
    assert "against the base" not in decide(rules, [], None, [head]).reasons[0]
    # all fixed: head reaches nothing the base reached; the check holds and notes them
    fixed = decide(rules, [], None, [_receipt([], [])], agent_base=[head])
    assert fixed.failed is False
    assert fixed.reasons == (
        "agent-reachable: fixed against the base: geocode counterexample crash at /country (aaa)",
    )
