"""Correctness failures, wired: ask for prompt sets, run each prompt through the agent,
judge each answer with the oracle, judge the set (pure; the model and the tool are
injected callables).

For each set (`core.agent.correctness.PromptSet`) the expected answer is generated first,
from the documentation alone (`core.agent.correctness_oracle`), then every prompt runs through the
agent. Input consistency compares every call the agent made for each prompt (not only
the first: an agent refused and corrected hides nothing), output consistency what the
tool gave for them. Each answer is scored against its tool output and the expected answer.
A prompt fails when all three checks fail (the paper's rule); the set is erroneous when
one of its prompts fails, and its failure rate is the share of its prompts that fail.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolfuzz_gate.core.agent.correctness import (
    ORACLE_THRESHOLD,
    SLOTS,
    PromptSet,
    answers_agree,
    differing_arguments,
    erroneous,
    inputs_consistent,
    outputs_consistent,
)
from toolfuzz_gate.core.agent.correctness_oracle import (
    Expectation,
    Judgement,
    context_line,
    expectation_messages,
    judge_messages,
    read_expectation,
    read_judgement,
)
from toolfuzz_gate.core.agent.loop import (
    AgentRun,
    CallTool,
    Chat,
    FreshState,
    FunctionTool,
    Step,
    run_agent,
)
from toolfuzz_gate.core.gate.agent_settings import AgentSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

SCORED, UNREADABLE, NO_ANSWER, NO_EXPECTATION = "scored", "unreadable", "no-answer", "no-expected"
"""How each prompt's answer was judged: scored; the oracle's reply could not be read; the
agent gave no answer (step limit); no expected answer to score it against."""
METHOD = "tool-emulation"
"""How the receipt's `oracle.expected` was made (0.5.0: a majority vote over the answers)."""


def prompt_set_messages(
    tool: FunctionTool, number: int, settings: AgentSettings, context: str = ""
) -> list[JSONObject]:
    """The conversation asking for prompt set `number` (1-based) of `settings.prompt_sets`."""
    slots = SLOTS[: settings.slots]
    if len(slots) == 1:
        shape, example = f"one slot {slots[0]}", "'Paris', 'the city of Paris', 'Paris, France'"
        reply = '{"template": "... [A] ...", "infills": [{"A": "..."}, ...]}'
    else:
        shape = f"1 to {len(slots)} slots ({', '.join(slots)}, in that order)"
        example = "[A] 'cafes' with [B] 'Paris', [A] 'coffee shops' with [B] 'the city of Paris'"
        reply = '{"template": "... [A] ... [B] ...", "infills": [{"A": "...", "B": "..."}, ...]}'
    return [
        {
            "role": "system",
            "content": "You write test requests for AI assistants. Reply with JSON only.",
        },
        {
            "role": "user",
            "content": (
                f"Write prompt set {number} of {settings.prompt_sets} for an assistant that "
                f"has the tool {tool.name!r} (description: {tool.description or 'none'}; "
                f"parameters: {canonical_compact(tool.parameters)}).{context_line(context)} A "
                f"prompt set is a user request with {shape} and {settings.infills} rows of "
                "infills; the rows mean the same thing to a person but are worded differently "
                f"(for example {example}). Each set tests a different use of the tool. "
                f"Reply as {reply}"
            ),
        },
    ]


@dataclass(frozen=True)
class SetRun:
    """One prompt set through the agent and the oracle."""

    prompt_set: PromptSet
    runs: tuple[AgentRun, ...]
    expectation: Expectation | None
    judgements: tuple[Judgement | None, ...]
    judged: tuple[str, ...]
    """Per prompt: `scored`, `unreadable`, `no-answer` or `no-expected`."""

    def call_sequences(self) -> list[list[JSONObject]]:
        """Every call the agent made for each prompt, in order."""
        return [
            [step.parsed for step in _calls(run) if step.parsed is not None] for run in self.runs
        ]

    def output_sequences(self) -> list[list[str]]:
        """What the tool gave for each of those calls."""
        return [[_result(step.record) for step in _calls(run)] for run in self.runs]

    def scores(self) -> list[int | None]:
        return [None if j is None else j.score for j in self.judgements]

    def consistency(self) -> tuple[bool, bool]:
        """(inputs consistent, outputs consistent) over every call of every prompt."""
        inputs: list[JSON] = [list[JSON](calls) for calls in self.call_sequences()]
        outputs = [canonical_compact(list[JSON](seen)) for seen in self.output_sequences()]
        return inputs_consistent(inputs), outputs_consistent(outputs)

    def failing(self) -> list[bool]:
        """Per prompt: all three checks fail (inputs and outputs inconsistent across the
        set, and its answer scored below the threshold)."""
        inputs_ok, outputs_ok = self.consistency()
        return [
            score is not None and erroneous(inputs_ok, outputs_ok, score >= ORACLE_THRESHOLD)
            for score in self.scores()
        ]

    def failure_rate(self) -> float:
        """The share of the set's prompts that fail."""
        failing = self.failing()
        return sum(failing) / len(failing) if failing else 0.0

    def low_share(self) -> float:
        """The share of the prompts whose answer scored below the threshold."""
        low = [score for score in self.scores() if score is not None and score < ORACLE_THRESHOLD]
        return len(low) / len(self.runs) if self.runs else 0.0

    def checks(self) -> JSONObject:
        inputs_ok, outputs_ok = self.consistency()
        scored = [score for score in self.scores() if score is not None]
        failing = self.failing()
        every_call: list[JSONObject | None] = [c for calls in self.call_sequences() for c in calls]
        prompts = self.prompt_set.prompts()
        return {
            "inputConsistent": inputs_ok,
            "outputConsistent": outputs_ok,
            "answersAgree": answers_agree(scored),
            "erroneous": any(failing),
            "underspecified": list[JSON](differing_arguments(every_call)),
            "failureRate": round(self.failure_rate(), 4),
            "failingPrompts": [p for p, bad in zip(prompts, failing, strict=True) if bad],
            "recovered": [entry for run in self.runs if (entry := recovered(run)) is not None],
        }

    def to_json(self) -> JSONObject:
        oracle: JSON = None
        if self.expectation is not None:
            oracle = {
                "method": METHOD,
                "expected": self.expectation.expected,
                "emulated": list(self.expectation.emulated),
                "scores": list[JSON](self.scores()),
                "reasons": [None if j is None else j.reason for j in self.judgements],
                "judged": list(self.judged),
            }
        return {
            "template": self.prompt_set.template,
            "infills": self.prompt_set.infills_json(),
            "prompts": list(self.prompt_set.prompts()),
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
    *,
    max_steps: int = AgentSettings.steps,
    context: str = "",
    expectation: Expectation | None = None,
) -> SetRun:
    """The expected answer (asked for, unless `expectation` is given: a re-run keeps the
    first run's), then every prompt of the set through the agent (each from the same
    state when `fresh_state` is given), then the oracle on each answer."""
    prompts = prompt_set.prompts()
    if expectation is None:
        expectation = read_expectation(chat(expectation_messages(tool, prompts, context), ()))
    runs = tuple(
        run_agent(prompt, tool, chat, call_tool, max_steps, fresh_state=fresh_state)
        for prompt in prompts
    )
    judgements: list[Judgement | None] = []
    judged: list[str] = []
    for prompt, run in zip(prompts, runs, strict=True):
        judgement, how = None, NO_EXPECTATION
        if expectation is not None and run.outcome == "step-limit":
            how = NO_ANSWER
        elif expectation is not None:
            asked = judge_messages(prompt, run.answer, tool_output(run), expectation.expected)
            judgement = read_judgement(chat(asked, ()))
            how = SCORED if judgement is not None else UNREADABLE
        judgements.append(judgement)
        judged.append(how)
    return SetRun(prompt_set, runs, expectation, tuple(judgements), tuple(judged))


def tool_output(run: AgentRun) -> str:
    """What the tool last gave the agent in `run` ("" when it made no call)."""
    calls = _calls(run)
    if not calls:
        return ""
    record = calls[-1].record
    shown = record.get("output") if record.get("output") is not None else record.get("said")
    return f"{record.get('outcome')}: {shown}" if shown else str(record.get("outcome"))


def recovered(run: AgentRun) -> JSONObject | None:
    """When the tool refused one of the run's calls (rejected, crashed, timed out) and
    accepted a later one: the agent corrected itself, which input consistency over the
    first calls alone would hide. Names the arguments it changed."""
    calls = _calls(run)
    refused = next((i for i, s in enumerate(calls) if s.record.get("outcome") != "accepted"), None)
    if refused is None:
        return None
    accepted = next(
        (s for s in calls[refused + 1 :] if s.record.get("outcome") == "accepted"), None
    )
    if accepted is None:
        return None
    first = calls[refused]
    entry: JSONObject = {
        "prompt": run.prompt,
        "refused": first.parsed,
        "outcome": first.record.get("outcome"),
        "accepted": accepted.parsed,
        "arguments": list[JSON](differing_arguments([first.parsed, accepted.parsed])),
    }
    said = first.record.get("said")
    if isinstance(said, str):
        entry["said"] = said
    return entry


def _calls(run: AgentRun) -> list[Step]:
    return [step for step in run.steps if step.kind == "call" and step.parsed is not None]


def _result(record: JSONObject) -> str:
    seen = {key: record.get(key) for key in ("outcome", "output", "said")}
    return canonical_compact(seen)
