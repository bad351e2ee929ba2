"""The verdict's agent checks, judged on agent receipts (`toolfuzz-agent/1`) (pure).

`agent-reachable` fails on counterexamples an agent reached and documentation probes whose
calls failed; `agent-correctness` on erroneous prompt sets. A check the model kept agent
mode from making (`health.unjudged`), or agent mode that could not run at all (an `llm.*`
error), fails the check under `agent.unjudged: fail` (the default) and is noted under
`note`. With the base's agent receipts each reason also says how many findings are new and
which the base had that head fixed (`core.gate.agent_diff`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolfuzz_gate.core.gate.agent_diff import AgentDiff, against_base
from toolfuzz_gate.core.gate.policy import GateRules
from toolfuzz_gate.core.gate.tally import Outcome, Receipts, counted, tally


def agent_check(
    name: str,
    rules: GateRules,
    agent: Receipts,
    unavailable: str | None,
    diff: AgentDiff,
) -> Outcome:
    """The agent check `name` (a key of `AGENT_CHECKS`) over head's agent receipts."""
    failed, noted = AGENT_CHECKS[name](agent)
    suffix, fixed = against_base(diff, name)
    failed = [f"{reason}{suffix}" for reason in failed]
    noted = [*noted, *fixed]
    unjudged = _unjudged(name, agent)
    if unavailable is not None:
        unjudged = [f"{name}: agent mode unavailable: {unavailable}"]
    (failed if rules.agent_unjudged == "fail" else noted).extend(unjudged)
    return failed, noted


def _agent_reachable(agent: Receipts) -> Outcome:
    """Counterexamples an agent reached, and documentation probes whose calls failed."""
    per_tool = tally(
        [
            (
                r["tool"],
                sum(
                    1
                    for f in r["findings"]
                    if f["kind"] == "counterexample" and f["agentReachable"] is True
                )
                + sum(1 for p in r["documentationProbes"] if p["failing"] is True),
            )
            for r in agent
        ]
    )
    if not per_tool:
        return [], []
    label = "agent-reachable: counterexamples an agent reaches and documentation probes failing"
    return [counted(label, per_tool)], []


def _agent_correctness(agent: Receipts) -> Outcome:
    """Erroneous prompt sets, with the arguments they name and how many fixes verified."""
    sets = [(r["tool"], entry) for r in agent for entry in r.get("correctness", [])]
    erroneous = [(tool, entry) for tool, entry in sets if entry.get("erroneous") is True]
    if not erroneous:
        return [], []
    named = sorted({f"{tool} {name}" for tool, e in erroneous for name in e["underspecified"]})
    verified = sum(
        1 for _, e in erroneous if isinstance(e["refinement"], dict) and e["refinement"]["verified"]
    )
    label = "agent-correctness: erroneous prompt sets"
    reason = counted(label, tally([(tool, 1) for tool, _ in erroneous]))
    return [
        f"{reason}; underspecified: {', '.join(named) or 'none named'}; "
        f"description fixes verified: {verified} of {len(erroneous)}"
    ], []


def _unjudged(check: str, agent: Receipts) -> list[str]:
    """What the model kept agent mode from judging for `check`, as one reason."""
    per_tool = tally([(r["tool"], _unjudged_count(r, check)) for r in agent])
    if not per_tool:
        return []
    label = f"{check}: agent mode could not judge (the model's replies were unusable)"
    return [counted(label, per_tool)]


def _unjudged_count(receipt: dict[str, Any], check: str) -> int:
    """The agent receipt's `health.unjudged` entries of `check` (`core.agent.health`; none
    in a receipt from before 0.6.0)."""
    health = receipt.get("health")
    listed = health.get("unjudged") if isinstance(health, dict) else None
    items = listed if isinstance(listed, list) else []
    return sum(1 for item in items if isinstance(item, dict) and item.get("check") == check)


AGENT_CHECKS: dict[str, Callable[[Receipts], Outcome]] = {
    "agent-reachable": _agent_reachable,
    "agent-correctness": _agent_correctness,
}
"""The `fail_on` values judged on agent receipts: listing one makes `run --policy` (and
the action) run agent mode after the campaign (`app.agent_gate`)."""
