"""A plain Markdown rendering of a `toolfuzz-diff/1` document (pure).

Tool names, paths, keywords and reasons come from receipts, and so from schemas and handlers
nobody vetted: every such string is escaped (Markdown punctuation, HTML, mentions), kept to
one line and cut to a bounded length, and the number of lines is bounded too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MAX_TEXT = 200
MAX_ITEMS = 100

# Only inside a line: the escaped text never starts one, so `-`, `+`, `.` stay as they are.
_SPECIAL = re.compile(r"([\\`*_{}\[\]()#!|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "&#64;"}


def escape_markdown(text: str, limit: int = MAX_TEXT) -> str:
    """One line of inert text: cut to `limit` characters, control characters and line
    breaks as spaces, HTML and mentions as entities, Markdown punctuation backslashed."""
    cut = text if len(text) <= limit else text[:limit] + "…"
    flat = "".join(" " if _breaks(c) else c for c in cut)
    # Backslashes first: the entities' own `#` must stay as it is.
    escaped = _SPECIAL.sub(r"\\\1", flat)
    return "".join(_ENTITIES.get(c, c) for c in escaped)


def _breaks(character: str) -> bool:
    """Control characters and line or paragraph separators: kept out of a one-line text."""
    code = ord(character)
    return code < 32 or 0x7F <= code < 0xA0 or character in "\u2028\u2029"


def render_diff_markdown(document: Mapping[str, Any]) -> str:
    """A heading, the totals, then one line per new or fixed counterexample and per
    unsupported keyword added or removed."""
    totals = document["totals"]
    lines = [
        "## toolfuzz-gate diff",
        "",
        f"{_side('base', document['base'])} → {_side('head', document['head'])}",
        "",
        "| new | fixed | still failing | unsupported added | unsupported removed "
        "| tools added | tools removed | coverage drops |",
        "|---|---|---|---|---|---|---|---|",
        "| "
        + " | ".join(
            str(int(totals[key]))
            for key in (
                "new",
                "fixed",
                "stillFailing",
                "unsupportedAdded",
                "unsupportedRemoved",
                "toolsAdded",
                "toolsRemoved",
                "coverageDrops",
            )
        )
        + " |",
    ]
    items = list(_items(document["tools"]))
    if items:
        lines.append("")
        lines += items[:MAX_ITEMS]
        if len(items) > MAX_ITEMS:
            lines.append(f"- … and {len(items) - MAX_ITEMS} more")
    else:
        lines += ["", "No new or fixed counterexamples and no unsupported keyword changes."]
    return "\n".join(lines) + "\n"


def _side(name: str, revision: Mapping[str, Any]) -> str:
    ref, sha = revision.get("ref"), revision.get("sha")
    if ref is None and sha is None:
        return name
    shown = " ".join(
        part
        for part in (
            escape_markdown(str(ref)) if ref is not None else "",
            f"({escape_markdown(str(sha)[:12])})" if sha is not None else "",
        )
        if part
    )
    return f"{name} {shown}"


def _items(tools: list[Mapping[str, Any]]) -> list[str]:
    found: list[str] = []
    for entry in tools:
        tool = escape_markdown(str(entry["tool"]))
        for verb, key in (("new", "new"), ("fixed", "fixed")):
            for cx in entry["counterexamples"][key]:
                found.append(
                    f"- **{verb}** {tool}: {escape_markdown(str(cx.get('failure')))} at "
                    f"{_where(cx.get('path'))}"
                    f" ({escape_markdown(str(cx.get('mutation')))})"
                    f": {escape_markdown(str(_reason(cx)))}"
                )
        for verb, key in (
            ("unsupported keyword added", "added"),
            ("unsupported keyword removed", "removed"),
        ):
            for item in entry["unsupported"][key]:
                found.append(
                    f"- **{verb}** {tool}: {escape_markdown(str(item['keyword']))} at "
                    f"{_where(item['path'])}"
                )
    return found


def _where(path: Any) -> str:
    return escape_markdown(str(path)) if path else "(root)"


def _reason(counterexample: Mapping[str, Any]) -> Any:
    error = counterexample.get("error")
    return error.get("reason", "") if isinstance(error, Mapping) else ""
