"""Chat-completions requests and replies, as the OpenAI-compatible API spells them (pure).

A request body is built here, from the settings and the conversation, and nowhere else:
its canonical form is what a cassette is keyed by, so it holds the model, the messages,
the tools and the sampling parameters, and never the API key (that travels in a header).
A reply is read defensively: anything that is not a chat completion is `LlmError`
(`llm.malformed-response`); a tool call whose arguments are not JSON is not, because a
model that writes them badly is a finding about the model, which the agent loop records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.errors import LlmError

MAX_TEXT = 20_000
"""Characters kept of a reply's text or of one tool call's arguments."""
MAX_TOOL_CALLS = 16
"""Tool calls read from one reply; a model asking for more is cut short."""


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for, as it wrote it."""

    id: str
    name: str
    arguments: str
    """The arguments' JSON text, unparsed: the loop decides whether it is usable."""


@dataclass(frozen=True)
class Reply:
    """The first choice of one chat completion, and the tokens it cost."""

    content: str
    tool_calls: tuple[ToolCall, ...]
    tokens: int
    """Prompt plus completion tokens, as the endpoint reported them (0: it did not)."""
    metered: bool = True
    """Whether the answer reported its token usage (some servers send no `usage`)."""

    def message(self) -> JSONObject:
        """The assistant message to append to the conversation."""
        message: JSONObject = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message

    def json_object(self) -> dict[str, JSON] | None:
        """The JSON object the content holds, from its first `{` to its last `}` (a model
        may wrap it in prose or a code fence); None when there is no such object."""
        text = self.content
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            return None
        try:
            document = json.loads(text[start : end + 1])
        except (ValueError, RecursionError):
            return None
        return document if isinstance(document, dict) else None


def build_request(
    settings: LlmSettings, messages: Sequence[JSONObject], tools: Sequence[JSONObject] = ()
) -> JSONObject:
    """The request body for `messages`, offering `tools` (function declarations)."""
    body: JSONObject = {
        "model": settings.model,
        "messages": list(messages),
        **settings.parameters(),
    }
    if tools:
        body["tools"] = list(tools)
    return body


def function_tool(name: str, description: str, parameters: JSON) -> JSONObject:
    """A tool offered to the model: its name, description and JSON Schema."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def prompt_of(request: JSONObject) -> str:
    """The first line of the request's last user message (bounded): how a request is named
    in messages, since its digest means nothing to a person."""
    messages: Any = request.get("messages")
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            content = _text_of(message.get("content"))
            if content is None:
                continue  # a Messages API turn of tool results only: not what the user said
            lines = content.strip().splitlines()
            return bounded_message(lines[0] if lines else "", 160)
    return "(no user message)"


def _text_of(content: Any) -> str | None:
    """A message's text: a string, or the text blocks of a content list (None: none)."""
    if isinstance(content, str):
        return content
    texts = [
        block["text"]
        for block in (content if isinstance(content, list) else [])
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def parse_reply(body: JSON) -> Reply:
    """The reply a chat-completions response body holds; `LlmError` when it holds none."""
    if not isinstance(body, dict):
        raise malformed("the response is not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise malformed("the response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise malformed("the first choice has no message")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise malformed("the message's content is not text")
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise malformed("the message's tool_calls is not a list")
    return Reply(
        (content or "")[:MAX_TEXT],
        tuple(_tool_call(call, index) for index, call in enumerate((calls or [])[:MAX_TOOL_CALLS])),
        _tokens(body.get("usage")),
        _tokens(body.get("usage")) > 0,
    )


def _tool_call(call: JSON, index: int) -> ToolCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(function, dict):
        raise malformed(f"tool call {index} has no function")
    name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str):
        raise malformed(f"tool call {index} has no function name")
    if arguments is None:
        arguments = ""
    elif not isinstance(arguments, str):  # some servers send the object itself
        arguments = canonical_compact(arguments)
    ident = call.get("id")
    return ToolCall(
        ident if isinstance(ident, str) else f"call_{index}", name[:200], arguments[:MAX_TEXT]
    )


def _tokens(usage: JSON) -> int:
    if not isinstance(usage, dict):
        return 0
    total = usage.get("total_tokens")
    if isinstance(total, int) and not isinstance(total, bool) and total >= 0:
        return total
    parts = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
    return sum(p for p in parts if isinstance(p, int) and not isinstance(p, bool) and p >= 0)


def malformed(what: str) -> LlmError:
    """The error for an answer that is not the API's reply (any API of `core.agent.apis`)."""
    return LlmError(
        f"the model's answer is not a reply of its API (llm.api): {what}",
        code="llm.malformed-response",
        hint="check that base_url is the API root (ending in /v1), that llm.api names the "
        "protocol the endpoint speaks, and that the model supports tool calling",
    )
