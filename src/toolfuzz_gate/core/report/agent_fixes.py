"""The PR comment's agent sections: what an agent reached, with the prompt that reached it,
and the erroneous prompt sets with their prompts and the description fixes the model
proposed, verified or not (pure).

Shown only when the gate ran agent mode (`fail_on` lists an agent check), or when report
mode finds the first run's agent receipts. Each row has its state against the base's agent
receipts (`new`, `still`, `fixed`; `on head` when there were none to compare with,
`core.gate.agent_diff`). Every cell is untrusted text (the model wrote the prompts, the
templates, the infills and the suggestions), escaped and capped like the handler's words;
the agent receipts hold everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolfuzz_gate.core.gate.agent_diff import AgentFinding, diff_agent
from toolfuzz_gate.core.report.collapsed import CollapsedTable
from toolfuzz_gate.core.report.context import text_of
from toolfuzz_gate.core.report.untrusted import markdown_text

FIX_ROWS = 10
"""Rows of each section; the agent receipts hold the rest."""
CELL_CAP = 200
"""Characters of a prompt, a prompt set or a suggestion shown in a cell."""
PROMPTS_CAP = 400
"""Characters of a prompt set's prompts shown in their cell."""
NOT_DIFFED = "on head"
"""The state of a row when no base agent receipts were at hand."""

_REACHED = CollapsedTable(
    "Agent-reachable",
    "_Counterexamples an agent reading the tool's documentation reached from a plain request, "
    "and documentation probes whose calls failed (agent mode). Model-written text: review "
    "it._",
    "| state | tool | finding | prompt that reached it |\n| --- | --- | --- | --- |",
    FIX_ROWS,
    "agent findings",
    "agent/",
)

_SECTION = CollapsedTable(
    "Documentation: agent correctness",
    "_Requests that mean the same thing, which an agent reading the tool's documentation "
    "served inconsistently (agent mode). A proposed description is verified when the "
    "requests, run again with it, fail less often. Model-written text: review it._",
    "| state | tool | requests | underspecified | proposed description | verified |\n"
    "| --- | --- | --- | --- | --- | --- |",
    FIX_ROWS,
    "prompt sets",
    "agent/",
)


def agent_rows(
    agent: Sequence[Mapping[str, Any]], base: Sequence[Mapping[str, Any]] | None = None
) -> tuple[tuple[Mapping[str, Any], ...], tuple[Mapping[str, Any], ...]]:
    """The rows of the two sections: (reached counterexamples and failing probes, erroneous
    prompt sets), each its receipt entry with `tool`, `kind` and `state`; head's first, in
    receipt order, then those only the base had (`fixed`)."""
    diff = diff_agent(agent, base)
    listed = [(f, state or NOT_DIFFED) for f, state in diff.head]
    listed += [(f, "fixed") for f in diff.fixed]
    rows = [_row_of(finding, state) for finding, state in listed]
    return (
        tuple(row for row in rows if row["kind"] != "prompt-set"),
        tuple(row for row in rows if row["kind"] == "prompt-set"),
    )


def _row_of(finding: AgentFinding, state: str) -> Mapping[str, Any]:
    return {**finding.entry, "tool": finding.tool, "kind": finding.kind, "state": state}


def render_agent_reached(rows: Sequence[Mapping[str, Any]], with_rows: bool = True) -> list[str]:
    """The collapsed section of reached findings (nothing when there is none)."""
    return _REACHED.render(rows, _reached_row, with_rows)


def render_agent_section(rows: Sequence[Mapping[str, Any]], with_rows: bool = True) -> list[str]:
    """The collapsed section (nothing when agent mode found no erroneous prompt set)."""
    return _SECTION.render(rows, _row, with_rows)


def _reached_row(row: Mapping[str, Any]) -> str:
    if row.get("kind") == "counterexample":
        path = text_of(row.get("path")) or "/"
        fingerprint = text_of(row.get("fingerprint"))
        finding = f"{text_of(row.get('failure'))} at {path} ({fingerprint})"
    else:
        failures = row.get("failures")
        named = ", ".join(text_of(f) for f in failures) if isinstance(failures, list) else ""
        finding = f"documentation probe: {named}"
    cells = (
        markdown_text(row.get("state", "")),
        markdown_text(row.get("tool", "")),
        markdown_text(finding),
        markdown_text(text_of(row.get("prompt")), CELL_CAP) or "\u2014",
    )
    return "| " + " | ".join(cells) + " |"


def _row(row: Mapping[str, Any]) -> str:
    named = row.get("underspecified")
    cells = (
        markdown_text(row.get("state", "")),
        markdown_text(row.get("tool", "")),
        markdown_text(_requests(row), PROMPTS_CAP),
        markdown_text(", ".join(named) if isinstance(named, list) else "") or "\u2014",
        *_fix(row.get("refinement")),
    )
    return "| " + " | ".join(cells) + " |"


def _requests(row: Mapping[str, Any]) -> str:
    """The template, then each prompt quoted, those that failed marked: `Where is [A]?:
    “Where is Paris?” (fails); “Where is Paris, France?”`. A receipt from before prompts
    were kept shows its infills instead."""
    template = text_of(row.get("template"))
    prompts, failing = row.get("prompts"), row.get("failingPrompts")
    failed = {text_of(p) for p in failing} if isinstance(failing, list) else set()
    if isinstance(prompts, list) and prompts:
        shown = [
            f"\u201c{text_of(p)}\u201d" + (" (fails)" if text_of(p) in failed else "")
            for p in prompts
        ]
        return f"{template}: {'; '.join(shown)}"
    infills = row.get("infills")
    said = "; ".join(_infill(i) for i in infills) if isinstance(infills, list) else ""
    return f"{template} ({said})"


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
