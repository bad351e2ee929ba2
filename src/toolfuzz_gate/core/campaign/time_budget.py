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

from toolfuzz_gate.core.campaign.receipt_ledgers import BudgetCut, BudgetRecord, NotRun, StoppedAt

SHRINK_CALLS_AFTER = 100
"""Handler calls each finding may take to shrink once the budget is exhausted."""


@dataclass(frozen=True)
class Budget:
    """A campaign's time on `clock`, which ends at `ends_at`: the end of the tool's own
    budget (`tool_s` from its start) or of the run's (`run_s`), whichever comes first;
    `scope` says which (`tool` or `run`)."""

    clock: Callable[[], float]
    ends_at: float
    scope: str
    tool_s: float | None = None
    run_s: float | None = None

    def exhausted(self) -> bool:
        return self.clock() >= self.ends_at

    @property
    def seconds(self) -> float | None:
        return self.tool_s if self.scope == "tool" else self.run_s


def earliest(
    clock: Callable[[], float], tool_s: float | None, run_ends_at: float | None, run_s: float | None
) -> Budget | None:
    """The budget that ends first of a tool's own (`tool_s` from now) and the run's."""
    ends = []
    if tool_s is not None:
        ends.append((clock() + tool_s, "tool"))
    if run_ends_at is not None and run_s is not None:
        ends.append((run_ends_at, "run"))
    if not ends:
        return None
    ends_at, scope = min(ends)
    return Budget(clock, ends_at, scope, tool_s, run_s if run_ends_at is not None else None)


def budget_record(budget: Budget, stop: StoppedAt | None, not_run: NotRun) -> BudgetRecord:
    """The receipt's `budget`: the budgets declared (`seconds`, the tool's; `runSeconds`,
    the run's) and whether one ran out; then which (`scope`), where the campaign stopped,
    how many cases of each stream were not run, and the shrinking budget left. Which
    budget ends first depends on when the tool started, so it is said only when it counts."""
    cut = None
    if stop is not None:
        note = (
            f"the {budget.scope}'s budget of {budget.seconds:g} s ran out before case "
            f"{stop.case} of the {stop.stream} stream: the cases counted in notRun "
            "were not run, and each finding was shrunk with at most "
            f"{SHRINK_CALLS_AFTER} handler calls"
        )
        cut = BudgetCut(budget.scope, stop, dict(not_run), SHRINK_CALLS_AFTER, note)
    return BudgetRecord(budget.tool_s, budget.run_s, cut)
