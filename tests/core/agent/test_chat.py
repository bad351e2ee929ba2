"""Chat-completions requests and replies: built in one place, read defensively."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.agent.chat import ToolCall, build_request, parse_reply, prompt_of
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.errors import LlmError

SETTINGS = LlmSettings("http://h/v1", "m", "KEY_VAR", 0.25, 9, cassette="c.json")


def _answer(message: Any, usage: Any = None) -> dict[str, Any]:
    return {"choices": [{"message": message}], "usage": usage}


def test_a_request_holds_model_messages_tools_and_parameters_and_no_key() -> None:
    messages: list[JSONObject] = [{"role": "user", "content": "hi"}]
    request = build_request(SETTINGS, messages, [{"type": "function"}])
    assert request == {
        "model": "m",
        "messages": messages,
        "tools": [{"type": "function"}],
        "temperature": 0.25,
        "seed": 9,
    }
    assert "KEY_VAR" not in str(request)


def test_a_reply_with_tool_calls_and_usage() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    reply = parse_reply(_answer({"content": None, "tool_calls": [call]}, {"total_tokens": 12}))
    assert reply.tool_calls == (ToolCall("c1", "f", '{"a": 1}'),)
    assert (reply.content, reply.tokens) == ("", 12)
    assert reply.message()["tool_calls"] == [call]


def test_arguments_sent_as_an_object_are_kept_as_their_json_text() -> None:
    call = {"function": {"name": "f", "arguments": {"b": 2, "a": 1}}}
    reply = parse_reply(
        _answer({"tool_calls": [call]}, {"prompt_tokens": 3, "completion_tokens": 4})
    )
    assert reply.tool_calls == (ToolCall("call_0", "f", '{"a":1,"b":2}'),)
    assert reply.tokens == 7


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ([], "not a JSON object"),
        ({"error": "overloaded"}, "no choices"),
        ({"choices": []}, "no choices"),
        ({"choices": [{"text": "legacy completion"}]}, "no message"),
        (_answer({"content": 5}), "content is not text"),
        (_answer({"tool_calls": {"name": "f"}}), "tool_calls is not a list"),
        (_answer({"tool_calls": [{"name": "f"}]}), "tool call 0 has no function"),
        (_answer({"tool_calls": [{"function": {"arguments": "{}"}}]}), "no function name"),
    ],
)
def test_an_answer_that_is_not_a_chat_completion_is_malformed(body: Any, words: str) -> None:
    with pytest.raises(LlmError) as raised:
        parse_reply(body)
    assert raised.value.code == "llm.malformed-response"
    assert words in raised.value.message


def test_a_request_is_named_by_the_first_line_of_its_last_user_message() -> None:
    request = build_request(
        SETTINGS,
        [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "  Find cafes near Paris\nplease, quickly"},
        ],
    )
    assert prompt_of(request) == "Find cafes near Paris"
    assert prompt_of({"messages": []}) == "(no user message)"
