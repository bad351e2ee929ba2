"""Anthropic's Messages API, written from and read into the chat-completions turns (pure).

The agent loop and every request writer speak one conversation model, the
chat-completions one (`core.agent.chat`): system, user, assistant (with `tool_calls`)
and `tool` messages. This module translates it for `POST /v1/messages`: system messages
become the top-level `system`; an assistant's tool calls become `tool_use` blocks (the
arguments as the object they hold); each `tool` message becomes a `tool_result` block of
the user turn that follows, consecutive turns of one role merged as the API requires
them to alternate; tools are offered with their schema as `input_schema`; `max_tokens`
is always sent (the API requires it), a seed never (it has none). A reply's text blocks
are its content, its `tool_use` blocks its tool calls (the input written back as
canonical JSON text), `usage.input_tokens` plus `output_tokens` (and the cache's) its
cost; other blocks (thinking) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolfuzz_gate.core.agent.chat import MAX_TEXT, MAX_TOOL_CALLS, Reply, ToolCall, malformed
from toolfuzz_gate.core.agent.loop import parse_arguments
from toolfuzz_gate.core.gate.llm_settings import DEFAULT_REPLY_TOKENS, LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def build_messages_request(
    settings: LlmSettings, messages: Sequence[JSONObject], tools: Sequence[JSONObject] = ()
) -> JSONObject:
    """The Messages API body for the chat-completions `messages`, offering `tools`
    (function declarations as `core.agent.chat.function_tool` writes them)."""
    system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    body: JSONObject = {
        "model": settings.model,
        "max_tokens": settings.max_completion_tokens or DEFAULT_REPLY_TOKENS,
        "messages": _turns(messages),
    }
    if any(system):
        body["system"] = "\n\n".join(text for text in system if text)
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if tools:
        body["tools"] = [_tool(tool) for tool in tools]
    return body


def _turns(messages: Sequence[JSONObject]) -> list[JSON]:
    turns: list[tuple[str, list[JSON]]] = []
    for message in messages:
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return [{"role": role, "content": _content(blocks)} for role, blocks in turns]


def _blocks(message: JSONObject) -> tuple[str, list[JSON]]:
    role, content = message.get("role"), message.get("content")
    text = content if isinstance(content, str) else ""
    if role == "tool":
        result: JSONObject = {
            "type": "tool_result",
            "tool_use_id": str(message.get("tool_call_id", "")),
            "content": text,
        }
        return "user", [result]
    if role == "assistant":
        blocks: list[JSON] = [{"type": "text", "text": text}] if text else []
        calls: Any = message.get("tool_calls") or []
        blocks += [_tool_use(call) for call in calls if isinstance(call, dict)]
        return "assistant", blocks
    if role == "user":
        return "user", [{"type": "text", "text": text}]
    return "system", []


def _tool_use(call: JSONObject) -> JSON:
    function: Any = call.get("function") or {}
    arguments = parse_arguments(str(function.get("arguments") or ""))
    return {
        "type": "tool_use",
        "id": str(call.get("id", "")),
        "name": str(function.get("name", "")),
        "input": arguments if arguments is not None else {},
    }


def _content(blocks: list[JSON]) -> JSON:
    """A turn of one text block as its plain string (as the API's examples write it)."""
    if len(blocks) == 1 and isinstance(blocks[0], dict) and blocks[0].get("type") == "text":
        return blocks[0]["text"]
    return blocks


def _tool(tool: JSONObject) -> JSON:
    function: Any = tool.get("function") or {}
    return {
        "name": function.get("name"),
        "description": function.get("description"),
        "input_schema": function.get("parameters"),
    }


def parse_messages_reply(body: JSON) -> Reply:
    """The reply a Messages API response body holds; `LlmError` when it holds none."""
    if not isinstance(body, dict):
        raise malformed("the response is not a JSON object")
    content = body.get("content")
    if not isinstance(content, list):
        raise malformed("the response has no content blocks")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise malformed(f"content block {index} is not an object")
        if block.get("type") == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise malformed(f"text block {index} has no text")
            texts.append(text)
        elif block.get("type") == "tool_use" and len(calls) < MAX_TOOL_CALLS:
            calls.append(_call(block, index))
    usage = body.get("usage")
    counts = [usage.get(name) for name in USAGE_FIELDS] if isinstance(usage, dict) else []
    numbers = [n for n in counts if isinstance(n, int) and not isinstance(n, bool) and n >= 0]
    return Reply("".join(texts)[:MAX_TEXT], tuple(calls), sum(numbers), bool(numbers))


def _call(block: JSONObject, index: int) -> ToolCall:
    name, ident = block.get("name"), block.get("id")
    if not isinstance(name, str):
        raise malformed(f"tool_use block {index} has no name")
    arguments = canonical_compact(block.get("input", {}))
    return ToolCall(
        ident if isinstance(ident, str) else f"toolu_{index}", name[:200], arguments[:MAX_TEXT]
    )
