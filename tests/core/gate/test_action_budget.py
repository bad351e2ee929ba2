"""`core.gate.action_budget`: the Action's default time budgets fill only what a policy
leaves unset."""

from __future__ import annotations

from dataclasses import replace

from toolfuzz_gate.core.gate.action_budget import (
    ACTION_RUN_BUDGET_S,
    ACTION_TOOL_BUDGET_S,
    with_action_budgets,
)
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import Policy, RunOptions, ToolPolicy


def tool(name: str, budget_s: float | None = None) -> ToolPolicy:
    return ToolPolicy(name, "/tools/0", HandlerSettings("mcp"), RunOptions(budget_s=budget_s))


def test_a_policy_without_budgets_gets_the_actions_defaults() -> None:
    policy = with_action_budgets(Policy((tool("a"), tool("b"))))
    assert policy.budget_s == ACTION_RUN_BUDGET_S
    assert [t.options.budget_s for t in policy.tools] == [ACTION_TOOL_BUDGET_S] * 2


def test_budgets_a_policy_sets_are_kept() -> None:
    policy = replace(Policy((tool("a", 5.0), tool("b"))), budget_s=30.0)
    defaulted = with_action_budgets(policy)
    assert defaulted.budget_s == 30.0
    assert [t.options.budget_s for t in defaulted.tools] == [5.0, ACTION_TOOL_BUDGET_S]
