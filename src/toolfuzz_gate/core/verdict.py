"""The verdict: does the gate pass, given the rules, head's receipts and the diff (pure).

One check per `fail_on` value in `CHECKS`, plus the `min_coverage` floors. A check
returns the reasons the gate fails (empty: it holds) and notes that explain without
failing (no baseline to compare against, for instance). The diff is the
`toolfuzz-diff/1` document (head against base); without one there is no baseline:
`new-counterexample` counts every head counterexample as new and `coverage-drop`
compares nothing, and the verdict says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.policy import GateRules

COVERAGE_RANK = {"unsupported": 0, "not-applicable": 1, "tested": 2}
"""The order of a family's coverage states, for `min_coverage` floors."""

Receipts = Sequence[dict[str, Any]]
Outcome = tuple[list[str], list[str]]
"""(reasons the gate fails, notes)."""


@dataclass(frozen=True)
class Verdict:
    failed: bool
    reasons: tuple[str, ...]
    """Why it failed, then notes on what could not be judged; deterministic order."""


def decide(rules: GateRules, head: Receipts, diff: dict[str, Any] | None = None) -> Verdict:
    failures: list[str] = []
    notes: list[str] = []
    if rules.flaky == "note":
        head, diff, notes = _without_flaky(head, diff)
    for name in rules.fail_on:
        failed, noted = CHECKS[name](head, diff)
        failures += failed
        notes += noted
    failures += _floors(rules.min_coverage, head)
    return Verdict(bool(failures), (*failures, *notes))


def _without_flaky(
    head: Receipts, diff: dict[str, Any] | None
) -> tuple[Receipts, dict[str, Any] | None, list[str]]:
    """Head and diff without their flaky counterexamples (`gate.flaky: note`), and the note."""

    def steady(examples: list[Any]) -> list[Any]:
        return [c for c in examples if not (isinstance(c, dict) and c.get("flaky") is True)]

    flaky = sum(len(r["counterexamples"]) - len(steady(r["counterexamples"])) for r in head)
    head = [{**r, "counterexamples": steady(r["counterexamples"])} for r in head]
    if diff is not None:
        tools = [
            {
                **t,
                "counterexamples": {
                    **t["counterexamples"],
                    "new": steady(t["counterexamples"]["new"]),
                },
            }
            for t in diff["tools"]
        ]
        diff = {**diff, "tools": tools}
    note = f"flaky: {flaky} counterexample(s) reproduced only sometimes; noted, not failing"
    return head, diff, [f"{note} (gate.flaky: note)"] if flaky else []


def _counted(label: str, per_tool: dict[str, int]) -> str:
    total = sum(per_tool.values())
    tools = ", ".join(f"{tool} ({count})" for tool, count in sorted(per_tool.items()))
    return f"{label}: {total} in {tools}"


def _tally(items: Sequence[tuple[str, int]]) -> dict[str, int]:
    per_tool: dict[str, int] = {}
    for tool, count in items:
        if count:
            per_tool[tool] = per_tool.get(tool, 0) + count
    return per_tool


def _invariant(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    per_tool = _tally([(r["tool"], len(r["counterexamples"])) for r in head])
    if not per_tool:
        return [], []
    return [_counted("invariant: counterexamples on head", per_tool)], []


def _new_counterexample(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    if diff is None:
        per_tool = _tally([(r["tool"], len(r["counterexamples"])) for r in head])
        note = "new-counterexample: no baseline, so every counterexample on head counts as new"
        failed = [_counted("new-counterexample: not on base", per_tool)] if per_tool else []
        return failed, [note]
    per_tool = _tally([(t["tool"], len(t["counterexamples"]["new"])) for t in diff["tools"]])
    if not per_tool:
        return [], []
    return [_counted("new-counterexample: not on base", per_tool)], []


def _unsupported_keyword(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    per_tool = _tally([(r["tool"], len(r["unsupported"])) for r in head])
    if not per_tool:
        return [], []
    return [_counted("unsupported-keyword: keywords the engine refuses", per_tool)], []


def _coverage_drop(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    if diff is None:
        return [], ["coverage-drop: no baseline, nothing compared"]
    drops = [
        f"{entry['tool']} {change['family']} {change['base']} -> {change['head'] or 'absent'}"
        for entry in diff["tools"]
        for change in entry["coverage"]
        if change["base"] == "tested" and change["head"] != "tested"
    ]
    if not drops:
        return [], []
    return [f"coverage-drop: {len(drops)} family(ies) no longer tested: {'; '.join(drops)}"], []


def _floors(floors: Sequence[tuple[str, str]], head: Receipts) -> list[str]:
    below = []
    for receipt in sorted(head, key=lambda r: (r["tool"], r["seed"])):
        coverage = receipt["coverage"]
        for family, floor in floors:
            state = coverage.get(family, "unsupported")
            if COVERAGE_RANK.get(state, 0) < COVERAGE_RANK[floor]:
                below.append(f"{receipt['tool']} (seed {receipt['seed']}) {family} is {state}")
    if not below:
        return []
    return [f"min_coverage: {len(below)} below the floor: {'; '.join(below)}"]


CHECKS: dict[str, Callable[[Receipts, dict[str, Any] | None], Outcome]] = {
    "invariant": _invariant,
    "new-counterexample": _new_counterexample,
    "unsupported-keyword": _unsupported_keyword,
    "coverage-drop": _coverage_drop,
}
