"""The PR comment's agent documentation section: erroneous prompt sets and the description
fixes the model proposed, verified or not (pure).

Shown only when the gate ran agent mode (`fail_on` lists an agent check). Every cell is
untrusted text (the model wrote the templates, the infills and the suggestions), escaped
and capped like the handler's words; the agent receipts hold everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolfuzz_gate.core.report.collapsed import CollapsedTable
from toolfuzz_gate.core.report.context import text_of
from toolfuzz_gate.core.report.untrusted import markdown_text

FIX_ROWS = 10
"""Rows of the section; the agent receipts hold the rest."""
CELL_CAP = 200
"""Characters of a prompt set or a suggestion shown in a cell."""

_SECTION = CollapsedTable(
    "Documentation: agent correctness",
    "_Requests that mean the same thing, which an agent reading the tool's documentation "
    "served inconsistently (agent mode). A proposed description is verified when the "
    "requests, run again with it, fail less often. Model-written text: review it._",
    "| tool | requests | underspecified | proposed description | verified |\n"
    "| --- | --- | --- | --- | --- |",
    FIX_ROWS,
    "prompt sets",
    "agent/",
)


def agent_fix_rows(agent: Sequence[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    """The erroneous prompt sets of the agent receipts, each with its tool, in order."""
    return tuple(
        {**entry, "tool": receipt.get("tool")}
        for receipt in agent
        for entry in receipt.get("correctness", [])
        if isinstance(entry, Mapping) and entry.get("erroneous") is True
    )


def render_agent_section(rows: Sequence[Mapping[str, Any]], with_rows: bool = True) -> list[str]:
    """The collapsed section (nothing when agent mode found no erroneous prompt set)."""
    return _SECTION.render(rows, _row, with_rows)


def _row(row: Mapping[str, Any]) -> str:
    infills = row.get("infills")
    said = "; ".join(_infill(i) for i in infills) if isinstance(infills, list) else ""
    named = row.get("underspecified")
    cells = (
        markdown_text(row.get("tool", "")),
        markdown_text(f"{text_of(row.get('template'))} ({said})", CELL_CAP),
        markdown_text(", ".join(named) if isinstance(named, list) else "") or "\u2014",
        *_fix(row.get("refinement")),
    )
    return "| " + " | ".join(cells) + " |"


def _infill(row: Any) -> str:
    """One row of infills: the text for a one-slot template, `A: x, B: y` for more."""
    if isinstance(row, Mapping):
        return ", ".join(f"{text_of(slot)}: {text_of(value)}" for slot, value in row.items())
    return text_of(row)


def _fix(refinement: Any) -> tuple[str, str]:
    """The proposed description in words, and whether the re-run verified it."""
    suggestion = refinement.get("suggestion") if isinstance(refinement, Mapping) else None
    if not isinstance(suggestion, Mapping):
        return "\u2014", "\u2014"
    words = [f"tool: {text_of(suggestion.get('description'))}"]
    if not suggestion.get("description"):
        words = []
    arguments = suggestion.get("arguments")
    for name, text in arguments.items() if isinstance(arguments, Mapping) else []:
        words.append(f"{name}: {text_of(text)}")
    before, after = refinement.get("failureRateBefore"), refinement.get("failureRateAfter")
    verdict = "yes" if refinement.get("verified") is True else "no"
    return markdown_text(" / ".join(words), CELL_CAP), f"{verdict} ({before} \u2192 {after})"
