"""`core.gate.policy_trust`: the stricter of the base's rules and the head's, each weakening
named (issue 26)."""

from __future__ import annotations

from dataclasses import fields

from toolfuzz_gate.core.gate.agent_settings import AgentSettings
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import Policy, RunOptions, ToolPolicy
from toolfuzz_gate.core.gate.policy_trust import (
    AGENT_FREE,
    AGENT_RULES,
    HANDLER_FREE,
    HANDLER_RULES,
    OPTION_FREE,
    OPTION_RULES,
    POLICY_FREE,
    POLICY_RULES,
    STATEFUL_FREE,
    STATEFUL_RULES,
    TOOL_FREE,
    TOOL_RULES,
    govern,
)
from toolfuzz_gate.core.gate.stateful_settings import StatefulSettings
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


def test_every_run_option_tool_key_and_handler_key_is_governed_or_said_free() -> None:
    """A new key must say how the stricter of two values is found, or why it is the pull
    request's to set: a key left out would let a pull request weaken its own gate."""
    for owner, rules, free in (
        (Policy, POLICY_RULES, POLICY_FREE),
        (StatefulSettings, STATEFUL_RULES, STATEFUL_FREE),
        (AgentSettings, AGENT_RULES, AGENT_FREE),
        (RunOptions, OPTION_RULES, OPTION_FREE),
        (ToolPolicy, TOOL_RULES, TOOL_FREE),
        (HandlerSettings, HANDLER_RULES, HANDLER_FREE),
    ):
        names = [item.name for item in fields(owner)]
        assert sorted(names) == sorted([*rules, *free]), owner.__name__


RULED = """\
version: 1
defaults:
  seeds: [41, 7]
  timeout_ms: 1000
  max_output_bytes: 4096
  format_assertion: true
  saturation: false
  ignore_output: [/when]
  rejection_answer: "^No such"
tools:
  - name: a
    schema: a.json
    handler:
      python: "tool:run"
      rejects: ["tool:Refused"]
      sandbox: true
      memory_limit_mb: 512
    expected_rejections: [quota]
    error_codes: "^E"
    dry_run: dryRun
    fixed_arguments: {/vault: main}
"""


def test_a_run_option_tool_key_or_handler_key_that_hides_findings_is_named_and_undone() -> None:
    head_text = (
        RULED.replace("[41, 7]", "[41]")
        .replace("timeout_ms: 1000", "timeout_ms: 60000")
        .replace("max_output_bytes: 4096", "max_output_bytes: 1000000")
        .replace("format_assertion: true", "format_assertion: false")
        .replace("saturation: false", "saturation: true")
        .replace("[/when]", "[/when, /result]")
        .replace('"^No such"', '".*"')
        .replace('["tool:Refused"]', '["tool:Refused", "builtins:Exception"]')
        .replace("sandbox: true", "sandbox: false")
        .replace("memory_limit_mb: 512", "memory_limit_mb: 0")
        .replace("[quota]", "[quota, internal]")
        .replace('"^E"', '"."')
        .replace("dryRun", "preview")
        .replace("{/vault: main}", "{/vault: main, /mode: safe}")
    )
    base = policy_rules(RULED.encode(), "base")
    governed = govern(policy_rules(head_text.encode(), "head"), base)
    assert governed.weakenings == (
        "tool 'a': seeds: 7 removed",
        "tool 'a': timeout_ms raised from 1000 to 60000",
        "tool 'a': max_output_bytes raised from 4096 to 1000000",
        "tool 'a': format_assertion turned off",
        "tool 'a': ignore_output: /result added",
        "tool 'a': rejection_answer changed from '^No such' to '.*'",
        "tool 'a': saturation turned on",
        "tool 'a': handler: rejects: builtins:Exception added",
        "tool 'a': handler: sandbox turned off",
        "tool 'a': handler: memory_limit_mb raised from 512 to no limit",
        "tool 'a': expected_rejections: internal added",
        "tool 'a': error_codes changed from '^E' to '.'",
        "tool 'a': dry_run changed from 'dryRun' to 'preview'",
        "tool 'a': fixed: /mode added",
    )
    assert governed.policy.tools == base.tools  # every one undone: the base's rules judge


def test_a_stricter_run_option_applies_at_once() -> None:
    head_text = (
        RULED.replace("[41, 7]", "[41, 7, 3]")
        .replace("timeout_ms: 1000", "timeout_ms: 500")
        .replace("[/when]", "[]")
        .replace("memory_limit_mb: 512", "memory_limit_mb: 256")
        .replace("[quota]", "[]")
    )
    head = policy_rules(head_text.encode(), "head")
    governed = govern(head, policy_rules(RULED.encode(), "base"))
    assert governed.weakenings == ()
    assert governed.policy == head


def test_a_limit_left_to_its_default_is_compared_as_the_default() -> None:
    unlimited = policy_rules(
        RULED.replace("memory_limit_mb: 512", "memory_limit_mb: 0").encode(), "b"
    )
    default = policy_rules(RULED.replace("      memory_limit_mb: 512\n", "").encode(), "head")
    governed = govern(default, unlimited)  # the default is a limit: stricter than none
    assert governed.weakenings == () and governed.policy == default
    governed = govern(unlimited, default)
    assert governed.weakenings == (
        "tool 'a': handler: memory_limit_mb raised from the default 2048 to no limit",
    )


def test_sequences_and_agent_probes_a_pull_request_cuts_are_named_and_undone() -> None:
    base_text = RULED + "stateful: {sequences: 40, checks: {use-after-delete: true}}\n"
    base_text += "agent: {prompt_sets: 4}\n"
    head_text = RULED + "stateful: {enabled: false, sequences: 4, checks: "
    head_text += "{use-after-delete: false}}\nagent: {prompt_sets: 1}\n"
    base = policy_rules(base_text.encode(), "base")
    governed = govern(policy_rules(head_text.encode(), "head"), base)
    assert governed.weakenings == (
        "stateful: enabled turned off",
        "stateful: sequences lowered from 40 to 4",
        "stateful: checks: use-after-delete removed",
        "agent: prompt_sets lowered from 4 to 1",
    )
    assert (governed.policy.stateful, governed.policy.agent) == (base.stateful, base.agent)
