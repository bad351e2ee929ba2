"""One server's stateful campaign: plan, run, check, confirm, shrink (pure over `Server`).

The campaign starts from a fresh state and runs its planned sequences one after another
on the same server (what one sequence leaves is the next one's state, as an agent's calls
would leave it). A finding is first replayed alone from a fresh state: one that does not
come back needed what earlier sequences left, and is dropped. It is then shrunk
(`sequence_shrink`), and a crash or hang that shrinks to a single call is dropped too: a
single call is the one-tool campaign's to find, not a stateful bug. The minimal sequence
is replayed `CONFIRMATIONS` more times from a fresh state; one that does not fail every
time is flaky. Generation stops once `window` walks in a row add no new
(tool, outcome, cause) to what was seen (the shapes always run: each is an order chosen
for a kind of bug, as near-misses meet every operator before their stream saturates), or
when the time budget runs out, between sequences, as a tool's campaign stops between
cases; what it found then is still settled, each finding shrunk with at most
`SHRINK_CALLS_AFTER` handler calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.cause import cause_of
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.campaign.receipt_ledgers import StoppedAt
from toolfuzz_gate.core.campaign.stateful.links import Link, ServerTool
from toolfuzz_gate.core.campaign.stateful.sequence import Call, Context, Server, Step, run_sequence
from toolfuzz_gate.core.campaign.stateful.sequence_checks import (
    CHECKS,
    Graph,
    SequenceFinding,
    check_sequence,
)
from toolfuzz_gate.core.campaign.stateful.sequence_plan import Maker, plan_sequences
from toolfuzz_gate.core.campaign.stateful.sequence_shrink import (
    Admits,
    rebased,
    recorded,
    shifted,
    shrink_sequence,
)
from toolfuzz_gate.core.campaign.time_budget import SHRINK_CALLS_AFTER, Budget

CONFIRMATIONS = 2
MAX_HISTORY = 48
"""Calls of earlier sequences (since the last fresh state) kept to replay before a
finding that does not reproduce alone."""
_SINGLE_CALL = frozenset((Failure.SEQUENCE_CRASH, Failure.SEQUENCE_TIMEOUT))


@dataclass(frozen=True)
class StatefulConfig:
    seed: int
    sequences: int = 24
    max_calls: int = 6
    checks: tuple[str, ...] = tuple(CHECKS)
    shrink_runs: int = 30
    """Fresh-state runs each finding may take to shrink."""
    window: int = 8
    """Walks in a row that add nothing new before generation stops (0: never, as with a
    policy's `saturation: false`)."""


@dataclass(frozen=True)
class SequenceCounterexample:
    finding: SequenceFinding
    steps: list[Step]
    sequence: int
    original_calls: int
    runs: int
    failed: int

    @property
    def flaky(self) -> bool:
        return self.failed < self.runs


@dataclass
class StatefulResult:
    counterexamples: list[SequenceCounterexample] = field(default_factory=list)
    planned: int = 0
    ran: int = 0
    calls: int = 0
    stop: str | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    budget_stop: StoppedAt | None = None
    """Where the time budget ran out (`core.campaign.time_budget`): before which sequence."""

    def not_run(self) -> dict[str, int]:
        """Planned sequences the budget left out, as the receipt's `budget.notRun`."""
        return {"stateful": self.planned - self.ran}


def run_stateful(
    server: Server,
    tools: Mapping[str, ServerTool],
    links: Sequence[Link],
    config: StatefulConfig,
    make: Maker,
    admits: Admits,
    budget: Budget | None = None,
) -> StatefulResult:
    graph = Graph(tools, links)
    context = Context(tools, links)
    planned, shaped = plan_sequences(
        tools, links, make, config.seed, config.sequences, config.max_calls
    )
    result = StatefulResult(planned=len(planned))
    seen: set[tuple[str, str, str]] = set()
    found: set[tuple[str, str, str]] = set()
    quiet = 0
    history: list[Step] = []
    for number, calls in enumerate(planned):
        if _out_of_time(result, budget, number):
            break
        if config.window and quiet >= config.window:
            result.stop = "saturated"
            break
        if number <= shaped:  # each shape, and the first walk, from a fresh state
            server.fresh()
            history = []
        steps = run_sequence(server, calls, context)
        result.ran += 1
        result.calls += len(steps)
        signature = {
            (s.tool, s.outcome.kind.value, cause_of(s.outcome, s.call.arguments)) for s in steps
        }
        if number >= shaped:  # only walks count towards saturation
            quiet = 0 if signature - seen else quiet + 1
        seen |= signature
        restart = any(s.outcome.kind.value in ("crash", "timeout") for s in steps)
        for finding in check_sequence(steps, graph, config.checks):
            if finding.identity in found:
                continue
            found.add(finding.identity)
            restart = True
            cut = _out_of_time(result, budget, number + 1)
            example = _settle(
                server,
                (history, steps),
                finding,
                number,
                graph,
                context,
                config,
                admits,
                tools,
                cut,
            )
            if isinstance(example, str):
                result.dropped[example] = result.dropped.get(example, 0) + 1
            else:
                result.counterexamples.append(example)
        if restart and number >= shaped:
            server.fresh()
            history = []
        else:
            history = history + shifted(steps, len(history))
            history = rebased(history, len(history) - MAX_HISTORY)
    result.counterexamples.sort(
        key=lambda c: (c.finding.failure.value, c.finding.tool, c.finding.cause)
    )
    return result


def _out_of_time(result: StatefulResult, budget: Budget | None, number: int) -> bool:
    """Has the time budget run out (by sequence `number`, recorded the first time)?"""
    if result.budget_stop is None and budget is not None and budget.exhausted():
        result.stop = "budget"
        result.budget_stop = StoppedAt("stateful", number)
    return result.budget_stop is not None


def _settle(
    server: Server,
    ran: tuple[list[Step], list[Step]],
    finding: SequenceFinding,
    number: int,
    graph: Graph,
    context: Context,
    config: StatefulConfig,
    admits: Admits,
    tools: Mapping[str, ServerTool],
    cut: bool = False,
) -> SequenceCounterexample | str:
    """The confirmed, shrunk counterexample, or why the finding is dropped; `cut`: the
    time budget has run out, so shrinking takes at most `SHRINK_CALLS_AFTER` calls."""

    def attempt(calls: Sequence[Call]) -> tuple[list[Step], SequenceFinding] | None:
        server.fresh()
        ran = run_sequence(server, calls, Context(context.tools, context.links))
        for again in check_sequence(ran, graph, config.checks):
            if again.identity == finding.identity:
                return ran, again
        return None

    history, steps = ran
    first = attempt(recorded(steps, finding.step))
    if first is None and history:
        # The state earlier sequences left may be what the failure needs: replay them
        # first, and let shrinking drop what it does not need.
        whole = history + shifted(steps, len(history))
        first = attempt(recorded(whole, len(history) + finding.step))
    if first is None:
        return "needs-earlier-state"

    def required(tool: str) -> frozenset[str]:
        known = tools.get(tool)
        return known.required() if known is not None else frozenset()

    runs = config.shrink_runs
    if cut:  # no candidate is longer than the first reproduction
        runs = min(runs, SHRINK_CALLS_AFTER // len(first[0]))
    shrunk = shrink_sequence(first[0], first[1], attempt, admits, runs, required)
    if len(shrunk.steps) == 1 and shrunk.finding.failure in _SINGLE_CALL:
        return "single-call"
    failed = 0
    final = shrunk.steps
    for _ in range(CONFIRMATIONS):
        again = attempt(recorded(shrunk.steps, len(shrunk.steps) - 1))
        if again is not None:
            failed += 1
    server.fresh()
    return SequenceCounterexample(
        shrunk.finding, final, number, finding.step + 1, CONFIRMATIONS + 1, failed + 1
    )
