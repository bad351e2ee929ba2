"""The PR comment's agent documentation section: model-written text shown inert."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.report.agent_fixes import (
    FIX_ROWS,
    agent_rows,
    render_agent_reached,
    render_agent_section,
)


def _receipt(suggestion: Any, sets: int = 1) -> dict[str, Any]:
    entry = {
        "template": "Where is [A]?",
        "infills": ["Paris", "Paris, France"],
        "erroneous": True,
        "underspecified": ["country"],
        "refinement": {
            "suggestion": suggestion,
            "failureRateBefore": 0.5,
            "failureRateAfter": 0.5,
            "verified": False,
        },
    }
    return {"tool": "geocode", "correctness": [{"template": None}, *([entry] * sets)]}


def test_a_hostile_suggestion_is_escaped_and_an_unverified_fix_says_so() -> None:
    hostile = {"description": None, "arguments": {"country": "<!-- x --> ping @octocat #1"}}
    rows = agent_rows([_receipt(hostile)])[1]
    (section,) = [p for p in render_agent_section(rows) if p.startswith("| state")]
    row = section.splitlines()[-1]
    assert "<!--" not in row and "@octocat" not in row and "#1" not in row
    assert row.startswith(
        "| on head | geocode | Where is \\[A\\]? (Paris; Paris, France) | country |"
    )
    assert row.endswith("| no (0.5 → 0.5) |")


def test_no_erroneous_set_no_section_and_rows_are_capped() -> None:
    assert render_agent_section(agent_rows([{"tool": "t", "correctness": []}])[1]) == []
    many = agent_rows([_receipt(None, sets=FIX_ROWS + 2)])[1]
    parts = render_agent_section(many)
    assert (
        parts[0] == f"<details><summary>Documentation: agent correctness ({FIX_ROWS + 2})</summary>"
    )
    assert parts[-2] == "_… 2 more prompt sets, see agent/._"
    assert parts[2].count("| — | — |") == FIX_ROWS
    assert render_agent_section(many, with_rows=False)[2].startswith("_12 prompt sets left out")


def test_a_two_slot_sets_rows_are_shown_slot_by_slot() -> None:
    receipt = _receipt({"description": "Geocode.", "arguments": {}})
    entry = receipt["correctness"][1] = dict(receipt["correctness"][1])
    entry["template"] = "Find [A] near [B]"
    entry["infills"] = [{"A": "cafes", "B": "Paris"}, {"A": "coffee shops", "B": "<b>Paris</b>"}]
    (section,) = [p for p in render_agent_section(agent_rows([receipt])[1]) if "| state" in p]
    row = section.splitlines()[-1]
    assert "Find \\[A\\] near \\[B\\] (A: cafes, B: Paris; A: coffee shops, B: " in row
    assert "<b>" not in row


def test_each_reached_counterexample_is_listed_with_the_prompt_that_reached_it() -> None:
    hostile = "<!-- x --> ::error:: ping @octocat see https://evil.example/ " + "x" * 500
    reached = {
        "kind": "counterexample",
        "agentReachable": True,
        "fingerprint": "69c8a3b551e4aa29103272c7",
        "failure": "crash",
        "path": "/country",
        "prompt": hostile,
    }
    probe = {"failing": True, "failures": ["crash", "timeout"], "prompt": "Geocode | Paris"}
    head = {"tool": "geocode", "findings": [reached], "documentationProbes": [probe]}
    base = {
        "tool": "geocode",
        "findings": [{**reached, "fingerprint": "0" * 24}],
        "documentationProbes": [],
    }
    rows, sets = agent_rows([head], [base])
    assert sets == ()
    (section,) = [p for p in render_agent_reached(rows) if p.startswith("| state")]
    new, probed, fixed = section.splitlines()[2:]
    assert new.startswith("| new | geocode | crash at /country (69c8a3b551e4aa29103272c7) | ")
    assert "<!--" not in new and "@octocat" not in new and "https://" not in new
    assert len(new) < 400  # the prompt is capped
    assert probed == "| new | geocode | documentation probe: crash, timeout | Geocode \\| Paris |"
    assert fixed.startswith("| fixed | geocode | crash at /country (000000000000000000000000) |")
    assert render_agent_reached(agent_rows([head])[0])[0] == (
        "<details><summary>Agent-reachable (2)</summary>"
    )


def test_an_erroneous_sets_prompts_are_listed_the_failing_ones_marked() -> None:
    receipt = _receipt({"description": "Geocode.", "arguments": {}})
    entry = receipt["correctness"][1] = dict(receipt["correctness"][1])
    entry["prompts"] = ["Where is Paris?", "Where is Paris, France?", "Where is <b>x</b>?"]
    entry["failingPrompts"] = ["Where is Paris?", "Where is <b>x</b>?"]
    (section,) = [p for p in render_agent_section(agent_rows([receipt])[1]) if "| state" in p]
    row = section.splitlines()[-1]
    assert (
        "| Where is \\[A\\]?: \u201cWhere is Paris?\u201d (fails); \u201cWhere is Paris, "
        "France?\u201d; \u201cWhere is &lt;b&gt;x&lt;/b&gt;?\u201d (fails) |" in row
    )
    entry["prompts"] = [f"prompt {i} " + "y" * 300 for i in range(10)]
    (section,) = [p for p in render_agent_section(agent_rows([receipt])[1]) if "| state" in p]
    assert len(section.splitlines()[-1]) < 1000  # the prompts' cell is capped
