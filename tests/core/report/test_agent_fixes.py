"""The PR comment's agent documentation section: model-written text shown inert."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.report.agent_fixes import FIX_ROWS, agent_fix_rows, render_agent_section


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
    rows = agent_fix_rows([_receipt(hostile)])
    (section,) = [p for p in render_agent_section(rows) if p.startswith("| tool")]
    row = section.splitlines()[-1]
    assert "<!--" not in row and "@octocat" not in row and "#1" not in row
    assert row.startswith("| geocode | Where is \\[A\\]? (Paris; Paris, France) | country |")
    assert row.endswith("| no (0.5 → 0.5) |")


def test_no_erroneous_set_no_section_and_rows_are_capped() -> None:
    assert render_agent_section(agent_fix_rows([{"tool": "t", "correctness": []}])) == []
    many = agent_fix_rows([_receipt(None, sets=FIX_ROWS + 2)])
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
    (section,) = [p for p in render_agent_section(agent_fix_rows([receipt])) if "| tool" in p]
    row = section.splitlines()[-1]
    assert "Find \\[A\\] near \\[B\\] (A: cafes, B: Paris; A: coffee shops, B: " in row
    assert "<b>" not in row
