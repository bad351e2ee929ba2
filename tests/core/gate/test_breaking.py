"""`fail_on: [breaking-change]` and `allow-breaking` (`core.gate.breaking`), from the policy
text to the verdict."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.gate.policy import GateRules
from toolfuzz_gate.core.gate.verdict import decide


def entry(tool: str, change: str, breaking: bool) -> dict[str, Any]:
    return {"tool": tool, "pointer": "", "change": change, "breaking": breaking, "evidence": None}


DIFF = {
    "tools": [],
    "interface": [
        entry("search", "bound-narrowed", True),
        entry("search", "enum-widened", False),
        entry("legacy", "tool-removed", True),
    ],
}


def test_breaking_changes_fail_nothing_unless_fail_on_lists_them() -> None:
    assert decide(GateRules(), [], DIFF).failed is False


def test_breaking_change_fails_on_each_breaking_entry_never_a_widening() -> None:
    verdict = decide(GateRules(fail_on=("breaking-change",)), [], DIFF)
    assert verdict.failed
    assert verdict.reasons == (
        "breaking-change: 2 breaking interface change(s): legacy (tool-removed); "
        "search (bound-narrowed)",
    )


def test_allow_breaking_accepts_the_named_tools_and_notes_them() -> None:
    rules = GateRules(fail_on=("breaking-change",), allow_breaking=("legacy", "search"))
    verdict = decide(rules, [], DIFF)
    assert not verdict.failed
    assert verdict.reasons == (
        "breaking-change: accepted by allow-breaking: legacy (tool-removed); "
        "search (bound-narrowed)",
    )
    one = decide(GateRules(fail_on=("breaking-change",), allow_breaking=("legacy",)), [], DIFF)
    assert one.failed and "search (bound-narrowed)" in one.reasons[0]
