"""The client posting the Messages API's bodies, as the adapter writes them, to the
loopback stand-in that holds them to that API's rules; and the stand-in refusing each
body that breaks one, so its acceptance of the adapter's bodies means something."""

from __future__ import annotations

from typing import Any

import pytest

from tests.llm_server import MESSAGES, Call, LoopbackModel, Turn, sequence
from toolfuzz_gate.core.agent.chat import function_tool
from toolfuzz_gate.core.agent.messages_api import build_messages_request, parse_messages_reply
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.llm.chat_client import ChatClient, Retries
from toolfuzz_gate.errors import LlmError

KEY = "sk-ant-test-0123456789abcdefghij"
CALL: JSONObject = {"id": "toolu_00", "function": {"name": "f", "arguments": '{"a": 1}'}}
CONVERSATION: list[JSONObject] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "go"},
    {"role": "assistant", "content": "", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "toolu_00", "content": "accepted"},
]


def _client(model: LoopbackModel, settings: LlmSettings) -> ChatClient:
    return ChatClient(model.url, KEY, wire=settings.wire(), retries=Retries(attempts=1))


def _settings(model: LoopbackModel) -> LlmSettings:
    return LlmSettings(model.url, "claude", seed=None, api="anthropic-messages")


def test_the_adapter_s_body_is_accepted_and_its_reply_read() -> None:
    with LoopbackModel(sequence([Turn(calls=(Call("f", '{"b": 2}'),))]), api=MESSAGES) as model:
        settings = _settings(model)
        tools = [function_tool("f", "does f", {"type": "object"})]
        answer = _client(model, settings)(build_messages_request(settings, CONVERSATION, tools))
    reply = parse_messages_reply(answer)
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("toolu_00", "f", '{"b":2}')]
    (logged,) = model.requests
    assert (logged.path, logged.headers["x-api-key"]) == ("/v1/messages", KEY)


def _broken(body: dict[str, Any], how: str) -> None:
    if how == "no max_tokens":
        del body["max_tokens"]
    elif how == "a seed":
        body["seed"] = 0
    elif how == "a system turn":
        body["messages"].insert(0, {"role": "system", "content": "x"})
    elif how == "two user turns":
        body["messages"].insert(0, {"role": "user", "content": "x"})
    elif how == "a tool_use unanswered":
        body["messages"][2]["content"] = [{"type": "text", "text": "no result"}]
    elif how == "an empty text":
        body["messages"][0]["content"] = ""


@pytest.mark.parametrize(
    "how",
    [
        "no max_tokens",
        "a seed",
        "a system turn",
        "two user turns",
        "a tool_use unanswered",
        "an empty text",
    ],
)
def test_the_stand_in_refuses_a_body_the_api_would(how: str) -> None:
    with LoopbackModel(sequence([]), api=MESSAGES) as model:
        settings = _settings(model)
        body: Any = build_messages_request(settings, CONVERSATION)
        _broken(body, how)
        with pytest.raises(LlmError) as raised:
            _client(model, settings)(body)
    assert raised.value.code == "llm.rejected" and "invalid_request_error" in raised.value.message
