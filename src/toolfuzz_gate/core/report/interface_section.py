"""The PR comment's "Interface changes" section (pure).

Breaking changes first, each with the first base call head's schema refuses and how many
of base's valid calls it refuses; then the rest collapsed, one row each, a description
change as a small word diff (agents read descriptions: a changed one changes what they
call). Every name, pointer, value and description comes from a schema or a server, so
each is made inert (`core.report.untrusted`) before it is marked up.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.report.collapsed import CollapsedTable
from toolfuzz_gate.core.report.untrusted import fence, json_block_text, markdown_text

BREAKING_SHOWN = 10
"""Breaking changes shown with their example call; the rest are counted."""
OTHER_ROWS = 40
VALUE_CAP = 80
"""Characters of a base or head value in a row."""
WORDS_CAP = 120
"""Words of a description compared (the diff of longer ones is cut)."""

_OTHERS = CollapsedTable(
    "Other interface changes",
    "_Changes a call valid for the base stays valid under: widenings, additions, "
    "descriptions and defaults. Agents read descriptions, so a reworded one can change "
    "how they call the tool._",
    "| tool | change | where | base \u2192 head |\n| --- | --- | --- | --- |",
    OTHER_ROWS,
    "interface changes",
    "diff.json",
)


def render_interface_section(diff: Mapping[str, Any], with_rows: bool = True) -> list[str]:
    """The section's parts (nothing when the interface did not change)."""
    entries = [e for e in diff.get("interface", []) if isinstance(e, Mapping)]
    if not entries:
        return []
    breaking = [e for e in entries if e.get("breaking") is True]
    others = [e for e in entries if e.get("breaking") is not True]
    parts = [f"### Interface changes ({len(breaking)} breaking, {len(others)} other)"]
    for number, entry in enumerate(breaking[:BREAKING_SHOWN], 1):
        parts.extend(_breaking(number, entry, with_rows))
    if len(breaking) > BREAKING_SHOWN:
        more = len(breaking) - BREAKING_SHOWN
        parts.append(f"_\u2026 {more} more breaking changes, see diff.json._")
    parts.extend(_OTHERS.render(others, _row, with_rows))
    return parts


def _where(entry: Mapping[str, Any]) -> str:
    tool = markdown_text(entry.get("tool", ""))
    pointer = entry.get("pointer") or ""
    return f"{tool} {markdown_text(pointer)}" if pointer else tool


def _breaking(number: int, entry: Mapping[str, Any], with_call: bool) -> list[str]:
    change = markdown_text(entry.get("change", ""))
    line = f"**{number}.** \u26a0\ufe0f {change} in {_where(entry)}{_values(entry)}"
    found = entry.get("evidence")
    if not isinstance(found, Mapping):
        return [line]
    refused, total = found.get("refused"), found.get("of")
    if not refused:
        return [f"{line}: none of the base's {total} valid calls is refused by head's schema"]
    said = (
        f"every one of the base's {total} valid calls now fails, this one the simplest"
        if entry.get("change") == "tool-removed"
        else f"head's schema refuses {refused} of the base's {total} valid calls"
    )
    on_head = found.get("onHead")
    if isinstance(on_head, Mapping):
        code = on_head.get("code")
        did = markdown_text(on_head.get("outcome", "")) + (
            f" ({markdown_text(code)})" if code else ""
        )
        said += f"; head's handler, sent the call below, answered: {did}"
    parts = [f"{line}: {said}"]
    if with_call and "call" in found:
        parts.append(fence(json_block_text(found.get("call")), "json"))
    return parts


def _values(entry: Mapping[str, Any]) -> str:
    base, head = entry.get("base"), entry.get("head")
    if base is None and head is None:
        return ""
    return f" ({_value(base)} \u2192 {_value(head)})"


def _value(value: Any) -> str:
    return "\u2014" if value is None else markdown_text(value, VALUE_CAP)


def _row(entry: Mapping[str, Any]) -> str:
    change = str(entry.get("change", ""))
    if change == "description-changed":
        shown = word_diff(entry.get("base"), entry.get("head"))
    else:
        shown = _values(entry).strip(" ()") or "\u2014"
    cells = (
        markdown_text(entry.get("tool", "")),
        markdown_text(change),
        markdown_text(entry.get("pointer") or "(tool)"),
        shown,
    )
    return "| " + " | ".join(cells) + " |"


def word_diff(base: Any, head: Any) -> str:
    """The words a description lost struck out and those it gained in bold, each word
    made inert first (so no word can close the markup around it)."""
    old = str(base or "").split()[:WORDS_CAP]
    new = str(head or "").split()[:WORDS_CAP]
    out: list[str] = []
    for tag, a, b, c, d in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(markdown_text(w, 60) for w in old[a:b])
            continue
        if b > a:
            out.append("~~" + " ".join(markdown_text(w, 60) for w in old[a:b]) + "~~")
        if d > c:
            out.append("**" + " ".join(markdown_text(w, 60) for w in new[c:d]) + "**")
    return " ".join(out) or "\u2014"
