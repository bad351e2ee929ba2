"""`core.gate.policy_trust`: the stricter of the base's rules and the head's, each weakening
named (issue 26)."""

from __future__ import annotations

from toolfuzz_gate.core.gate.policy_trust import govern
from toolfuzz_gate.edges.policy_file import policy_rules

BASE = """\
version: 1
budget_s: 60
defaults: {runs: 50}
gate:
  fail_on: [invariant, new-counterexample]
  min_coverage: {bounds: tested}
  flaky: fail
tools:
  - name: a
    schema: a.json
    handler: {command: [a]}
    deterministic: true
    checks: {replay: true}
  - name: gone
    schema: g.json
    handler: {command: [g]}
"""


def test_the_same_policy_changes_nothing() -> None:
    base = policy_rules(BASE.encode(), "base")
    governed = govern(base, base)
    assert governed.weakenings == () and governed.policy == base


def test_every_weakening_is_named_and_undone() -> None:
    head_text = (
        BASE.replace("budget_s: 60", "budget_s: 5")
        .replace("runs: 50", "runs: 2")
        .replace("[invariant, new-counterexample]", "[invariant, {allow-refused: [x.y]}]")
        .replace("{bounds: tested}", "{}")
        .replace("flaky: fail", "flaky: note")
        .replace("deterministic: true", "deterministic: false")
        .replace("replay: true", "replay: false")
        .split("  - name: gone")[0]
    )
    base = policy_rules(BASE.encode(), "base")
    governed = govern(policy_rules(head_text.encode(), "head"), base)
    assert governed.weakenings == (
        "gate.fail_on: new-counterexample removed",
        "gate.fail_on: allow-refused x.y added",
        "gate.min_coverage.bounds: tested removed",
        "gate.flaky: fail changed to note",
        "tool 'a': runs lowered from 50 to 2",
        "tool 'a': check replay turned off",
        "tool 'a': deterministic turned off",
        "tool 'gone' removed from the policy",
        "budget_s lowered from 60 to 5",
    )
    policy = governed.policy
    assert policy.gate == base.gate
    (tool,) = policy.tools
    assert (tool.options.runs, tool.deterministic, tool.checks) == (50, True, (("replay", True),))
    assert policy.budget_s == 60


def test_what_the_head_makes_stricter_applies_at_once() -> None:
    head_text = BASE.replace("runs: 50", "runs: 80").replace(
        "[invariant, new-counterexample]", "[invariant, new-counterexample, coverage-drop]"
    )
    governed = govern(policy_rules(head_text.encode(), "head"), policy_rules(BASE.encode(), "b"))
    assert governed.weakenings == ()
    assert "coverage-drop" in governed.policy.gate.fail_on
    assert governed.policy.tools[0].options.runs == 80


def test_without_a_base_policy_the_head_decides_and_it_is_said() -> None:
    head = policy_rules(BASE.encode(), "head")
    governed = govern(head, None)
    assert governed.base_missing and governed.policy == head
