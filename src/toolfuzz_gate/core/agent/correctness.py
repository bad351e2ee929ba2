"""Correctness failures, the pure half: prompt sets from a template and synonymous
infills, and the three checks that decide whether a set is erroneous (pure).

The ToolFuzz method: the model writes a prompt template with one to three slots from the
tool's documentation, `Find [A] near [B]`, and rows of infills that mean the same thing
(`cafes`/`Paris`, `coffee shops`/`the city of Paris`). The agent runs each prompt. A
prompt fails only when all three checks fail: the agent's calls across the set disagree
(input consistency, after normalisation), the tool's outputs disagree (output
consistency, exact), and the oracle scores its answer below `ORACLE_THRESHOLD` against the
tool's output and the expected answer. The argument whose values differ across the calls
is the one whose documentation is underspecified.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

SLOTS = ("[A]", "[B]", "[C]")
SLOT = SLOTS[0]
MAX_INFILLS = 10
MAX_INFILL = 200
"""Characters kept of one infill."""
ORACLE_THRESHOLD = 5
"""An answer the oracle scores below this (on 1..10) disagrees with the expected one."""
_SLOT = re.compile(r"\[([ABC])\]")


@dataclass(frozen=True)
class PromptSet:
    """A template with one to three slots, and one row of infills per prompt (a value per
    slot, in slot order)."""

    template: str
    infills: tuple[tuple[str, ...], ...]

    def slots(self) -> tuple[str, ...]:
        return tuple(slot for slot in SLOTS if slot in self.template)

    def prompts(self) -> tuple[str, ...]:
        """The template filled with each row, in one pass (an infill that looks like a
        slot is left as it is)."""
        order = [slot[1] for slot in self.slots()]

        def filled(row: tuple[str, ...]) -> str:
            return _SLOT.sub(lambda found: row[order.index(found.group(1))], self.template)

        return tuple(filled(row) for row in self.infills)

    def infills_json(self) -> list[JSON]:
        """As the receipt keeps them: strings for a one-slot template, else one object per
        row (`{"A": ..., "B": ...}`)."""
        if len(self.slots()) == 1:
            return [row[0] for row in self.infills]
        labels = [slot[1] for slot in self.slots()]
        return [dict(zip(labels, row, strict=True)) for row in self.infills]


def read_prompt_set(
    reply: Reply, max_slots: int = len(SLOTS), max_infills: int = MAX_INFILLS
) -> PromptSet | None:
    """The set in a reply of the form `{"template": "... [A] ... [B] ...", "infills":
    [{"A": ..., "B": ...}, ...]}` (the JSON may sit in a code fence). Read tolerantly where
    the meaning is clear: a one-slot template's infills may be plain strings, a row may be a
    list in slot order, and infills may come per slot (`{"A": [...], "B": [...]}`, rows
    zipped). None when the reply holds no usable set: no JSON, slots that are not [A],
    [A] [B] or [A] [B] [C] (each once, at most `max_slots`), or fewer than two distinct rows."""
    document = reply.json_object()
    if document is None:
        return None
    template, given = document.get("template"), document.get("infills")
    if not isinstance(template, str):
        return None
    labels = [found.group(1) for found in _SLOT.finditer(template)]
    count = len(labels)
    if not 1 <= count <= max_slots or labels != list("ABC"[:count]):
        return None
    if isinstance(given, dict):  # per slot: {"A": [...], "B": [...]}
        columns = [given.get(label, given.get(f"[{label}]")) for label in labels]
        if not all(isinstance(column, list) for column in columns):
            return None
        given = [
            list(row) for row in zip(*[c for c in columns if isinstance(c, list)], strict=False)
        ]
    if not isinstance(given, list):
        return None
    rows = [row for item in given if (row := _row(item, labels)) is not None]
    distinct = list(dict.fromkeys(rows))
    if len(distinct) < 2:
        return None
    return PromptSet(template.strip(), tuple(distinct[:max_infills]))


def _row(item: JSON, labels: list[str]) -> tuple[str, ...] | None:
    """One row of infills, one non-empty string per slot, or None."""
    if isinstance(item, str):
        values: list[JSON] = [item]
    elif isinstance(item, list):
        values = list(item)
    elif isinstance(item, dict):
        values = [item.get(label, item.get(f"[{label}]")) for label in labels]
    else:
        return None
    if len(values) != len(labels):
        return None
    texts = [value.strip()[:MAX_INFILL] for value in values if isinstance(value, str)]
    if len(texts) != len(labels) or not all(texts):
        return None
    return tuple(texts)


def normalized(value: JSON) -> JSON:
    """`value` as input consistency compares it: strings NFKC-normalised, case-folded and
    with whitespace collapsed; numbers equal when they are equal (1 and 1.0)."""
    if isinstance(value, str):
        return " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        return [normalized(item) for item in value]
    return {key: normalized(item) for key, item in value.items()}


def inputs_consistent(calls: Sequence[JSON]) -> bool:
    """Did every prompt lead to the same calls, after normalisation? Each item is one
    prompt's calls (a list, every call the agent made, in order) or one call. (No call is
    a call too: a prompt the agent answered without the tool disagrees with one that used
    it; an agent that was refused and called again disagrees with one right the first time.)"""
    seen = {canonical_compact(None if call is None else normalized(call)) for call in calls}
    return len(seen) <= 1


def outputs_consistent(outputs: Sequence[str | None]) -> bool:
    """Did every prompt's call give the same output (by digest; None: no output)?"""
    return len(set(outputs)) <= 1


def answers_agree(scores: Sequence[int]) -> bool:
    """Does every answer agree with the expected one (each score at the threshold or above)?"""
    return all(score >= ORACLE_THRESHOLD for score in scores)


def erroneous(inputs_ok: bool, outputs_ok: bool, answers_ok: bool) -> bool:
    """The paper's rule: a prompt set is erroneous only when all three checks fail."""
    return not (inputs_ok or outputs_ok or answers_ok)


def differing_arguments(calls: Sequence[JSONObject | None]) -> list[str]:
    """The top-level arguments whose normalised values differ across the calls (a
    missing argument differs from a present one): the ones to document better."""
    made = [call for call in calls if call is not None]
    names = sorted({name for call in made for name in call})
    return [
        name
        for name in names
        if len({canonical_compact(normalized(call.get(name))) for call in made}) > 1
        or any(name not in call for call in made)
    ]
