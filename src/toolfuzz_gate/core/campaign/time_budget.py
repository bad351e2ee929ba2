"""A time budget for one tool's campaign (pure: the clock comes in as a parameter).

The policy's `budget_s` (per tool, and per run) bounds how long a tool generates cases.
The clock is read between cases, never inside one: a campaign out of time stops
generating (valid cases, near-misses, seam probes, in that order), then still shrinks and
confirms what it found, with a smaller shrinking budget, and its receipt's `budget` says
what was not run. Time depends on the machine, so a receipt is byte-identical between
runs only while its budget is not exhausted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolfuzz_gate.core.jsonutil.canonical import JSONObject

SHRINK_CALLS_AFTER = 100
"""Handler calls each finding may take to shrink once the budget is exhausted."""


@dataclass(frozen=True)
class Budget:
    """`seconds` of `clock` for a campaign, which ends at `ends_at` on that clock; `scope`
    is whose budget it is (`tool`, or `run` when the run's ends first)."""

    clock: Callable[[], float]
    ends_at: float
    seconds: float
    scope: str

    def exhausted(self) -> bool:
        return self.clock() >= self.ends_at


def earliest(
    clock: Callable[[], float], tool_s: float | None, run_ends_at: float | None, run_s: float | None
) -> Budget | None:
    """The budget that ends first of a tool's own (`tool_s` from now) and the run's."""
    now = clock()
    budgets = []
    if tool_s is not None:
        budgets.append(Budget(clock, now + tool_s, tool_s, "tool"))
    if run_ends_at is not None and run_s is not None:
        budgets.append(Budget(clock, run_ends_at, run_s, "run"))
    return min(budgets, key=lambda budget: budget.ends_at) if budgets else None


def budget_json(budget: Budget, stop: JSONObject | None, not_run: JSONObject) -> JSONObject:
    """The receipt's `budget`: its seconds and scope, and when it ran out, where the campaign
    stopped, how many cases of each stream were not run, and the shrinking budget left."""
    described: JSONObject = {
        "seconds": budget.seconds,
        "scope": budget.scope,
        "exhausted": stop is not None,
    }
    if stop is not None:
        described["stoppedAt"] = stop
        described["notRun"] = not_run
        described["shrinkCalls"] = SHRINK_CALLS_AFTER
        described["note"] = (
            f"the {budget.scope}'s budget of {budget.seconds:g} s ran out before case "
            f"{stop['case']} of the {stop['stream']} stream: the cases counted in notRun "
            "were not run, and each finding was shrunk with at most "
            f"{SHRINK_CALLS_AFTER} handler calls"
        )
    return described
