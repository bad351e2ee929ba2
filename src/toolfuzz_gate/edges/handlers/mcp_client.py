"""A small JSON-RPC 2.0 client for one MCP server over stdio, synchronous and bounded (edge).

The transport is newline-delimited JSON on the child's stdin and stdout (MCP stdio). The
client only ever has one request in flight, so a response is matched by id alone. While it
waits it tolerates what real servers do on stdout: log lines that are not JSON-RPC are
skipped and counted (`StdoutNoise`), notifications are ignored, and requests the server
sends (`ping`, `roots/list`, `sampling/createMessage`, ...) are answered at once, `ping`
with `{}` and everything else with "method not found", so the server never waits on us.
A request sent under a `base.Deadline` (a `tools/call` of the tool under test) carries
`_meta.progressToken` (its id), and each `notifications/progress` for that token extends
the deadline; every other request waits under a fixed one.
POSIX only, like `WorkerProcess`, which owns the child.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from toolfuzz_gate import __version__
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.base import Deadline, Silence, encode_line, exchange, send_line
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.edges.handlers.confine import handlers_own
from toolfuzz_gate.edges.handlers.rlimits import Limits, require_executable
from toolfuzz_gate.edges.handlers.wire import strict_json
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess
from toolfuzz_gate.errors import HandlerError

PROTOCOL_VERSION = "2025-06-18"
"""Offered in `initialize`: the first revision with `structuredContent`; the Python SDK 2.3
answers it for 2024-11-05 through 2025-11-25. Whatever version the server answers with is
accepted: `tools/list` and `tools/call` have kept their shape across those revisions."""
CLIENT_INFO = {"name": "toolfuzz-gate", "version": __version__}
MAX_NOISE_LINES = 1000
"""Non-protocol stdout lines tolerated while waiting for one response."""
MAX_LIST_PAGES = 100
LIST_LINE_BYTES = 8 << 20
"""`initialize` and `tools/list` answers may be long (instructions, many schemas)."""
METHOD_NOT_FOUND = -32601
PROGRESS = "notifications/progress"


class Broken(NamedTuple):
    """Why a request got no response: `stop` is None for a protocol violation."""

    stop: Stop | None
    detail: str


@dataclass
class StdoutNoise:
    """Non-protocol lines a server printed on stdout: how many, and the first one."""

    count: int = 0
    sample: str | None = None

    def record(self, line: bytes) -> None:
        self.count += 1
        if self.sample is None:
            self.sample = bounded_message(line.decode("utf-8", errors="replace"), 120)


@dataclass
class Launch:
    """How to start a server: its command, scrubbed environment and working directory.

    The server runs in a fresh temporary directory unless one is configured, so it cannot
    write into the checkout under review; its command is read from the checkout
    (`checkout.Checkout`: relative paths there made absolute, the checkout leading
    PYTHONPATH), so `python server.py` and `python -m package.server` start that side's code.
    """

    argv: list[str]
    env: dict[str, str]
    cwd: str
    label: str
    """The command as configured, shortened, for messages."""
    tempdir: str | None = None
    limits: Limits = field(default_factory=Limits)
    program: str = ""
    """The executable as resolved, before the limits shim (`rlimits.require_executable`)."""

    @classmethod
    def prepare(
        cls,
        argv: Sequence[str],
        passthrough: Sequence[str],
        cwd: str | None,
        checkout: Checkout,
        limits: Limits | None = None,
    ) -> Launch:
        if not argv:
            raise HandlerError("the mcp handler needs the server's command (argv)")
        limits = limits or Limits()
        env = checkout.environment(passthrough)
        program = checkout.argv(argv, cwd)
        resolved = list(limits.wrap(program))
        label = bounded_message(shlex.join(argv), 100)
        if cwd is not None:
            return cls(resolved, env, os.path.abspath(cwd), label, None, limits, program[0])
        tempdir = handlers_own(tempfile.mkdtemp(prefix="toolfuzz-mcp-"))
        return cls(resolved, env, tempdir, label, tempdir, limits, program[0])

    def cleanup(self) -> None:
        if self.tempdir is not None:
            shutil.rmtree(self.tempdir, ignore_errors=True)
            self.tempdir = None


class McpSession:
    """One server process after a successful `initialize` handshake. Not thread-safe.

    Raises `HandlerError` from the constructor when the server cannot be started, exits,
    refuses `initialize` or stays silent past `startup_timeout_s`.
    """

    def __init__(self, launch: Launch, *, startup_timeout_s: float, noise: StdoutNoise) -> None:
        self.name = launch.label
        self.noise = noise
        self._next_id = 0
        try:
            if launch.program:
                require_executable(launch.program, launch.env, launch.cwd)
            self.process = WorkerProcess(
                launch.argv,
                launch.env,
                launch.cwd,
                cpu_budget_s=launch.limits.cpu_s,
                process_limit=launch.limits.processes,
            )
        except OSError as exc:
            raise HandlerError(
                f"{self.name}: cannot start the MCP server: {exc}",
                hint="check the server command; relative paths in it are read from the "
                "repository root (or, on the command line, the directory the gate runs in)",
            ) from exc
        try:
            self.server_info = self._handshake(time.monotonic() + startup_timeout_s)
        except BaseException:
            self.process.kill()
            raise

    @property
    def pid(self) -> int:
        return self.process.pid

    def request(
        self,
        method: str,
        params: dict[str, Any] | None,
        deadline: float | Deadline,
        limit: int,
    ) -> dict[str, Any] | Broken:
        """Send one request and wait for its response (a dict with `result` or `error`).

        Under a `Deadline` the request asks for progress (its id as `progressToken`), and
        the server's progress notifications for it push the deadline back."""
        self._next_id += 1
        request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if isinstance(deadline, Deadline):
            meta = {"_meta": {"progressToken": request_id}}
            params = meta if params is None else {**params, **meta}
        if params is not None:
            message["params"] = params
        noise = 0

        def take(line: bytes) -> dict[str, Any] | Broken | None:
            nonlocal noise
            parsed = _protocol_message(line)
            if parsed is None:
                if line.strip():
                    self.noise.record(line)
                    noise += 1
                    if noise > MAX_NOISE_LINES:
                        return Broken(None, f"wrote over {MAX_NOISE_LINES} non-JSON-RPC lines")
                return None
            return self._sort(parsed, line, request_id, deadline)

        encoded = encode_line(message)
        reply: dict[str, Any] | Broken | Silence = exchange(
            self.process, encoded, deadline, limit, take
        )
        return _unanswered(reply, request_id) if isinstance(reply, Silence) else reply

    def notify(self, method: str, deadline: float) -> Broken | None:
        return self._send({"jsonrpc": "2.0", "method": method}, deadline)

    def describe(self, broken: Broken, tail_chars: int = 300) -> str:
        """A problem sentence with the exit status and stderr tail when the server died."""
        if broken.stop is Stop.EOF:
            return self.process.describe_exit(broken.detail, tail_chars=tail_chars)
        return broken.detail

    def stop(self, grace_s: float = 1.0) -> None:
        self.process.stop(grace_s)

    def kill(self) -> None:
        self.process.kill()

    def _handshake(self, deadline: float) -> dict[str, Any]:
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": CLIENT_INFO,
        }
        reply = self.request("initialize", params, deadline, LIST_LINE_BYTES)
        if isinstance(reply, Broken):
            if reply.stop is Stop.TIMEOUT:
                reply = Broken(reply.stop, "did not answer initialize in time")
            raise HandlerError(
                f"{self.name}: the MCP server {self.describe(reply)}",
                hint="run the server command by hand: it must speak MCP (JSON-RPC lines) on "
                "stdin and stdout",
            )
        result = reply.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("protocolVersion"), str):
            raise HandlerError(
                f"{self.name}: the MCP server refused initialize: {error_text(reply)}"
            )
        broken = self.notify("notifications/initialized", deadline)
        if broken is not None:
            raise HandlerError(f"{self.name}: the MCP server {self.describe(broken)}")
        info = result.get("serverInfo")
        return {"protocolVersion": result["protocolVersion"]} | (
            info if isinstance(info, dict) else {}
        )

    def _send(self, message: dict[str, Any], deadline: float) -> Broken | None:
        silence = send_line(self.process, encode_line(message), deadline)
        return None if silence is None else _unsent(silence)

    def _sort(
        self, message: dict[str, Any], line: bytes, request_id: int, deadline: float | Deadline
    ) -> dict[str, Any] | Broken | None:
        """The response to `request_id`, None for a message to pass by (a notification, a
        request of the server's, answered at once), or how the server broke the protocol."""
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                at = deadline.at if isinstance(deadline, Deadline) else deadline
                return self._answer(message, at)
            if method == PROGRESS and isinstance(deadline, Deadline):
                params = message.get("params")
                token = params.get("progressToken") if isinstance(params, dict) else None
                if type(token) is int and token == request_id:
                    deadline.extend(time.monotonic())
            return None
        if message.get("id") == request_id and ("result" in message or "error" in message):
            return message
        shown = bounded_message(line.decode("utf-8", errors="replace"), 80)
        return Broken(None, f"broke the protocol: sent {shown} while {request_id} was pending")

    def _answer(self, request: dict[str, Any], deadline: float) -> Broken | None:
        """Reply to a server-initiated request so the server never blocks on the client."""
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
        if request["method"] == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {
                "code": METHOD_NOT_FOUND,
                "message": f"toolfuzz-gate does not offer {request['method']}",
            }
        return self._send(reply, deadline)


def _unanswered(silence: Silence, request_id: int) -> Broken:
    """Why request `request_id` got no response."""
    if silence.writing:
        return _unsent(silence)
    if silence.stop is Stop.EOF:
        return Broken(silence.stop, "exited")
    return Broken(
        silence.stop, f"{silence.stop.value} waiting for the answer to request {request_id}"
    )


def _unsent(silence: Silence) -> Broken:
    """Why a message could not be written: the server is gone, or it stopped reading."""
    if silence.stop is Stop.EOF:
        return Broken(Stop.EOF, "closed its input")
    return Broken(Stop.TIMEOUT, "did not read its input in time")


def list_session_tools(session: McpSession, page_timeout_s: float) -> list[dict[str, Any]]:
    """Every tool the server lists, following `nextCursor` for up to `MAX_LIST_PAGES` pages."""
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        params = None if cursor is None else {"cursor": cursor}
        deadline = time.monotonic() + page_timeout_s
        reply = session.request("tools/list", params, deadline, LIST_LINE_BYTES)
        if isinstance(reply, Broken):
            raise HandlerError(
                f"{session.name}: during tools/list the MCP server {session.describe(reply)}"
            )
        result = reply.get("result")
        page = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(result, dict) or not isinstance(page, list):
            raise HandlerError(f"{session.name}: tools/list failed: {error_text(reply)}")
        tools += [_tool_entry(session.name, entry) for entry in page]
        following = result.get("nextCursor")
        if following is None:
            return tools
        if not isinstance(following, str) or following == cursor:
            raise HandlerError(f"{session.name}: tools/list sent a bad cursor {following!r}")
        cursor = following
    raise HandlerError(
        f"{session.name}: tools/list still had more after {MAX_LIST_PAGES} pages",
        hint="the server's pagination does not end; check its nextCursor",
    )


def _tool_entry(server: str, entry: Any) -> dict[str, Any]:
    name = entry.get("name") if isinstance(entry, dict) else None
    schema = entry.get("inputSchema") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not isinstance(schema, dict):
        shown = bounded_message(json.dumps(entry)[:200], 120)
        raise HandlerError(
            f"{server}: tools/list has an entry without name or inputSchema: {shown}"
        )
    description = entry.get("description")
    annotations = entry.get("annotations")
    output_schema = entry.get("outputSchema")
    execution = entry.get("execution")
    task_support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return {
        "name": name,
        "description": description if isinstance(description, str) else "",
        "inputSchema": schema,
        # Only the hints are kept (booleans): a server's free text goes nowhere.
        "annotations": {
            hint: value
            for hint, value in (annotations.items() if isinstance(annotations, dict) else ())
            if isinstance(hint, str) and hint.endswith("Hint") and isinstance(value, bool)
        },
        # Only a declared one: a tool without `outputSchema` promises nothing about output.
        **({"outputSchema": output_schema} if output_schema is not None else {}),
        # MCP 2025-11-25 tasks: "required" means the tool must never be called plainly.
        **({"taskSupport": task_support} if isinstance(task_support, str) else {}),
    }


def error_text(reply: dict[str, Any]) -> str:
    """`code: message` of a JSON-RPC error response, bounded and redacted."""
    error = reply.get("error")
    if not isinstance(error, dict):
        return "malformed response"
    return bounded_message(f"{error.get('code')}: {error.get('message', '')}")


def _protocol_message(line: bytes) -> dict[str, Any] | None:
    """The line as a JSON-RPC message, or None when it is noise (a log line, say)."""
    stripped = line.strip()
    if not stripped.startswith(b"{"):
        return None
    try:
        value = strict_json(stripped)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    # A structured log line is JSON too; only JSON-RPC-shaped objects are the protocol.
    if value.get("jsonrpc") == "2.0":
        return value
    if "id" in value and any(key in value for key in ("result", "error", "method")):
        return value
    return None
