"""Correctness failures, wired: ask for prompt sets, run each prompt through the agent,
ask the oracle, judge the set (pure; the model and the tool are injected callables).

For each set (`core.agent.correctness.PromptSet`) every prompt runs through the agent.
The agent's first tool call stands for its reading of the documentation: input
consistency compares those calls' arguments, output consistency what the tool gave for
them. The oracle is the model asked once per set, with all the answers: which answer do
most of them give (the majority-vote expected answer), and how similar is each answer to
it, 1 to 10. The set is erroneous only when all three checks fail.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.correctness import (
    ORACLE_THRESHOLD,
    SLOT,
    PromptSet,
    answers_agree,
    differing_arguments,
    erroneous,
    inputs_consistent,
    outputs_consistent,
)
from toolfuzz_gate.core.agent.loop import (
    AgentRun,
    CallTool,
    Chat,
    FreshState,
    FunctionTool,
    run_agent,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

PROMPT_SETS = 2
"""Prompt sets asked for per tool."""
ORACLE_SYSTEM = (
    "You judge answers an AI assistant gave to the same question asked in different words. "
    "Reply with JSON only."
)
MAX_ANSWER = 2_000
"""Characters of one answer shown to the oracle."""


def prompt_set_messages(tool: FunctionTool, number: int) -> list[JSONObject]:
    """The conversation asking for prompt set `number` (1-based) of `PROMPT_SETS`."""
    return [
        {
            "role": "system",
            "content": "You write test requests for AI assistants. Reply with JSON only.",
        },
        {
            "role": "user",
            "content": (
                f"Write prompt set {number} of {PROMPT_SETS} for an assistant that has the "
                f"tool {tool.name!r} (description: {tool.description or 'none'}; parameters: "
                f"{canonical_compact(tool.parameters)}). A prompt set is a user request "
                f"with one slot {SLOT} and 3 infills that mean the same thing to a person "
                "but are worded differently (for a place: 'Paris', 'the city of Paris', "
                "'Paris, France'). Each set tests a different use of the tool. Reply as "
                '{"template": "... [A] ...", "infills": ["...", "...", "..."]}'
            ),
        },
    ]


def oracle_messages(prompt_set: PromptSet, answers: Sequence[str]) -> list[JSONObject]:
    """The conversation asking the oracle for the expected answer and each answer's score."""
    listed = "\n".join(
        f"{index}. {answer[:MAX_ANSWER] or '(no answer)'}"
        for index, answer in enumerate(answers, 1)
    )
    return [
        {"role": "system", "content": ORACLE_SYSTEM},
        {
            "role": "user",
            "content": (
                f"The request {prompt_set.template!r} was asked with {SLOT} replaced by each "
                f"of {json.dumps(list(prompt_set.infills))}, which mean the same thing. The "
                f"assistant's answers, in that order:\n{listed}\nState the answer most of "
                "them give (the expected answer), then score how similar each answer is to "
                'it, from 1 (contradicts it) to 10 (the same). Reply as {"expected": "...", '
                '"scores": [...]}'
            ),
        },
    ]


@dataclass(frozen=True)
class Oracle:
    expected: str
    scores: tuple[int, ...]


def read_oracle(reply: Reply, answers: int) -> Oracle | None:
    """The oracle's verdict: an expected answer and one score in 1..10 per answer; None
    when the reply holds no such thing (the set is then unjudged: `core.agent.health`).
    Read tolerantly where the meaning is clear: a score written as a float (`7.5`) or as
    a numeric string (`"8"`) is rounded half up to an integer."""
    document = reply.json_object()
    if document is None:
        return None
    expected, scores = document.get("expected"), document.get("scores")
    if not isinstance(expected, str) or not isinstance(scores, list) or len(scores) != answers:
        return None
    numbers = [_score(score) for score in scores]
    if any(number is None or not 1 <= number <= 10 for number in numbers):
        return None
    return Oracle(expected[:MAX_ANSWER], tuple(n for n in numbers if n is not None))


def _score(value: JSON) -> int | None:
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


@dataclass(frozen=True)
class SetRun:
    """One prompt set through the agent and the oracle."""

    prompt_set: PromptSet
    runs: tuple[AgentRun, ...]
    oracle: Oracle | None

    def calls(self) -> list[JSONObject | None]:
        """Each prompt's first tool call's arguments (None: the agent made no call)."""
        return [_first_call(run)[0] for run in self.runs]

    def outputs(self) -> list[str | None]:
        """What the tool gave for each first call (None: no call was run)."""
        return [_first_call(run)[1] for run in self.runs]

    def failure_rate(self) -> float:
        """The share of prompts whose answer the oracle scores below the threshold (all of
        them when the oracle is unreadable: nothing is known to be right)."""
        if self.oracle is None:
            return 1.0
        low = sum(1 for score in self.oracle.scores if score < ORACLE_THRESHOLD)
        return low / len(self.oracle.scores)

    def checks(self) -> JSONObject:
        calls = self.calls()
        inputs_ok = inputs_consistent(calls)
        outputs_ok = outputs_consistent(self.outputs())
        answers_ok = self.oracle is None or answers_agree(self.oracle.scores)
        return {
            "inputConsistent": inputs_ok,
            "outputConsistent": outputs_ok,
            "answersAgree": answers_ok,
            "erroneous": erroneous(inputs_ok, outputs_ok, answers_ok),
            "underspecified": list[JSON](differing_arguments(calls)),
            "failureRate": round(self.failure_rate(), 4),
        }

    def to_json(self) -> JSONObject:
        oracle: JSON = None
        if self.oracle is not None:
            oracle = {"expected": self.oracle.expected, "scores": list(self.oracle.scores)}
        return {
            "template": self.prompt_set.template,
            "infills": list(self.prompt_set.infills),
            "runs": [run.to_json() for run in self.runs],
            "oracle": oracle,
            **self.checks(),
        }


def run_prompt_set(
    prompt_set: PromptSet,
    tool: FunctionTool,
    chat: Chat,
    call_tool: CallTool,
    fresh_state: FreshState | None = None,
) -> SetRun:
    """Every prompt of the set through the agent (each from the same state when
    `fresh_state` is given), then the oracle on their answers."""
    runs = tuple(
        run_agent(prompt, tool, chat, call_tool, fresh_state=fresh_state)
        for prompt in prompt_set.prompts()
    )
    answers = [run.answer for run in runs]
    oracle = read_oracle(chat(oracle_messages(prompt_set, answers), ()), len(answers))
    return SetRun(prompt_set, runs, oracle)


def _first_call(run: AgentRun) -> tuple[JSONObject | None, str | None]:
    for step in run.steps:
        if step.kind == "call" and step.parsed is not None:
            record = step.record
            seen = {key: record.get(key) for key in ("outcome", "output", "said")}
            return step.parsed, canonical_compact(seen)
    return None, None
