"""The ToolFuzz oracle: an expected answer generated from the documentation alone, each
answer scored against its tool output and that expectation, the paper's per-prompt rule,
and consistency over every call (an agent corrected after a refusal is its own category)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tests.core.agent.test_refinement import TOOL, Model, call_tool
from toolfuzz_gate.core.agent.chat import Reply, ToolCall
from toolfuzz_gate.core.agent.correctness import PromptSet
from toolfuzz_gate.core.agent.correctness_oracle import EXPECTATION_SYSTEM, ORACLE_SYSTEM
from toolfuzz_gate.core.agent.loop import ToolResult
from toolfuzz_gate.core.agent.prompt_sets import run_prompt_set
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

ROWS = (("Paris",), ("the city of Paris",), ("Paris, France",))
WHERE = PromptSet("Where is [A]?", ROWS)


def test_a_consistently_wrong_majority_is_caught_by_the_independent_oracle() -> None:
    """Two of three prompts get Paris, Texas: a majority vote over the answers would make
    Texas the expected answer and call the one right answer wrong (0.5.0 did)."""
    model = Model([], {})
    run = run_prompt_set(WHERE, TOOL, model.__call__, call_tool)
    answers = [r.answer for r in run.runs]
    majority, votes = Counter(answers).most_common(1)[0]
    assert (majority, votes) == ("accepted: 33.66,-95.55", 2)  # the wrong answer wins a vote
    assert run.expectation is not None
    assert run.expectation.expected == "Paris, France: 48.85,2.35"
    # the expectation was written before any agent ran, from the documentation alone
    expectation_asked = model.seen[model.asked.index(EXPECTATION_SYSTEM[:20])]
    assert model.asked[0] == EXPECTATION_SYSTEM[:20]
    assert "33.66" not in expectation_asked and "48.85" not in expectation_asked
    assert "Where is the city of Paris?" in expectation_asked
    # each answer judged on its own, against its own tool output and the expectation
    judged = [
        seen
        for name, seen in zip(model.asked, model.seen, strict=True)
        if name == ORACLE_SYSTEM[:20]
    ]
    assert len(judged) == 3
    assert "1. What the tool returned to the assistant: accepted: 33.66,-95.55" in judged[0]
    checks = run.checks()
    assert run.scores() == [2, 2, 10]
    assert checks["failingPrompts"] == ["Where is Paris?", "Where is the city of Paris?"]
    assert checks["failureRate"] == 0.6667 and checks["erroneous"] is True


def test_consistent_inputs_or_outputs_keep_a_set_from_being_erroneous() -> None:
    """The paper's rule: a prompt fails only when all three checks fail. Every call the
    same (the agent always leaves the country out) is consistent, however wrong."""

    def never_country(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        if messages[0]["role"] == "system" and "helpful assistant" in str(messages[0]["content"]):
            if messages[-1]["role"] != "tool":
                return Reply("", (ToolCall("c", "geocode", '{"city": "Paris"}'),), 1)
        return Model([], {})(messages, tools)

    run = run_prompt_set(WHERE, TOOL, never_country, call_tool)
    checks = run.checks()
    assert checks["inputConsistent"] is True and checks["answersAgree"] is False
    assert run.scores() == [2, 2, 2] and checks["erroneous"] is False
    assert checks["failureRate"] == 0.0


def test_an_agent_corrected_after_a_refusal_is_inconsistent_and_reported_as_recovered() -> None:
    """The first call leaves the country out and is refused; the agent reads the handler's
    message and calls again with it. The first calls alone would hide this."""

    def strict_tool(arguments: JSONObject) -> ToolResult:
        if "country" not in arguments:
            said = "ambiguous city: give the country"
            return ToolResult(f"rejected: {said}", {"outcome": "rejected", "said": said})
        return call_tool(arguments)

    def corrects(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        if "helpful assistant" in str(messages[0]["content"]):
            last = messages[-1]
            if last["role"] == "tool" and "rejected" in str(last["content"]):
                call = '{"city": "Paris", "country": "France"}'
                return Reply("", (ToolCall("c2", "geocode", call),), 1)
        return Model([], {})(messages, tools)

    run = run_prompt_set(WHERE, TOOL, corrects, strict_tool)
    checks: Any = run.checks()
    assert checks["inputConsistent"] is False  # [refused, corrected] vs [right at once]
    assert checks["answersAgree"] is True and checks["erroneous"] is False
    assert checks["underspecified"] == ["country"]
    first, second = checks["recovered"]
    assert first == {
        "prompt": "Where is Paris?",
        "refused": {"city": "Paris"},
        "outcome": "rejected",
        "accepted": {"city": "Paris", "country": "France"},
        "arguments": ["country"],
        "said": "ambiguous city: give the country",
    }
    assert second["prompt"] == "Where is the city of Paris?"
    assert json.loads(json.dumps(run.to_json()))["recovered"] == checks["recovered"]
    assert all(re.match(r"accepted: 48\.85", r.answer) for r in run.runs)
