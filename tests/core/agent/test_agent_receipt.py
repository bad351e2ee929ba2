"""What an agent run counts over its tools' results, and the lines it prints for them."""

from __future__ import annotations

from toolfuzz_gate.core.agent.agent_receipt import RUN_COUNTS, count_results
from toolfuzz_gate.core.agent.budget import Budget
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.report.agent_lines import render_run_totals, render_tool_lines

FINDINGS: list[JSONObject] = [
    {"outcome": "reachable", "kind": "counterexample", "failure": "crash", "path": "/a",
     "fingerprint": "f1", "prompt": "p1"},
    {"outcome": "reachable", "kind": "note", "failure": "under-specified", "path": "",
     "fingerprint": "f2", "prompt": "p2"},
    {"outcome": "not-reached", "kind": "counterexample", "failure": "crash", "path": "/b",
     "fingerprint": "f3", "prompt": "p3"},
]  # fmt: skip
PROBES: list[JSONObject] = [
    {"failing": True, "prompt": "q1", "failures": ["crash"]},
    {"failing": False, "prompt": "q2", "failures": []},
]
SETS: list[JSONObject] = [
    {"template": "t1", "erroneous": False},
    {"template": "t2", "erroneous": False, "recovered": [
        {"prompt": "r", "outcome": "rejected", "arguments": ["limit"]}]},
    {"template": None},
]  # fmt: skip


def test_a_tools_results_add_to_the_run_counts() -> None:
    counts = dict.fromkeys(RUN_COUNTS, 0)
    count_results(counts, FINDINGS, PROBES, SETS, unjudged=1, probes_missing=0)
    count_results(counts, FINDINGS[:1], [], [], unjudged=0, probes_missing=1)
    assert counts == {
        "findings": 4,
        "reachable": 3,
        "counterexamples": 2,
        "probes": 2,
        "failing": 1,
        "sets": 2,
        "erroneous": 0,
        "checks": 3 + 2 + 3 + 1 + 1,
        "unjudged": 1,
    }


def test_a_tools_lines_name_each_finding_failing_probe_and_recovery_then_the_unjudged() -> None:
    unjudged: list[JSONObject] = [{"check": "agent-reachable", "what": "probe", "reason": "r"}]
    lines = render_tool_lines("search", FINDINGS, PROBES, SETS, unjudged)
    assert [line.split(":")[0] for line in lines] == [
        "reachable",
        "reachable",
        "not-reached",
        "failing",
        "recovered",
        "unjudged",
    ]


def test_the_totals_say_the_unjudged_checks_only_when_there_are_some() -> None:
    counts = dict.fromkeys(RUN_COUNTS, 0)
    budget = Budget(max_requests=5, max_tokens=50)
    quiet = render_run_totals(counts, "out/agent", "fail", budget, 0, "replay")
    assert len(quiet) == 2 and quiet[0].endswith("; out/agent")
    assert quiet[1] == "llm: 0 of 5 request(s), 0 of 50 token(s) (replay)"
    counts.update(unjudged=2, checks=7)
    said = render_run_totals(counts, "out/agent", "note", budget, 3, "live")
    assert "could not judge 2 of 7 check(s)" in said[1] and "agent.unjudged: note" in said[1]
    assert said[2].endswith("3 without usage (estimated) (live)")
