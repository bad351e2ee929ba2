"""The agent loop: calls the tool, shows it the result, stops; malformed calls recorded."""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.agent.chat import Reply, ToolCall
from toolfuzz_gate.core.agent.loop import (
    ANSWERED,
    STEP_LIMIT,
    FunctionTool,
    ToolResult,
    parse_arguments,
    run_agent,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

TOOL = FunctionTool("geocode", "Find a city.", {"type": "object"})


class Scripted:
    """A chat callable answering from a list, remembering every conversation it saw."""

    def __init__(self, replies: Sequence[Reply]) -> None:
        self.replies = list(replies)
        self.seen: list[list[JSONObject]] = []
        self.offered: list[list[JSONObject]] = []

    def __call__(self, messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        self.seen.append(list(messages))
        self.offered.append(list(tools))
        return self.replies.pop(0)


def _calls(*calls: tuple[str, str]) -> Reply:
    return Reply("", tuple(ToolCall(f"c{i}", n, a) for i, (n, a) in enumerate(calls)), 5)


def test_the_agent_calls_the_tool_sees_the_result_and_answers() -> None:
    chat = Scripted([_calls(("geocode", '{"city": "Paris"}')), Reply("It is in France.", (), 5)])
    called: list[JSONObject] = []

    def call_tool(arguments: JSONObject) -> ToolResult:
        called.append(arguments)
        return ToolResult("ok: 48.85,2.35", {"outcome": "accepted"})

    run = run_agent("Where is Paris?", TOOL, chat, call_tool)
    assert called == [{"city": "Paris"}]
    assert (run.outcome, run.answer, run.replies) == (ANSWERED, "It is in France.", 2)
    assert run.to_json()["steps"] == [
        {
            "kind": "call",
            "name": "geocode",
            "arguments": {"city": "Paris"},
            "result": {"outcome": "accepted"},
        }
    ]
    function = chat.offered[0][0]["function"]
    assert function == {
        "name": "geocode",
        "description": "Find a city.",
        "parameters": {"type": "object"},
    }
    assert chat.seen[0][1] == {"role": "user", "content": "Where is Paris?"}
    assert chat.seen[1][-1] == {"role": "tool", "tool_call_id": "c0", "content": "ok: 48.85,2.35"}


def test_bad_arguments_and_unknown_tools_are_recorded_and_not_run() -> None:
    chat = Scripted(
        [
            _calls(("geocode", '{"city": "Par'), ("search", "{}"), ("geocode", "[1]")),
            Reply("sorry", (), 1),
        ]
    )

    def call_tool(arguments: JSONObject) -> ToolResult:
        raise AssertionError("a malformed call was run")

    run = run_agent("Where is Paris?", TOOL, chat, call_tool)
    assert [step.kind for step in run.steps] == ["bad-arguments", "unknown-tool", "bad-arguments"]
    assert run.steps[0].to_json()["arguments"] == '{"city": "Par'
    errors = [str(m["content"]) for m in chat.seen[1] if m["role"] == "tool"]
    assert "not a JSON object" in errors[0] and "no tool named 'search'" in errors[1]


def test_a_model_that_never_stops_calling_ends_at_the_step_limit() -> None:
    chat = Scripted([_calls(("geocode", "{}"))] * 3)
    run = run_agent("loop", TOOL, chat, lambda a: ToolResult("ok", {}), max_steps=3)
    assert (run.outcome, run.replies, len(run.steps), run.answer) == (STEP_LIMIT, 3, 3, "")
    assert chat.replies == []


def test_arguments_must_be_a_json_object_without_nan() -> None:
    assert parse_arguments('{"a": [1, null]}') == {"a": [1, None]}
    assert parse_arguments("") == {}
    assert parse_arguments('{"a": NaN}') is None
    assert parse_arguments('"text"') is None
    assert parse_arguments("[" * 100_000) is None


def test_the_state_is_made_fresh_once_before_a_runs_first_call() -> None:
    events: list[str] = []

    def call_tool(arguments: JSONObject) -> ToolResult:
        events.append(f"call {arguments['city']}")
        return ToolResult("ok", {"outcome": "accepted"})

    def fresh_state() -> None:
        events.append("fresh")

    two_calls = Scripted(
        [
            _calls(("geocode", '{"city": "Paris"}'), ("geocode", '{"city": "Lyon"}')),
            _calls(("geocode", '{"city": "Nice"}')),
            Reply("done", (), 5),
        ]
    )
    run_agent("Where are they?", TOOL, two_calls, call_tool, fresh_state=fresh_state)
    assert events == ["fresh", "call Paris", "call Lyon", "call Nice"]
    events.clear()
    run_agent("Hello", TOOL, Scripted([Reply("hi", (), 5)]), call_tool, fresh_state=fresh_state)
    assert events == []  # a run that never calls the tool leaves its state alone
