"""The verdict: does the gate pass, given the rules, head's receipts and the diff (pure).

One check per `fail_on` value in `CHECKS`, plus the `min_coverage` floors. A check
returns the reasons the gate fails (empty: it holds) and notes that explain without
failing (no baseline to compare against, for instance). The diff is the
`toolfuzz-diff/1` document (head against base); without one there is no baseline:
`new-counterexample` counts every head counterexample as new and `coverage-drop`
compares nothing, and the verdict says so.

Two rules hold whatever `fail_on` lists, because a pull request must not be able to pass
by making the gate test less: a refused tool (`core.campaign.refusal`) fails the gate when its
refusal is new against the base (any refusal, without a base), and a base counterexample
that head did not run (the tool refused or removed on head) fails it too. A refusal base
already had is noted as still refused. The policy's `allow-refused` items accept named
codes, per tool or for every tool (`tool.removed` for a tool head no longer has). A skip
(`core.campaign.refusal.SKIPS`: an MCP tool that requires task augmentation) is noted,
never failing by itself (nor held to the `min_coverage` floors); base counterexamples it
leaves unrun still fail `not-run-on-head` unless `allow-refused` names its code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.campaign.findings import HANGS
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_ledgers import NOT_RUN_STREAMS, NotRun
from toolfuzz_gate.core.campaign.receipt_members import RecordedCounterexample
from toolfuzz_gate.core.campaign.refusal import TOOL_REMOVED, is_skip
from toolfuzz_gate.core.gate.agent_diff import diff_agent
from toolfuzz_gate.core.gate.agent_verdict import AGENT_CHECKS as AGENT_CHECKS  # the gate's checks
from toolfuzz_gate.core.gate.agent_verdict import agent_check
from toolfuzz_gate.core.gate.breaking import BREAKING_CHANGE, breaking_changes
from toolfuzz_gate.core.gate.policy import GateRules
from toolfuzz_gate.core.gate.reach_verdict import UNREACHED, entries_of, unreached_check
from toolfuzz_gate.core.gate.receipt_diff import receipt_keys
from toolfuzz_gate.core.gate.tally import Outcome
from toolfuzz_gate.core.gate.tally import Receipts as AgentReceipts
from toolfuzz_gate.core.gate.tally import counted as _counted
from toolfuzz_gate.core.gate.tally import tally as _tally

COVERAGE_RANK = {"unsupported": 0, "not-applicable": 1, "tested": 2}
"""The order of a family's coverage states, for `min_coverage` floors."""

Receipts = Sequence[Receipt]
"""Head's receipts; the agent receipts (`toolfuzz-agent/1`) are `AgentReceipts`."""


@dataclass(frozen=True)
class Verdict:
    failed: bool
    reasons: tuple[str, ...]
    """Why it failed, then notes on what could not be judged; deterministic order."""


def decide(
    rules: GateRules,
    head: Receipts,
    diff: dict[str, Any] | None = None,
    agent: AgentReceipts = (),
    *,
    agent_unavailable: str | None = None,
    agent_base: AgentReceipts | None = None,
) -> Verdict:
    """`agent`: the agent receipts (`toolfuzz-agent/1`) of head's run, when `fail_on`
    lists an agent check (`AGENT_CHECKS`) and agent mode ran; `agent_unavailable`: why
    agent mode could not run (the model's `llm.*` error), which, like a check the model kept
    agent mode from judging, fails each agent check unless `agent.unjudged` is `note`;
    `agent_base`: the base's agent receipts, when stored ones were at hand: each agent
    check's reason then says how many of its findings are new and which the base had that
    head fixed (`core.gate.agent_diff`). Agent findings fail their check whether new or not,
    as `invariant` fails on every counterexample."""
    failures: list[str] = []
    notes: list[str] = []
    head, diff, notes = _without_state_dependent(head, diff)
    if rules.flaky == "note":
        head, diff, flaky = _without_flaky(head, diff)
        notes += flaky
    agent_diff = diff_agent(agent, agent_base)
    for name in rules.fail_on:
        if name in AGENT_CHECKS:
            failed, noted = agent_check(name, rules, agent, agent_unavailable, agent_diff)
        elif name == UNREACHED:
            failed, noted = unreached_check(rules.may_be_unreached, entries_of(head))
        elif name == BREAKING_CHANGE:
            failed, noted = breaking_changes(rules.allow_breaking, diff)
        else:
            failed, noted = CHECKS[name](head, diff)
        failures += failed
        notes += noted
    failed, noted = _refused(rules, head, diff)
    failures += failed
    notes += noted
    failures += _not_run_on_head(rules, diff)
    failures += _floors(rules.min_coverage, head)
    notes += _cut(head)
    return Verdict(bool(failures), (*failures, *notes))


def _cut(head: Receipts) -> list[str]:
    """Notes naming the tools whose cases a time budget or the timeout breaker cut short,
    with how many cases of each stream were not run: a pass says less about those."""
    budgets: list[str] = []
    breakers: list[str] = []
    for key, receipt in sorted(zip(receipt_keys(head), head, strict=True)):
        cut = receipt.budget.cut if receipt.budget is not None else None
        if receipt.budget is not None and cut is not None:
            seconds = receipt.budget.cut_seconds
            budgets.append(f"{key} ({cut.scope}'s {seconds} s; {_not_run(cut.not_run)})")
        breaker = receipt.breaker
        if breaker is not None:
            breakers.append(f"{key} ({breaker.stream} stream; {_not_run(breaker.not_run)})")
    notes = []
    if budgets:
        notes.append(f"time budget: cut {len(budgets)} tool(s): {'; '.join(budgets)}")
    if breakers:
        notes.append(f"timeout breaker: cut {len(breakers)} tool(s): {'; '.join(breakers)}")
    return notes


def _not_run(counts: NotRun | None) -> str:
    if counts is None:  # a breaker from before the cases it cut were counted
        return "cases not run"
    shown = ", ".join(f"{counts[s]} {s}" for s in NOT_RUN_STREAMS if s in counts)
    return f"not run: {shown}"


def _refused(rules: GateRules, head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    """Head's refusals: new ones fail unless allowed, ones base had are noted."""
    base_codes: dict[str, set[str]] = {}
    for entry in diff["tools"] if diff is not None else []:
        refused = entry.get("refused") or {}
        base_codes[entry["tool"]] = {str(r.get("code")) for r in refused.get("base", [])}
    new: list[str] = []
    still: list[str] = []
    allowed: list[str] = []
    skips: list[str] = []
    for key, receipt in sorted(zip(receipt_keys(head), head, strict=True)):
        codes = receipt.refusal_codes
        if any(is_skip(c) for c in codes):
            skips.append(f"{key} ({', '.join(c for c in codes if is_skip(c))})")
        codes = [c for c in codes if not is_skip(c)]
        fresh = [c for c in codes if c not in base_codes.get(key, set())]
        blocking = [c for c in fresh if not rules.allows(receipt.tool, c)]
        if blocking:
            new.append(f"{key} ({', '.join(blocking)})")
        elif fresh:
            allowed.append(f"{key} ({', '.join(fresh)})")
        elif codes:
            still.append(f"{key} ({', '.join(codes)})")
    against = "no baseline, every refusal counts as new" if diff is None else "not on base"
    failed = [f"refused: {len(new)} tool(s) not fuzzed, {against}: {'; '.join(new)}"]
    notes = []
    if still:
        notes.append(f"refused: still refused as on base: {'; '.join(still)}")
    if allowed:
        notes.append(f"refused: allowed by the policy: {'; '.join(allowed)}")
    if skips:
        notes.append(f"skipped: {len(skips)} tool(s) not fuzzed, by design: {'; '.join(skips)}")
    return failed if new else [], notes


def _not_run_on_head(rules: GateRules, diff: dict[str, Any] | None) -> list[str]:
    """Base counterexamples head did not run fail, unless every reason head did not run
    the tool is allowed (an allowed refusal, or `tool.removed`)."""
    lost: dict[str, int] = {}
    for entry in diff["tools"] if diff is not None else []:
        count = len(entry["counterexamples"].get("notRunOnHead", []))
        if not count:
            continue
        name = _tool_name(entry["tool"])
        refused = entry.get("refused") or {}
        codes = {str(r.get("code")) for r in refused.get("head", [])} or {TOOL_REMOVED}
        if not all(rules.allows(name, code) for code in codes):
            lost[entry["tool"]] = count
    if not lost:
        return []
    return [_counted("not-run-on-head: base counterexamples head did not fuzz", lost)]


def _tool_name(key: str) -> str:
    """The tool of a diff entry's key (`NAME`, or `NAME (seed N)` for several seeds)."""
    name, separator, _ = key.rpartition(" (seed ")
    return name if separator and key.endswith(")") else key


def _without_flaky(
    head: Receipts, diff: dict[str, Any] | None
) -> tuple[Receipts, dict[str, Any] | None, list[str]]:
    """Head and diff without their flaky counterexamples (`gate.flaky: note`), and the note."""
    head, diff, flaky = _without(head, diff, _flaky)
    note = f"flaky: {flaky} counterexample(s) reproduced only sometimes; noted, not failing"
    return head, diff, [f"{note} (gate.flaky: note)"] if flaky else []


def _without_state_dependent(
    head: Receipts, diff: dict[str, Any] | None
) -> tuple[Receipts, dict[str, Any] | None, list[str]]:
    """Head and diff without their state-dependent hangs (never failing: a handler
    started afresh answered them in time), and the note. A state-dependent crash still
    fails: a crash on any state the tool's own calls reach is a defect."""
    head, diff, count = _without(head, diff, _state_dependent_hang)
    note = (
        f"state-dependent: {count} timeout(s) only on the state the campaign's own calls "
        "had left, never on a handler started afresh; noted, not failing"
    )
    return head, diff, [note] if count else []


_HANGS = frozenset(failure.value for failure in HANGS)


def _state_dependent_hang(cx: RecordedCounterexample | dict[str, Any]) -> bool:
    if isinstance(cx, RecordedCounterexample):
        return cx.state_dependent is not None and cx.failure in _HANGS
    return isinstance(cx.get("stateDependent"), dict) and cx.get("failure") in _HANGS


def _flaky(cx: RecordedCounterexample | dict[str, Any]) -> bool:
    return cx.flaky if isinstance(cx, RecordedCounterexample) else cx.get("flaky") is True


def _without(
    head: Receipts,
    diff: dict[str, Any] | None,
    noted: Callable[[RecordedCounterexample | dict[str, Any]], bool],
) -> tuple[Receipts, dict[str, Any] | None, int]:
    """Head and diff (its entries are the diff document's) without the counterexamples
    `noted` picks, and how many head had."""

    def steady(examples: list[Any]) -> list[Any]:
        return [c for c in examples if not (isinstance(c, dict) and noted(c))]

    kept = [tuple(c for c in r.counterexamples if not noted(c)) for r in head]
    count = sum(len(r.counterexamples) - len(k) for r, k in zip(head, kept, strict=True))
    head = [replace(r, counterexamples=k) for r, k in zip(head, kept, strict=True)]
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
    return head, diff, count


def _invariant(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    per_tool = _tally([(r.tool, len(r.counterexamples)) for r in head])
    if not per_tool:
        return [], []
    return [_counted("invariant: counterexamples on head", per_tool)], []


def _new_counterexample(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    if diff is None:
        per_tool = _tally([(r.tool, len(r.counterexamples)) for r in head])
        note = "new-counterexample: no baseline, so every counterexample on head counts as new"
        failed = [_counted("new-counterexample: not on base", per_tool)] if per_tool else []
        return failed, [note]
    per_tool = _tally([(t["tool"], len(t["counterexamples"]["new"])) for t in diff["tools"]])
    if not per_tool:
        return [], []
    return [_counted("new-counterexample: not on base", per_tool)], []


def _unsupported_keyword(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    per_tool = _tally([(r.tool, len(r.unsupported)) for r in head])
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
    for receipt in sorted(head, key=lambda r: (r.tool, r.seed)):
        if receipt.skipped:
            continue  # not fuzzed by design: it has no coverage to hold to a floor
        coverage = receipt.coverage
        for family, floor in floors:
            state = coverage.get(family, "unsupported")
            if COVERAGE_RANK.get(state, 0) < COVERAGE_RANK[floor]:
                below.append(f"{receipt.tool} (seed {receipt.seed}) {family} is {state}")
    if not below:
        return []
    return [f"min_coverage: {len(below)} below the floor: {'; '.join(below)}"]


def _under_specified(head: Receipts, diff: dict[str, Any] | None) -> Outcome:
    """Head's under-specification notes: clean rejections of schema-valid calls where the
    schema is not declared complete. They fail the gate only when `fail_on` lists this."""
    per_tool = _tally([(r.tool, len(r.under_specified)) for r in head])
    if not per_tool:
        return [], []
    return [_counted("under-specified: schema-valid calls the tools refuse", per_tool)], []


CHECKS: dict[str, Callable[[Receipts, dict[str, Any] | None], Outcome]] = {
    "invariant": _invariant,
    "new-counterexample": _new_counterexample,
    "unsupported-keyword": _unsupported_keyword,
    "coverage-drop": _coverage_drop,
    "under-specified": _under_specified,
}
