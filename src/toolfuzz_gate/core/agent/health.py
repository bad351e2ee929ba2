"""Model health: what the model did that kept agent mode from judging, counted (pure).

Agent mode judges the documentation through a model, so a model that misbehaves can make
a check do nothing: an agent that only names tools that do not exist, or only writes
arguments that are not JSON, makes no call to compare; an oracle that answers in prose
scores nothing; a prompt-set reply that is not JSON gives no set. Each such case is
counted here, and each check it kept from being made is listed as *unjudged*, with the
reason, so the verdict can say "agent mode could not judge N of M" and fail on it
(`agent.unjudged: fail`, the default) rather than pass on nothing.

Everything is read from the entries the agent receipt holds (a run's steps and outcome,
a set's template and oracle), so the counts are as deterministic as the receipt.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

REACHABLE_CHECK = "agent-reachable"
CORRECTNESS_CHECK = "agent-correctness"
UNJUDGED_RULES = ("fail", "note")
"""`agent.unjudged`: what a check agent mode could not make does to the verdict."""


def run_trouble(run: JSON) -> str | None:
    """Why an agent run (`AgentRun.to_json`) made no usable call although it tried, or
    None: it made a call, or chose to answer without the tool (a judgement, not trouble)."""
    if not isinstance(run, dict):
        return None
    kinds = {str(step.get("kind")) for step in _steps(run)}
    if "call" in kinds:
        return None
    if kinds == {"unknown-tool"}:
        return "the agent only called tools that do not exist"
    if kinds == {"bad-arguments"}:
        return "the agent only wrote arguments that are not a JSON object"
    if kinds:
        return "the agent made no usable call (unknown tools, arguments that are not JSON)"
    return None


def finding_trouble(entry: JSONObject) -> str | None:
    """Why a finding's reachability could not be judged, or None. A finding whose own
    call did not reproduce it was never put to the model; one some attempt reached (or
    came near) was judged, whatever the other attempts did."""
    attempts = entry.get("attempts")
    tried = [a for a in attempts if isinstance(a, dict)] if isinstance(attempts, list) else []
    if entry.get("outcome") in ("not-reproduced", "reachable", "related"):
        return None
    if not any(attempt.get("prompt") for attempt in tried) and not entry.get("prompt"):
        return "the model wrote no user request for the call"
    return run_trouble(entry.get("agent"))


def set_trouble(entry: JSONObject) -> str | None:
    """Why a prompt set could not be judged, or None."""
    if entry.get("template") is None:
        return "the model's prompt set could not be read"
    runs = entry.get("runs")
    listed = runs if isinstance(runs, list) else []
    oracle = entry.get("oracle")
    if oracle is None:
        return "the oracle's reply could not be read"
    lost = _judged(oracle).count("unreadable")
    if lost and entry.get("erroneous") is not True:  # one failing prompt settles the set
        return f"the oracle's reply could not be read for {lost} of {len(listed)} answer(s)"
    if listed and all(_no_call(run) for run in listed):
        troubles = [run_trouble(run) for run in listed]
        said = next((t for t in troubles if t), "the agent answered every prompt without the tool")
        return f"no prompt led to a call: {said}"
    if listed and all(isinstance(r, dict) and r.get("outcome") == "step-limit" for r in listed):
        return "the agent never stopped calling the tool, so it gave no answer to score"
    return None


def model_health(
    findings: Sequence[JSONObject],
    probes: Sequence[JSONObject],
    correctness: Sequence[JSONObject],
    *,
    probes_asked: bool,
    unmetered: int,
    retries: int = 0,
) -> JSONObject:
    """The `health` member of an agent receipt. `probes_asked`: documentation probes
    were asked for (an empty list then means the reply held none); `unmetered`: replies
    whose answer reported no token usage (the budget then charges an estimate); `retries`:
    attempts made again after a 429, a 5xx or a network error (each charged as a request,
    and kept in the cassette, so a replay counts the same)."""
    runs: list[JSON] = [entry.get("agent") for entry in findings]
    runs += [probe.get("agent") for probe in probes]
    for entry in correctness:
        listed = entry.get("runs")
        runs += listed if isinstance(listed, list) else []
        refinement = entry.get("refinement")
        rerun = refinement.get("rerun") if isinstance(refinement, dict) else None
        rerun_runs = rerun.get("runs") if isinstance(rerun, dict) else None
        runs += rerun_runs if isinstance(rerun_runs, list) else []
    steps = [step for run in runs if isinstance(run, dict) for step in _steps(run)]
    unjudged: list[JSON] = []
    for entry in findings:
        said = finding_trouble(entry)
        if said:
            unjudged.append(_unjudged(REACHABLE_CHECK, f"finding {entry.get('fingerprint')}", said))
    if probes_asked and not probes:
        said = "the model wrote no documentation probe"
        unjudged.append(_unjudged(REACHABLE_CHECK, "documentation probes", said))
    for probe in probes:
        said = run_trouble(probe.get("agent"))
        if said:
            unjudged.append(_unjudged(REACHABLE_CHECK, f"probe {probe.get('prompt')!r}", said))
    for entry in correctness:
        said = set_trouble(entry)
        if said:
            unjudged.append(_unjudged(CORRECTNESS_CHECK, f"prompt set {entry.get('number')}", said))
    return {
        "unknownToolCalls": sum(1 for step in steps if step.get("kind") == "unknown-tool"),
        "unparseableArguments": sum(1 for step in steps if step.get("kind") == "bad-arguments"),
        "stepLimits": sum(
            1 for run in runs if isinstance(run, dict) and run.get("outcome") == "step-limit"
        ),
        "recoveredAfterError": sum(1 for run in runs if _recovered(run)),
        "unreadableReplies": _unreadable(findings, correctness, probes_asked and not probes),
        "answersWithoutUsage": unmetered,
        "retries": retries,
        "unjudged": unjudged,
    }


def unjudged_items(health: JSON) -> list[JSONObject]:
    """The unjudged entries of a receipt's `health` (none in a receipt from before 0.6.0)."""
    listed = health.get("unjudged") if isinstance(health, dict) else None
    return [item for item in (listed if isinstance(listed, list) else []) if isinstance(item, dict)]


def _unjudged(check: str, what: str, reason: str) -> JSONObject:
    return {"check": check, "what": what, "reason": reason}


def _steps(run: JSONObject) -> list[JSONObject]:
    steps = run.get("steps")
    return [step for step in steps if isinstance(step, dict)] if isinstance(steps, list) else []


def _no_call(run: JSON) -> bool:
    return not isinstance(run, dict) or all(step.get("kind") != "call" for step in _steps(run))


def _recovered(run: JSON) -> bool:
    """A call the tool did not accept, then one it did: the agent corrected itself."""
    if not isinstance(run, dict):
        return False
    outcomes = [
        result.get("outcome")
        for step in _steps(run)
        if step.get("kind") == "call" and isinstance(result := step.get("result"), dict)
    ]
    first_bad = next((i for i, seen in enumerate(outcomes) if seen != "accepted"), None)
    return first_bad is not None and "accepted" in outcomes[first_bad + 1 :]


def _unreadable(
    findings: Sequence[JSONObject], correctness: Sequence[JSONObject], no_probes: bool
) -> int:
    prompts = sum(1 for entry in findings if not entry.get("prompt"))
    sets = sum(1 for entry in correctness if entry.get("template") is None)
    oracles = sum(
        1 for e in correctness if e.get("template") is not None and e.get("oracle") is None
    )
    judges = 0
    for entry in correctness:
        refinement = entry.get("refinement")
        rerun = refinement.get("rerun") if isinstance(refinement, dict) else None
        for judged in (entry, rerun):
            if isinstance(judged, dict):
                judges += _judged(judged.get("oracle")).count("unreadable")
    return prompts + sets + oracles + judges + int(no_probes)


def _judged(oracle: JSON) -> list[JSON]:
    """How each answer of a set was judged (`core.agent.prompt_sets`; none before 0.6.0)."""
    listed = oracle.get("judged") if isinstance(oracle, dict) else None
    return listed if isinstance(listed, list) else []
