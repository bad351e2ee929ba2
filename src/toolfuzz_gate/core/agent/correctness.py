"""Correctness failures, the pure half: prompt sets from a template and synonymous
infills, and the three checks that decide whether a set is erroneous (pure).

Not yet wired into `toolfuzz-gate agent`: the command that asks the model for templates,
runs the agent on each prompt and asks the oracle is the next step (docs/agent-mode.md).

The ToolFuzz method: the model writes a prompt template with one slot from the tool's
documentation, `Find cafes near [A]`, and infills that mean the same thing (`Paris`,
`City of Paris`, `Paris, France`). The agent runs each prompt. The set is erroneous only
when all three checks fail: the agent's calls disagree (input consistency, after
normalisation), the tool's outputs disagree (output consistency, exact), and the
answers disagree with the expected one (the oracle's similarity, 1 to 10, below
`ORACLE_THRESHOLD` for some answer). The argument whose values differ across the calls is
the one whose documentation is underspecified.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

SLOT = "[A]"
MAX_INFILLS = 5
ORACLE_THRESHOLD = 5
"""An answer the oracle scores below this (on 1..10) disagrees with the expected one."""


@dataclass(frozen=True)
class PromptSet:
    """A template with one slot, and the prompts its infills make."""

    template: str
    infills: tuple[str, ...]

    def prompts(self) -> tuple[str, ...]:
        return tuple(self.template.replace(SLOT, infill, 1) for infill in self.infills)


def read_prompt_set(reply: Reply) -> PromptSet | None:
    """The set in a reply of the form `{"template": "... [A] ...", "infills": [...]}` (the
    JSON may sit in a code fence), or None when the reply holds no usable set: no JSON,
    no slot, or fewer than two distinct infills."""
    document = reply.json_object()
    if document is None:
        return None
    template, infills = document.get("template"), document.get("infills")
    if not isinstance(template, str) or template.count(SLOT) != 1 or not isinstance(infills, list):
        return None
    distinct = list(dict.fromkeys(i.strip() for i in infills if isinstance(i, str) and i.strip()))
    if len(distinct) < 2:
        return None
    return PromptSet(template.strip(), tuple(distinct[:MAX_INFILLS]))


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


def inputs_consistent(calls: Sequence[JSONObject | None]) -> bool:
    """Did every prompt lead to the same call, after normalisation? (No call is a call
    too: a prompt the agent answered without the tool disagrees with one that used it.)"""
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
