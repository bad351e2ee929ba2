"""Root causes in the PR comment: one row per group, its instances in a collapsed block, and
the reach callouts at the top (tools no valid call got past, servers answering rejections as
successes) (pure).

Reads the grouped diff document (`core.gate.causes.group_diff`): `groups`, `unreached`,
`answering`. Every string in it came from receipts, so every cell goes through
`core.report.untrusted`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.report.context import (
    ReplayFrom,
    evidence,
    evidence_line,
    iter_counterexamples,
    receipt_name,
    replay_command,
    text_of,
)
from toolfuzz_gate.core.report.sequences import is_sequence, sequence_block
from toolfuzz_gate.core.report.untrusted import cap, clean, fence, json_block_text, markdown_text

REASON_CAP = 160
EVIDENCE_CAP = 600
INSTANCE_ROWS = 50
"""Instances listed under one group; the receipts hold the rest."""
TOOLS_SHOWN = 4
CALLOUTS = 10
HEADER = "| # | failure | tools | instances | reason |\n| --- | --- | --- | --- | --- |"


def groups_of(diff: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    """The diff's groups of one kind (none in an ungrouped document)."""
    groups = diff.get("groups")
    found = groups.get(kind) if isinstance(groups, Mapping) else None
    return [g for g in found if isinstance(g, Mapping)] if isinstance(found, list) else []


def is_grouped(diff: Mapping[str, Any]) -> bool:
    return isinstance(diff.get("groups"), Mapping)


def _listed(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def render_callouts(diff: Mapping[str, Any]) -> list[str]:
    """The lines at the top of the comment: what no valid call got past, and who answers
    its rejections as successes."""
    lines = []
    for item in _listed(diff.get("unreached"))[:CALLOUTS]:
        what = (
            text_of(item.get("said")) or text_of(item.get("cause")) or text_of(item.get("outcome"))
        )
        lines.append(
            f"- \u26a0\ufe0f **{markdown_text(item.get('tool', ''))}** never got past: "
            f"{markdown_text(what, REASON_CAP)} ({_int(item.get('count'))} of "
            f"{_int(item.get('calls'))} valid calls)"
        )
    for item in _listed(diff.get("answering"))[:CALLOUTS]:
        said = text_of(item.get("said"))
        tools = [markdown_text(t) for t in item.get("tools", []) if isinstance(t, str)]
        lines.append(
            f"- \u26a0\ufe0f **{markdown_text(item.get('server', ''))}** answers rejections "
            f"as successes ({', '.join(tools[:TOOLS_SHOWN])}"
            + (", \u2026" if len(tools) > TOOLS_SHOWN else "")
            + ")"
            + (f": {markdown_text(said, REASON_CAP)}" if said else "")
            + "; declare `rejection_answer` to read its answers"
        )
    if not lines:
        return []
    return ["**Reach**\n" + "\n".join(lines)]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _tools(group: Mapping[str, Any]) -> str:
    tools = [t for t in group.get("tools", []) if isinstance(t, str)]
    shown = ", ".join(markdown_text(t) for t in tools[:TOOLS_SHOWN])
    return shown + (f" +{len(tools) - TOOLS_SHOWN}" if len(tools) > TOOLS_SHOWN else "")


def _first(diff: Mapping[str, Any], kind: str, group: Mapping[str, Any]) -> Mapping[str, Any]:
    """The group's first instance as the diff holds it (its input, its evidence)."""
    for cx in iter_counterexamples(diff, kind):
        if cx.get("group") == group.get("fingerprint"):
            return cx
    return {}


def group_reason(diff: Mapping[str, Any], kind: str, group: Mapping[str, Any]) -> str:
    """The group's reason, then the handler's words of its first instance."""
    text = text_of(group.get("reason"))
    said = evidence_line(_first(diff, kind, group))
    if said and not text.endswith(said):
        text = f"{text}: {said}" if text else said
    return text


def _row(number: int, diff: Mapping[str, Any], kind: str, group: Mapping[str, Any]) -> str:
    cells = (
        str(number),
        markdown_text(group.get("failure", "")),
        _tools(group),
        str(_int(group.get("count"))),
        markdown_text(group_reason(diff, kind, group), REASON_CAP),
    )
    return "| " + " | ".join(cells) + " |"


def group_table(diff: Mapping[str, Any], kind: str, rows: int | None = None) -> str:
    groups = groups_of(diff, kind)
    shown = groups if rows is None else groups[:rows]
    return "\n".join([HEADER, *(_row(i, diff, kind, g) for i, g in enumerate(shown, 1))])


def _replay(diff: Mapping[str, Any], tool: str, fingerprint: str, where: ReplayFrom) -> str:
    return replay_command(receipt_name(diff, tool, "head"), fingerprint, where)


def _instances(diff: Mapping[str, Any], group: Mapping[str, Any], where: ReplayFrom) -> str:
    instances = _listed(group.get("instances"))
    rows = []
    for item in instances[:INSTANCE_ROWS]:
        tool, path = markdown_text(item.get("tool", "")), text_of(item.get("path")) or "(root)"
        shown = markdown_text(item.get("fingerprint", ""), 24)
        rows.append(f"| {tool} | {markdown_text(path)} | `{shown}` |")
    more = len(instances) - len(rows)
    parts = [
        f"<details><summary>{len(instances)} instance(s)</summary>",
        "\n".join(["| tool | path | fingerprint |", "| --- | --- | --- |", *rows]),
    ]
    if more > 0:
        parts.append(f"_\u2026 {more} more instances, see the receipts._")
    parts.append("</details>")
    return "\n\n".join(parts)


def _title(group: Mapping[str, Any]) -> str:
    """`crash in list_items at /limit`, or for several instances where they are and how many."""
    title = f"{markdown_text(group.get('failure', ''))} in {_tools(group)}"
    paths = {text_of(i.get("path")) or "(root)" for i in _listed(group.get("instances"))}
    if len(paths) == 1:
        title += f" at {markdown_text(paths.pop())}"
    count = _int(group.get("count"))
    return title + (f" ({count} instances)" if count > 1 else "")


def render_new_groups(
    diff: Mapping[str, Any], where: ReplayFrom, inputs: bool, rows: int | None
) -> list[str]:
    """The new root causes: the table, then each group's evidence, replay, minimal input
    (of its first instance) and its instances, collapsed."""
    groups = groups_of(diff, "new")
    if not groups:
        return []
    shown = groups if rows is None else groups[:rows]
    count = sum(_int(g.get("count")) for g in groups)
    parts = [f"### New root causes ({len(groups)}, {count} counterexamples)"]
    if shown:
        parts.append(group_table(diff, "new", rows))
    if len(shown) < len(groups):
        parts.append(f"_\u2026 {len(groups) - len(shown)} more new root causes, see the receipts._")
    if not inputs and shown:
        parts.append("_Minimized inputs left out to fit the comment; see the receipts._")
    for number, group in enumerate(shown, 1):
        first = _first(diff, "new", group)
        parts.append(f"**{number}.** {_title(group)}")
        said = clean(evidence(first), keep_newlines=True)
        answer = (
            first.get("error", {}).get("answer")
            if isinstance(first.get("error"), Mapping)
            else None
        )
        if not said and isinstance(answer, str):
            said = clean(f"answered as a success: {answer}", keep_newlines=True)
        if said and inputs:
            parts.append(fence(cap(said, EVIDENCE_CAP), "text"))
        tool, fingerprint = text_of(first.get("tool")), text_of(first.get("fingerprint"))
        parts.append(fence(_replay(diff, tool, fingerprint, where), "sh"))
        if inputs:
            shown_input = sequence_block(first) if is_sequence(first) else None
            parts.append(shown_input or fence(json_block_text(first.get("input")), "json"))
        if inputs and _int(group.get("count")) > 1:
            parts.append(_instances(diff, group, where))
    return parts


def render_collapsed_groups(
    diff: Mapping[str, Any], kind: str, title: str, with_rows: bool
) -> list[str]:
    """Still-failing or fixed root causes, collapsed: one row per group."""
    groups = groups_of(diff, kind)
    if not groups:
        return []
    count = sum(_int(g.get("count")) for g in groups)
    parts = [f"<details><summary>{title} ({len(groups)}, {count} counterexamples)</summary>"]
    if with_rows:
        parts.append(group_table(diff, kind))
    else:
        parts.append(f"_{len(groups)} root causes left out to fit the comment, see the receipts._")
    parts.append("</details>")
    return parts
