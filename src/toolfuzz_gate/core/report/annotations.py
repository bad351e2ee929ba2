"""The diff document as GitHub workflow-command annotations (pure).

At most `LIMIT` `::error file=...,line=...,title=...::` lines (new counterexamples first,
then added unsupported keywords, then the other reasons of newly refused tools), then one
roll-up line, `::error::` when the verdict failed
and `::notice::` when it passed. Data and property values are escaped by the runner's rules,
so no untrusted text can end a line or start a second command.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate import ENGINE_NAME
from toolfuzz_gate.core.report.context import (
    Location,
    ReportContext,
    counterexample_location,
    iter_counterexamples,
    iter_refusals,
    iter_unsupported,
    refusal_location,
    text_of,
    unsupported_location,
)
from toolfuzz_gate.core.report.interface_locations import iter_located
from toolfuzz_gate.core.report.untrusted import field, workflow_data, workflow_property

LIMIT = 10


def render_annotations(diff: Mapping[str, Any], context: ReportContext) -> str:
    findings: list[tuple[Location, str, str]] = []
    for cx in iter_counterexamples(diff, "new"):
        error = cx.get("error")
        reason = error.get("reason") if isinstance(error, Mapping) else None
        tool, failure = field(cx.get("tool", "")), field(cx.get("failure", ""), 100)
        path = field(text_of(cx.get("path")) or "(root)")
        message = f"{field(reason) if isinstance(reason, str) else failure} (at {path})"
        where = counterexample_location(context, cx)
        findings.append((where, f"{ENGINE_NAME}: {failure} in {tool}", message))
    for item in iter_unsupported(diff, "added"):
        tool, keyword = field(item.get("tool", "")), field(item.get("keyword", ""))
        path = field(item.get("path") or "(root)")
        message = f"{tool}: the gate cannot test {keyword} at {path}"
        where = unsupported_location(context, item)
        findings.append((where, f"{ENGINE_NAME}: unsupported keyword {keyword}", message))
    for item in iter_refusals(diff):
        code = text_of(item.get("code"))
        if item.get("state") != "new" or code == "schema.unsupported-keyword":
            continue
        tool, pointer = field(item.get("tool", "")), field(item.get("pointer") or "(root)")
        message = f"{tool}: not fuzzed: {field(item.get('message', ''))} (at {pointer})"
        where = refusal_location(context, item)
        findings.append((where, f"{ENGINE_NAME}: {field(code, 100)} in {tool}", message))
    for where, message, _ in iter_located(diff, context):
        findings.append((where, f"{ENGINE_NAME}: breaking interface change", message))
    lines = [
        f"::error file={workflow_property(where.file)},line={max(where.line, 1)},"
        f"title={workflow_property(title)}::{workflow_data(message)}"
        for where, title, message in findings[:LIMIT]
    ]
    lines.append(_roll_up(diff, context, len(findings)))
    return "\n".join(lines) + "\n"


def _roll_up(diff: Mapping[str, Any], context: ReportContext, findings: int) -> str:
    new = sum(1 for _ in iter_counterexamples(diff, "new"))
    added = sum(1 for _ in iter_unsupported(diff, "added"))
    still = sum(1 for _ in iter_counterexamples(diff, "stillFailing"))
    fixed = sum(1 for _ in iter_counterexamples(diff, "fixed"))
    gone = sum(1 for _ in iter_counterexamples(diff, "notRunOnHead"))
    refused = len({r.get("tool") for r in iter_refusals(diff) if r.get("state") == "new"})
    verdict = "failed" if context.failed else "passed"
    text = (
        f"{ENGINE_NAME} {verdict}: {new} new counterexamples, {added} unsupported keywords "
        f"added, {still} still failing, {fixed} fixed"
    )
    if refused or gone:
        text += f", {refused} tools newly refused, {gone} not run on head"
    if findings > LIMIT:
        text += f" ({findings - LIMIT} more findings not annotated, see the report)"
    if context.reasons:
        text += " - " + "; ".join(field(r) for r in context.reasons[:5])
    command = "error" if context.failed else "notice"
    return f"::{command}::{workflow_data(text)}"
