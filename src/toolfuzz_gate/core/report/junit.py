"""The diff document as JUnit XML: one suite per tool, one case per invariant (pure).

Deterministic: suites in the diff's (sorted) tool order, cases in the invariant registry's
order, no timestamps, hostnames or durations. A case fails when the head side has
counterexamples of its failure classes (new or still failing); failure classes outside the
registry get a case of their own, head-side unsupported keywords fail a
`supported-keywords` case, and a tool head refused for any other reason fails a `fuzzed`
case naming each reason. A removed tool's suite holds one skipped case, and a contract check
the tool does not declare (the diff's `notChecked`) is a skipped case, never a passing one.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate import ENGINE_NAME
from toolfuzz_gate.core.campaign.invariants import INVARIANTS
from toolfuzz_gate.core.report.context import (
    ReplayFrom,
    ReportContext,
    counterexamples,
    evidence,
    receipt_name,
    refusals,
    replay_command,
    text_of,
    tools,
    unsupported,
)
from toolfuzz_gate.core.report.untrusted import BLOCK_CAP, cap, clean, field, json_block_text

SUPPORTED_CASE = "supported-keywords"
REFUSED_CASE = "fuzzed"
NOT_DECLARED = "a contract check the tool does not declare: not checked (see the receipt's checks)"
_INVARIANT_OF = {failure.value: inv.name for inv in INVARIANTS for failure in inv.failures}


def render_junit(diff: Mapping[str, Any], context: ReportContext | None = None) -> str:
    where = context.replay_from if context is not None else ReplayFrom()
    root = ET.Element("testsuites", {"name": ENGINE_NAME})
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for entry in tools(diff):
        suite = _suite(diff, entry, where)
        root.append(suite)
        for name in totals:
            totals[name] += int(suite.get(name, "0"))
    for name, value in totals.items():
        root.set(name, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _suite(diff: Mapping[str, Any], entry: Mapping[str, Any], where: ReplayFrom) -> ET.Element:
    tool = field(text_of(entry.get("tool")))
    suite = ET.Element("testsuite", {"name": tool})
    if entry.get("status") == "removed":
        case = ET.SubElement(suite, "testcase", {"name": "tool-present", "classname": tool})
        ET.SubElement(case, "skipped", {"message": "the tool is not on the head side"})
        return _counted(suite)
    failing: dict[str, list[Mapping[str, Any]]] = {}
    for kind in ("new", "stillFailing"):
        for cx in counterexamples(entry, kind):
            failure = field(cx.get("failure", ""), 100)
            failing.setdefault(_INVARIANT_OF.get(failure, failure), []).append(cx)
    names = [inv.name for inv in INVARIANTS]
    names.extend(sorted(name for name in failing if name not in names))
    receipt = receipt_name(diff, text_of(entry.get("tool")), "head")
    not_checked = entry.get("notChecked")
    skipped = set(not_checked) if isinstance(not_checked, list) else set()
    for name in names:
        case = ET.SubElement(suite, "testcase", {"name": name, "classname": tool})
        for cx in failing.get(name, []):
            _fail(case, receipt, cx, where)
        if name in skipped and name not in failing:
            ET.SubElement(case, "skipped", {"message": NOT_DECLARED})
    case = ET.SubElement(suite, "testcase", {"name": SUPPORTED_CASE, "classname": tool})
    items = unsupported(entry, "added") + unsupported(entry, "still")
    if items:
        lines = [
            f"{field(i.get('keyword', ''))} at {field(i.get('path') or '(root)')}" for i in items
        ]
        node = ET.SubElement(
            case,
            "failure",
            {"type": "unsupported-keyword", "message": f"{len(items)} unsupported keywords"},
        )
        node.text = cap("\n".join(lines), BLOCK_CAP)
    others = [r for r in refusals(entry) if r.get("code") != "schema.unsupported-keyword"]
    skips = [r for r in others if r.get("state") == "skipped"]
    others = [r for r in others if r.get("state") != "skipped"]
    if skips:
        node = ET.SubElement(
            ET.SubElement(suite, "testcase", {"name": REFUSED_CASE, "classname": tool}),
            "skipped",
            {"message": field(skips[0].get("message", ""))},
        )
    if others:
        lines = [
            f"{field(r.get('code', ''), 100)} at {field(r.get('pointer') or '(root)')}: "
            f"{field(r.get('message', ''))}"
            for r in others
        ]
        node = ET.SubElement(
            ET.SubElement(suite, "testcase", {"name": REFUSED_CASE, "classname": tool}),
            "failure",
            {"type": "refused", "message": f"not fuzzed: {len(others)} reason(s)"},
        )
        node.text = cap("\n".join(lines), BLOCK_CAP)
    return _counted(suite)


def _fail(case: ET.Element, receipt: str, cx: Mapping[str, Any], where: ReplayFrom) -> None:
    error = cx.get("error")
    reason = error.get("reason") if isinstance(error, Mapping) else None
    message = field(reason if isinstance(reason, str) else "")
    failure = ET.SubElement(
        case, "failure", {"type": field(cx.get("failure", ""), 100), "message": message}
    )
    body = (
        f"path: {field(text_of(cx.get('path')) or '(root)')}\n"
        f"fingerprint: {field(cx.get('fingerprint', ''), 100)}\n"
        f"replay: {replay_command(receipt, text_of(cx.get('fingerprint')), where)}\n"
        + (f"evidence: {evidence(cx)}\n" if evidence(cx) else "")
        + f"input:\n{cap(json_block_text(cx.get('input')), BLOCK_CAP)}"
    )
    failure.text = clean(body, keep_newlines=True)


def _counted(suite: ET.Element) -> ET.Element:
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    return suite
