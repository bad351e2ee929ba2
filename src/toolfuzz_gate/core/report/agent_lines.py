"""The console lines of agent mode: one per reached finding, failing probe, erroneous
prompt set and unjudged check (pure). Model text in them is bounded and quoted."""

from __future__ import annotations

from typing import Any

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
