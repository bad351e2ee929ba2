"""The console lines of agent mode: one per reached finding, failing probe, erroneous
prompt set and unjudged check, and the run's totals (pure). Model text in them is bounded
and quoted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolfuzz_gate.core.agent.budget import Budget
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.jsonutil.redact import bounded_message


def render_finding_line(tool: str, entry: JSONObject) -> str:
    prompt = bounded_message(str(entry["prompt"]), 120)
    return (
        f"{entry['outcome']}: {tool} {entry['kind']} {entry['failure']} at {entry['path'] or '/'} "
        f"({entry['fingerprint']}); prompt: {prompt!r}"
    )


def render_unjudged_line(tool: str, item: JSONObject) -> str:
    what = bounded_message(str(item["what"]), 120)
    return f"unjudged: {tool} {item['check']} {what}: {item['reason']}"


def render_probe_line(tool: str, probe: JSONObject) -> str:
    prompt = bounded_message(str(probe["prompt"]), 120)
    failures: Any = probe["failures"]
    return f"failing: {tool} documentation probe ({', '.join(failures)}); prompt: {prompt!r}"


def render_set_line(tool: str, checked: JSONObject) -> str:
    template = bounded_message(str(checked["template"]), 120)
    named: Any = checked["underspecified"]
    refinement: Any = checked["refinement"]
    if not isinstance(refinement, dict) or refinement["suggestion"] is None:
        fix = "no description fix proposed"
    else:
        verdict = "verified" if refinement["verified"] else "not verified"
        fix = (
            f"description fix {verdict} (failure rate {refinement['failureRateBefore']} -> "
            f"{refinement['failureRateAfter']})"
        )
    return (
        f"erroneous: {tool} prompt set {template!r}; underspecified: "
        f"{', '.join(named) or '(no argument differs)'}; {fix}"
    )


def render_recovered_line(tool: str, checked: JSONObject, entry: JSONObject) -> str:
    """An agent refused by the tool that corrected itself: reported, failing nothing."""
    template = bounded_message(str(checked["template"]), 120)
    prompt = bounded_message(str(entry["prompt"]), 120)
    named: Any = entry["arguments"]
    changed = bounded_message(" ".join(", ".join(str(n) for n in named).split()), 200)
    return (
        f"recovered: {tool} prompt set {template!r}: the call was {entry['outcome']}, then "
        f"corrected in {changed or '(no argument)'}; prompt: {prompt!r}"
    )


def render_tool_lines(
    tool: str,
    findings: Sequence[JSONObject],
    probes: Sequence[JSONObject],
    correctness: Sequence[JSONObject],
    unjudged: Sequence[JSONObject],
) -> list[str]:
    """One tool's lines: every finding, the failing probes, the erroneous prompt sets and
    the agents that recovered, then the checks the model kept from being judged."""
    lines = [render_finding_line(tool, entry) for entry in findings]
    lines += [render_probe_line(tool, probe) for probe in probes if probe["failing"]]
    for checked in correctness:
        if checked.get("erroneous") is True:
            lines.append(render_set_line(tool, checked))
        recovered = checked.get("recovered")
        for item in recovered if isinstance(recovered, list) else []:
            if isinstance(item, dict):
                lines.append(render_recovered_line(tool, checked, item))
    return lines + [render_unjudged_line(tool, item) for item in unjudged]


def render_run_totals(
    counts: Mapping[str, int],
    where: str,
    unjudged_rule: str,
    budget: Budget,
    unmetered: int,
    mode: str,
) -> list[str]:
    """The run's totals (`core.agent.agent_receipt.count_results`), where its receipts
    went, and what it spent of the model's budget (`unmetered`: replies without usage)."""
    lines = [
        f"agent: {counts['reachable']} of {counts['findings']} finding(s) agent-reachable, "
        f"{counts['counterexamples']} of them counterexamples; {counts['failing']} of "
        f"{counts['probes']} documentation probe(s) failing; {counts['erroneous']} of "
        f"{counts['sets']} prompt set(s) erroneous; {where}"
    ]
    if counts["unjudged"]:
        lines.append(
            f"agent: could not judge {counts['unjudged']} of {counts['checks']} check(s): the "
            f"model's replies were unusable (agent.unjudged: {unjudged_rule}; see each "
            "receipt's health)"
        )
    estimated = f", {unmetered} without usage (estimated)" if unmetered else ""
    lines.append(
        f"llm: {budget.requests} of {budget.max_requests} request(s), {budget.tokens} of "
        f"{budget.max_tokens} token(s){estimated} ({mode})"
    )
    return lines
