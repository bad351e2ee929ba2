"""A chat-completions stand-in on 127.0.0.1 for tests: a scripted "model" with faults.

    with LoopbackModel(script) as model:
        client = ChatClient(model.url, "sk-test", sleep=waits.append)
        ...
        assert model.requests[0].body["model"] == "stand-in"

`script` maps each request body to an answer: a `Turn` (text, or tool calls), a raw
`Canned` answer (status, body text, headers) for faults, a `Drip` (an answer sent a byte
at a time), or a list of them consumed in order by successive requests. Every request is
logged (path, headers, body). `dead_endpoint` is a port that takes connections and never
answers.
`agent_script` builds the usual model: it writes user requests from a table of argument
patterns, and as an agent maps prompt patterns to tool calls, answering once it has seen
a tool result.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
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


@dataclass
class LoopbackModel:
    script: Script
    requests: list[Logged] = field(default_factory=list)

    def __enter__(self) -> LoopbackModel:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(Logged(self.path, dict(self.headers), body))
                if self.path != "/v1/chat/completions":
                    return self._send(Canned(404, '{"error": "no such path"}'))
                self._send(owner.script(body))

            def _send(self, answer: Answer) -> None:
                if isinstance(answer, Drip):
                    return self._drip(answer)
                if isinstance(answer, Turn):
                    answer = Canned(200, json.dumps(completion(answer)))
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
        return f"http://{host!s}:{port}/v1"


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
