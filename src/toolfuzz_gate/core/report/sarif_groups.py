"""SARIF results for root causes and reach (pure): one result per group of counterexamples
(`core.gate.causes`), at its first instance's schema line, fingerprinted by the group (so code
scanning keeps one alert per cause across base and head); one per tool no valid call got
past; one per server answering rejections as successes."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.gate.causes import REJECTION_AS_SUCCESS
from toolfuzz_gate.core.gate.reach_verdict import UNREACHED
from toolfuzz_gate.core.report.context import (
    ReportContext,
    counterexample_location,
    iter_counterexamples,
)
from toolfuzz_gate.core.report.groups import group_reason, groups_of
from toolfuzz_gate.core.report.sarif_location import location
from toolfuzz_gate.core.report.untrusted import field

GROUP_KEY = "toolfuzzGroup/v1"
REACH_RULES = {
    UNREACHED: "No schema-valid call got past the tool's first check: its logic was not tested.",
    REJECTION_AS_SUCCESS: "The server answers rejections as successes: read them with "
    "rejection_answer.",
}
TOOLS_NAMED = 10


def _listed(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def group_results(
    diff: Mapping[str, Any], context: ReportContext, kind: str, state: str
) -> list[dict[str, Any]]:
    """One result per group of `kind` (`new` or `stillFailing`)."""
    firsts: dict[str, Mapping[str, Any]] = {}
    for cx in iter_counterexamples(diff, kind):
        firsts.setdefault(str(cx.get("group")), cx)
    results = []
    for group in groups_of(diff, kind):
        first = firsts.get(str(group.get("fingerprint")), {})
        tools = [str(t) for t in group.get("tools", [])]
        named = ", ".join(tools[:TOOLS_NAMED]) + (", \u2026" if len(tools) > TOOLS_NAMED else "")
        text = (
            f"{field(group_reason(diff, kind, group))} "
            f"({group.get('count')} instance(s) in {field(named)})"
        )
        results.append(
            {
                "ruleId": field(group.get("failure", ""), 100),
                "level": "error",
                "baselineState": state,
                "message": {"text": text},
                "locations": location(counterexample_location(context, first)),
                "partialFingerprints": {GROUP_KEY: field(group.get("fingerprint", ""), 100)},
            }
        )
    return results


def _digest(*parts: str) -> str:
    text = "\x1f".join(parts)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:24]


def reach_results(diff: Mapping[str, Any], context: ReportContext) -> list[dict[str, Any]]:
    """A result per unreached tool (error) and per server answering rejections as
    successes (warning), at the tool's schema."""
    results = []
    for item in _listed(diff.get("unreached")):
        tool = str(item.get("tool", ""))
        what = item.get("said") or item.get("cause") or item.get("outcome")
        text = (
            f"{field(tool)} never got past: {field(str(what))} "
            f"({item.get('count')} of {item.get('calls')} valid calls)"
        )
        where = counterexample_location(context, {"tool": tool, "path": ""})
        results.append(_result(UNREACHED, "error", text, where, _digest(UNREACHED, tool)))
    for item in _listed(diff.get("answering")):
        server = str(item.get("server", ""))
        tools = [str(t) for t in item.get("tools", [])]
        said = str(item.get("said") or "")
        text = f"{field(server)} answers rejections as successes ({field(', '.join(tools))})" + (
            f": {field(said)}" if said else ""
        )
        first = tools[0] if tools else ""
        where = counterexample_location(context, {"tool": first, "path": ""})
        digest = _digest(REJECTION_AS_SUCCESS, server)
        results.append(_result(REJECTION_AS_SUCCESS, "warning", text, where, digest))
    return results


def _result(rule: str, level: str, text: str, where: Any, digest: str) -> dict[str, Any]:
    return {
        "ruleId": rule,
        "level": level,
        "message": {"text": text},
        "locations": location(where),
        "partialFingerprints": {GROUP_KEY: digest},
    }
