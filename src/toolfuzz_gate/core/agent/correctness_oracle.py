"""The correctness oracle, as ToolFuzz builds it: an expected answer generated independently
of the agent's answers, and each answer scored against two expectations (pure).

The expected answer comes from the documentation alone: the model emulates the tool for
each prompt of the set (what would the tool return for it?), then states in one sentence
the answer that is right and agrees with most of those emulated returns. The agent's
answers are never shown to it, so an agent that is consistently wrong cannot make its
own mistake the expectation (a majority vote over its answers would). Each answer is then
scored, on its own, from 1 to 10 against what the tool actually returned for that prompt
and against the expected answer, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.loop import FunctionTool
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

EXPECTATION_SYSTEM = (
    "You emulate tools from their documentation, as the tool would answer. Reply with JSON only."
)
ORACLE_SYSTEM = (
    "You judge answers an AI assistant gave to a user, against what its tool returned and "
    "what was expected. Reply with JSON only."
)
MAX_ANSWER = 2_000
"""Characters of one answer, tool output or expectation shown to or kept from the oracle."""
MAX_REASON = 500
"""Characters kept of the oracle's reason for a score."""


@dataclass(frozen=True)
class Expectation:
    """The expected answer, and the tool emulation it summarises (one per prompt)."""

    expected: str
    emulated: tuple[str, ...]


@dataclass(frozen=True)
class Judgement:
    """One answer's score (1..10) against the tool's output and the expected answer."""

    score: int
    reason: str


def context_line(context: str) -> str:
    """The user's context for the tool, as a sentence of a prompt-writing request ("" when
    the policy gives none, so the request is the same as without the key)."""
    return f" What users of this tool know: {context}." if context else ""


def expectation_messages(
    tool: FunctionTool, prompts: Sequence[str], context: str = ""
) -> list[JSONObject]:
    """The conversation asking for the tool's emulated returns and the expected answer."""
    listed = "\n".join(f"{index}. {prompt}" for index, prompt in enumerate(prompts, 1))
    return [
        {"role": "system", "content": EXPECTATION_SYSTEM},
        {
            "role": "user",
            "content": (
                f"You are emulating the tool {tool.name!r} (description: "
                f"{tool.description or 'none'}; parameters: "
                f"{canonical_compact(tool.parameters)}).{context_line(context)} For each of "
                f"these requests, which mean the same thing, write what the tool would "
                f"return:\n{listed}\nThen write one sentence that is correct and agrees with "
                "most of those returns: the answer a user should get. Reply as "
                '{"emulated": ["...", ...], "expected": "..."}'
            ),
        },
    ]


def read_expectation(reply: Reply) -> Expectation | None:
    """The expected answer (a non-empty string; `expected_answer`, ToolFuzz's name for it,
    is read too) and the emulated returns (the strings given, kept for the record); None
    when the reply holds no expected answer."""
    document = reply.json_object()
    if document is None:
        return None
    expected = document.get("expected", document.get("expected_answer"))  # ToolFuzz's name
    emulated = document.get("emulated")
    if not isinstance(expected, str) or not expected.strip():
        return None
    returns = emulated if isinstance(emulated, list) else []
    kept = tuple(item[:MAX_ANSWER] for item in returns if isinstance(item, str))
    return Expectation(expected.strip()[:MAX_ANSWER], kept)


def judge_messages(prompt: str, answer: str, tool_output: str, expected: str) -> list[JSONObject]:
    """The conversation asking the oracle to score one answer."""
    return [
        {"role": "system", "content": ORACLE_SYSTEM},
        {
            "role": "user",
            "content": (
                f"A user asked: {prompt!r}. The assistant answered:\n"
                f"{answer[:MAX_ANSWER] or '(no answer)'}\nExpectations:\n1. What the tool "
                f"returned to the assistant: {tool_output[:MAX_ANSWER] or '(nothing)'}\n"
                f"2. The expected answer: {expected[:MAX_ANSWER]}\nScore from 1 to 10 how "
                "well the answer meets both (10: both, 1: neither), and give the reason. "
                'Reply as {"score": N, "reason": "..."}'
            ),
        },
    ]


def read_judgement(reply: Reply) -> Judgement | None:
    """The score and its reason; None when the reply holds no score in 1..10. Read
    tolerantly where the meaning is clear: a float (`7.5`) or a numeric string (`"8"`) is
    rounded half up; ToolFuzz's name `correctness_degree` is read as the score; a missing
    reason is kept as ""."""
    document = reply.json_object()
    if document is None:
        return None
    score = read_score(document.get("score", document.get("correctness_degree")))
    if score is None or not 1 <= score <= 10:
        return None
    reason = document.get("reason")
    return Judgement(score, reason.strip()[:MAX_REASON] if isinstance(reason, str) else "")


def read_score(value: JSON) -> int | None:
    """A score as an integer: an integer, a finite float or a numeric string, rounded half
    up; None for anything else (a boolean included)."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return math.floor(value + 0.5)
