"""A model endpoint on 127.0.0.1 for tests: a scripted "model" with faults, speaking the
chat-completions API or Anthropic's Messages API.

    with LoopbackModel(script) as model:
        client = ChatClient(model.url, "sk-test", sleep=waits.append)
        ...
        assert model.requests[0].body["model"] == "stand-in"

`script` maps each request body to an answer: a `Turn` (text, or tool calls), a raw
`Canned` answer (status, body text, headers) for faults, a `Drip` (an answer sent a byte
at a time), or a list of them consumed in order by successive requests. Every request is
logged (path, query, headers, body). `dead_endpoint` is a port that takes connections and
never answers.
`agent_script` builds the usual model: it writes user requests from a table of argument
patterns, and as an agent maps prompt patterns to tool calls, answering once it has seen
a tool result.

`api="anthropic-messages"` makes it the Messages API as Anthropic documents it, written
here from that documentation and not from the gate's adapter: `POST {root}/messages`, the
key in `x-api-key`, an `anthropic-version` header, `max_tokens` required, roles that
alternate starting with the user, every `tool_use` answered by a `tool_result` in the next
user turn; a request breaking a rule gets the API's 400 `invalid_request_error`. Scripts
see every request as a chat-completions body (`as_chat`), so one script serves both APIs.
`headers` and `query` are required of every request (an Azure deployment's `api-key` and
`api-version`): a request without them gets the 401 or 404 Azure answers with.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROMPT_WRITER = "You write realistic requests"
"""How the stand-in recognises the request asking it for a user prompt (the system
message of `core.agent.reachability.prompt_messages`)."""


@dataclass(frozen=True)
class Call:
    """A tool call the model makes: its name and its arguments' text exactly as sent."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Turn:
    text: str = ""
    calls: tuple[Call, ...] = ()
    tokens: int = 10
    usage: bool = True
    """False: the answer has no `usage` member, as some servers send."""


@dataclass(frozen=True)
class Canned:
    status: int
    body: str
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Drip:
    """A 200 whose body goes out one byte every `interval` seconds: a slow-drip endpoint,
    each read of which gets a byte in time, so no read timeout ever trips."""

    body: str
    interval: float = 0.05


Answer = Turn | Canned | Drip
Script = Callable[[dict[str, Any]], Answer]


@dataclass
class Logged:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    query: dict[str, list[str]] = field(default_factory=dict)


CHAT = "chat-completions"
MESSAGES = "anthropic-messages"


@dataclass
class LoopbackModel:
    script: Script
    requests: list[Logged] = field(default_factory=list)
    api: str = CHAT
    root: str = "/v1"
    """The path the API is served under (`/openai/deployments/NAME` for an Azure deployment)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    query: Mapping[str, str] = field(default_factory=dict)

    def __enter__(self) -> LoopbackModel:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                path, _, query = self.path.partition("?")
                parsed = urllib.parse.parse_qs(query, keep_blank_values=True)
                owner.requests.append(Logged(path, dict(self.headers), body, parsed))
                self._send(owner.answer(path, parsed, self.headers, body))

            def _send(self, answer: Answer) -> None:
                if isinstance(answer, Drip):
                    return self._drip(answer)
                if isinstance(answer, Turn):
                    reply = completion(answer) if owner.api == CHAT else message(answer)
                    answer = Canned(200, json.dumps(reply))
                data = answer.body.encode("utf-8")
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in answer.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _drip(self, answer: Drip) -> None:
                data = answer.body.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    for index in range(len(data)):
                        self.wfile.write(data[index : index + 1])
                        self.wfile.flush()
                        time.sleep(answer.interval)
                except OSError:
                    pass  # the client gave up and closed the connection

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.root}"

    def answer(
        self, path: str, query: dict[str, list[str]], headers: Any, body: dict[str, Any]
    ) -> Answer:
        for name, value in self.query.items():
            if query.get(name) != [value]:
                return Canned(404, '{"error": {"code": "404", "message": "Resource not found"}}')
        for name, value in self.headers.items():
            if headers.get(name) != value:
                return Canned(401, '{"error": {"code": "401", "message": "Access denied"}}')
        if self.api == CHAT:
            if path != self.root + "/chat/completions":
                return Canned(404, '{"error": "no such path"}')
            return self.script(body)
        if path != self.root + "/messages":
            return _anthropic_error(404, "not_found_error", "Not found")
        if not headers.get("x-api-key"):
            return _anthropic_error(401, "authentication_error", "x-api-key header is required")
        if not headers.get("anthropic-version"):
            return _anthropic_error(400, "invalid_request_error", "anthropic-version is required")
        problem = messages_problem(body)
        if problem:
            return _anthropic_error(400, "invalid_request_error", problem)
        return self.script(as_chat(body))


@contextmanager
def dead_endpoint() -> Iterator[str]:
    """The base URL of a port on 127.0.0.1 that takes connections (the kernel's backlog
    completes them) and never answers: a hung server."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()


def completion(turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for index, call in enumerate(turn.calls)
        ]
    answer: dict[str, Any] = {
        "id": "chatcmpl-stand-in",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if turn.usage:
        answer["usage"] = {
            "prompt_tokens": turn.tokens - 1,
            "completion_tokens": 1,
            "total_tokens": turn.tokens,
        }
    return answer


def sequence(answers: Sequence[Answer], then: Script | None = None) -> Script:
    """The answers in order, one per request; `then` answers the rest."""
    queue = list(answers)

    def script(body: dict[str, Any]) -> Answer:
        if queue:
            return queue.pop(0)
        if then is None:
            raise AssertionError("the stand-in ran out of scripted answers")
        return then(body)

    return script


def last_user(body: Mapping[str, Any]) -> str:
    users = [m for m in body["messages"] if m.get("role") == "user"]
    return str(users[-1]["content"]) if users else ""


def agent_script(prompts: Sequence[tuple[str, str]], calls: Sequence[tuple[str, Call]]) -> Script:
    """A model that writes, for a prompt-writing request whose text matches a pattern of
    `prompts`, that prompt; and as an agent calls the tool as the first pattern of `calls`
    matching the user's prompt says, then answers once a tool result is in."""

    def script(body: dict[str, Any]) -> Answer:
        messages = body["messages"]
        if PROMPT_WRITER in str(messages[0].get("content")):
            for pattern, prompt in prompts:
                if re.search(pattern, last_user(body)):
                    return Turn(prompt)
            return Turn("")
        if messages[-1].get("role") == "tool":
            return Turn("Done: " + str(messages[-1]["content"])[:60])
        for pattern, call in calls:
            if re.search(pattern, last_user(body)):
                return Turn(calls=(call,))
        return Turn("I cannot help with that.")

    return script


def message(turn: Turn) -> dict[str, Any]:
    """The Messages API's answer for `turn`."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    blocks += [
        {
            "type": "tool_use",
            "id": f"toolu_{index:02d}",
            "name": call.name,
            "input": json.loads(call.arguments),
        }
        for index, call in enumerate(turn.calls)
    ]
    answer: dict[str, Any] = {
        "id": "msg_stand_in",
        "type": "message",
        "role": "assistant",
        "model": "stand-in",
        "content": blocks,
        "stop_reason": "tool_use" if turn.calls else "end_turn",
        "stop_sequence": None,
    }
    if turn.usage:
        answer["usage"] = {"input_tokens": turn.tokens - 1, "output_tokens": 1}
    return answer


def _anthropic_error(status: int, kind: str, text: str) -> Canned:
    return Canned(status, json.dumps({"type": "error", "error": {"type": kind, "message": text}}))


def messages_problem(body: dict[str, Any]) -> str:
    """What a Messages API request breaks of the API's rules ("": nothing)."""
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: Field required"
    if "seed" in body or any(m.get("role") == "system" for m in body.get("messages", [])):
        return "messages: Unexpected role or field (system goes in `system`; there is no seed)"
    if not 0 <= body.get("temperature", 0) <= 1:
        return "temperature: must be at most 1"
    for tool in body.get("tools", []):
        if set(tool) - {"name", "description", "input_schema"} or "input_schema" not in tool:
            return "tools: each tool has name, description and input_schema"
    messages, pending = body.get("messages", []), set[str]()
    for index, turn in enumerate(messages):
        role, content = turn.get("role"), turn.get("content")
        if role != ("user" if index % 2 == 0 else "assistant"):
            return f"messages.{index}: roles must alternate, starting with user"
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not blocks or any(b.get("type") == "text" and not b.get("text") for b in blocks):
            return f"messages.{index}: text content blocks must be non-empty"
        results = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
        if pending and results != pending:
            return f"messages.{index}: tool_use ids were found without tool_result blocks"
        if results and blocks[0].get("type") != "tool_result":
            return f"messages.{index}: tool_result blocks must come first"
        pending = {b["id"] for b in blocks if b.get("type") == "tool_use"}
        if any(not isinstance(b.get("input", {}), dict) for b in blocks):
            return f"messages.{index}: tool_use input must be an object"
    return ""


def as_chat(body: dict[str, Any]) -> dict[str, Any]:
    """A Messages API request as the chat-completions body a script reads."""
    messages: list[dict[str, Any]] = []
    if body.get("system"):
        messages.append({"role": "system", "content": body["system"]})
    for turn in body["messages"]:
        content = turn["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts = "".join(b["text"] for b in blocks if b["type"] == "text")
        calls = [
            {
                "id": b["id"],
                "type": "function",
                "function": {"name": b["name"], "arguments": json.dumps(b["input"])},
            }
            for b in blocks
            if b["type"] == "tool_use"
        ]
        for block in blocks:
            if block["type"] == "tool_result":
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": block["tool_use_id"],
                        "content": block["content"],
                    }
                )
        if turn["role"] == "assistant":
            messages.append({"role": "assistant", "content": texts, "tool_calls": calls})
        elif texts:
            messages.append({"role": "user", "content": texts})
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description"),
                "parameters": t["input_schema"],
            },
        }
        for t in body.get("tools", [])
    ]
    return {"model": body["model"], "messages": messages, "tools": tools}
