"""The Action's default time budgets, for a policy that sets none (pure).

A policy run without `budget_s` generates every case it plans, whatever that costs: on a
large server whose calls are slow, a quarter of an hour. The Action is a check on a pull
request, so where the policy says nothing it bounds each tool's generating time and the
run's (`core.campaign.time_budget`); the receipts record the budgets (`budget`), and the
verdict notes every tool a budget cut (`core.gate.verdict`).
"""

from __future__ import annotations

from dataclasses import replace

from toolfuzz_gate.core.gate.policy import Policy

ACTION_TOOL_BUDGET_S = 60.0
"""The Action's `budget_s` for a tool whose policy sets none: a minute of generating cases."""
ACTION_RUN_BUDGET_S = 600.0
"""The Action's run-wide `budget_s` when the policy sets none: ten minutes for every tool
together (each side of a baseline run its own), so a large server ends in minutes."""


def with_action_budgets(policy: Policy) -> Policy:
    """`policy` with the Action's default time budgets where it sets none (the receipts
    record them in `budget`, and the verdict names them when they cut anything)."""
    tools = tuple(
        tool
        if tool.options.budget_s is not None
        else replace(tool, options=replace(tool.options, budget_s=ACTION_TOOL_BUDGET_S))
        for tool in policy.tools
    )
    run_s = ACTION_RUN_BUDGET_S if policy.budget_s is None else policy.budget_s
    return replace(policy, tools=tools, budget_s=run_s)
