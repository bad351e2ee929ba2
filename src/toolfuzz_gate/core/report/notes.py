"""The PR comment's documentation section: under-specification notes as Markdown (pure).

A note is a clean rejection of a schema-valid call by a tool whose schema is not declared
complete: the schema admits a call the tool refuses. It is not a defect of the tool, so it
sits apart from the counterexamples, collapsed, one row per tool and cause, with the schema
patch the gate verified when it found one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.report.collapsed import CollapsedTable
from toolfuzz_gate.core.report.context import iter_notes, text_of
from toolfuzz_gate.core.report.untrusted import markdown_text

NOTE_ROWS = 30
"""Rows of the documentation section; the receipts hold the rest."""
PATCH_CAP = 200
"""Characters of a row's proposed schema change."""

_SECTION = CollapsedTable(
    "Documentation: under-specified schemas",
    "_Schema-valid calls the tools refused cleanly: the schema admits what the tool does "
    "not. Notes, not counterexamples; declare `strict: true` to hold a tool to its schema._",
    "| tool | cause | path | what the schema could say |\n| --- | --- | --- | --- |",
    NOTE_ROWS,
    "notes",
    "the receipts",
)


def render_notes_section(diff: Mapping[str, Any], with_rows: bool = True) -> list[str]:
    """The collapsed documentation section (nothing when there are no notes)."""
    return _SECTION.render(list(iter_notes(diff)), _row, with_rows)


def _row(note: Mapping[str, Any]) -> str:
    cells = (
        markdown_text(note.get("tool", "")),
        markdown_text(text_of(note.get("cause")) or "(none)"),
        markdown_text(text_of(note.get("path")) or "(root)"),
        _patch(note.get("suggestion")),
    )
    return "| " + " | ".join(cells) + " |"


def _patch(suggestion: Any) -> str:
    """The verified schema change in words, or a dash when none was found or verified."""
    if not isinstance(suggestion, Mapping) or suggestion.get("verified") is not True:
        return "\u2014"
    return markdown_text(text_of(suggestion.get("sentence")), PATCH_CAP)
