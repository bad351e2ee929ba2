"""Anthropic's Messages API: the agent's chat-completions turns written as its request
bodies, and its replies read back into the same `Reply` the loop uses."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.agent.apis import BODY_FORMATS
from toolfuzz_gate.core.agent.chat import ToolCall, function_tool, prompt_of
from toolfuzz_gate.core.agent.messages_api import build_messages_request, parse_messages_reply
from toolfuzz_gate.core.gate.llm_settings import APIS, LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.errors import LlmError

SETTINGS = LlmSettings(
    "https://api.anthropic.com/v1", "claude", seed=None, api="anthropic-messages"
)
CALL: JSONObject = {
    "id": "toolu_1",
    "type": "function",
    "function": {"name": "f", "arguments": '{"a":1}'},
}
CONVERSATION: list[JSONObject] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Where is Paris?"},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "toolu_1", "content": "accepted: 48.85, 2.35"},
]


def test_every_api_has_a_body_format_and_a_wire() -> None:
    assert set(BODY_FORMATS) == set(APIS)


def test_a_conversation_becomes_system_alternating_turns_and_blocks() -> None:
    tool = function_tool("f", "does f", {"type": "object"})
    body = build_messages_request(SETTINGS, CONVERSATION, [tool])
    assert body == {
        "model": "claude",
        "max_tokens": 4096,
        "temperature": 0.0,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Where is Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": "accepted: 48.85, 2.35",
                    }
                ],
            },
        ],
        "tools": [{"name": "f", "description": "does f", "input_schema": {"type": "object"}}],
    }
    assert "seed" not in body
    assert prompt_of(body) == "Where is Paris?"  # the cassette names it by the user's words


def test_two_tool_results_and_a_following_user_turn_merge_into_one_turn() -> None:
    second: JSONObject = {**CALL, "id": "toolu_2"}
    messages: list[JSONObject] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [CALL, second]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "one"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": "two"},
        {"role": "user", "content": "and now?"},
    ]
    settings = LlmSettings("h", "m", temperature=None, seed=None, max_completion_tokens=64)
    body = build_messages_request(settings, messages)
    turns: Any = body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert [b["type"] for b in turns[1]["content"]] == ["tool_use", "tool_use"]  # no empty text
    assert [b.get("tool_use_id") for b in turns[2]["content"]] == ["toolu_1", "toolu_2", None]
    assert (body["max_tokens"], "temperature" in body, "tools" in body) == (64, False, False)


def test_arguments_that_are_not_an_object_go_back_as_an_empty_input() -> None:
    bad: JSONObject = {"id": "t", "function": {"name": "f", "arguments": "{not json"}}
    messages: list[JSONObject] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [bad]},
    ]
    turns: Any = build_messages_request(SETTINGS, messages)["messages"]
    assert turns[1]["content"][0]["input"] == {}


def test_a_reply_with_text_tool_use_thinking_and_usage() -> None:
    reply = parse_messages_reply(
        {
            "type": "message",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "Looking "},
                {"type": "text", "text": "it up."},
                {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"b": 2, "a": 1}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 30, "output_tokens": 5, "cache_read_input_tokens": 7},
        }
    )
    assert reply.content == "Looking it up."
    assert reply.tool_calls == (ToolCall("toolu_9", "f", '{"a":1,"b":2}'),)
    assert (reply.tokens, reply.metered) == (42, True)
    assert reply.message()["tool_calls"] == [
        {
            "id": "toolu_9",
            "type": "function",
            "function": {"name": "f", "arguments": '{"a":1,"b":2}'},
        }
    ]


def test_a_reply_without_usage_is_unmetered_and_an_input_not_an_object_stays_bad() -> None:
    reply = parse_messages_reply(
        {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": [1]}]}
    )
    assert (reply.tokens, reply.metered) == (0, False)
    assert reply.tool_calls[0].arguments == "[1]"  # the loop records it as bad-arguments


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ([], "not a JSON object"),
        ({"type": "error", "error": {"message": "overloaded"}}, "no content blocks"),
        ({"content": ["text"]}, "content block 0 is not an object"),
        ({"content": [{"type": "text"}]}, "text block 0 has no text"),
        ({"content": [{"type": "tool_use", "id": "t", "input": {}}]}, "has no name"),
    ],
)
def test_an_answer_that_is_not_a_message_is_malformed(body: Any, words: str) -> None:
    with pytest.raises(LlmError) as raised:
        parse_messages_reply(body)
    assert raised.value.code == "llm.malformed-response" and words in raised.value.message
