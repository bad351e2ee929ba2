"""The agent checks of `fail_on`: judged on agent receipts, failing only when listed."""

from __future__ import annotations

from typing import Any

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
