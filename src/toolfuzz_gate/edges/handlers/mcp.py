"""The `mcp: {command: [ARGV...], tool: NAME}` adapter: one tool of an MCP server over stdio (edge).

The server runs as a persistent child (`WorkerProcess`: own session, scrubbed environment,
a temporary working directory unless one is configured) and is spoken to by the small
synchronous JSON-RPC client in `mcp_client`. A call that times out, overflows the read cap
or breaks the protocol costs the server: its process group is killed and a fresh server is
started and re-initialized on the next call.

Outcomes of `tools/call`:
- a result without `isError` is ACCEPTED; the output is `structuredContent` when present,
  else the `content` list, and is what gets digested and measured;
- `isError: true` is REJECTED, coded by `structuredContent.code` (a string), else by the
  code its first text content names (`core.campaign.rejection_code.derived_code`: the
  rule strips the SDKs' wrappers, takes a lone token or a leading `CODE:`, and otherwise
  says `tool-error`); with one exception: the
  official Python SDK answers an unexpected exception in a tool with exactly
  "Error executing tool NAME" (a deliberate rejection always has ": reason" after it), and
  that marker is a CRASH;
- JSON-RPC error -32602 (invalid params) is REJECTED with code `invalid-params`; -32603
  (internal error) and every other JSON-RPC error are CRASHes;
- exit, broken protocol or silence past the timeout are CRASH / TIMEOUT. Each call asks for
  progress (`_meta.progressToken`), and each progress notification for it pushes the
  timeout back, up to `PROGRESS_MAX_FACTOR` times the timeout in all.
A tool listed with `execution.taskSupport: "required"` (MCP tasks) must never be called
plainly, and calling as a task is not supported: the constructor raises
`TaskRequiredError`, which skips the tool (a note, not a failure of the gate).
`config.effects`, when set, names a zero-argument tool of the same server whose output is
the committed-state snapshot, called before and after every call.

Why a client of our own rather than the official SDK's (mcp 2.3: `mcp.Client` over
`StdioServerParameters`, `mode="legacy"`), measured by `bench/bench_mcp.py` on a busy 2-core
box (three runs), one trivial call repeated: against the SDK-built fixture servers this
client made 550-770 calls/s and the SDK client 420-510 (there the server's own stdio
transport, ~1.3 ms a request, is the bottleneck); against a stdlib server, where the clients'
costs show, 14,300-16,700 against 1,600-2,400. Startup (spawn, initialize, tools/list) is the
same 1.0-1.8 s with either, nearly all of it the server importing the SDK, and importing the
SDK client would add 0.8-1.4 s to the gate. Beyond speed: the SDK client is async (anyio)
where the engine is a synchronous loop; it logs a malformed server line and hands it to the
session as an exception rather than a finding; it buffers a response line without any cap;
and its 2.x API renamed what 1.x code used. So the SDK is only a test dependency (it builds
the fixture servers).
"""

from __future__ import annotations

import time
from typing import Any

from toolfuzz_gate.core.campaign.cause import named, signature
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_members import NO_NOTES, HandlerNotes
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers import timing
from toolfuzz_gate.edges.handlers.base import Deadline, RestartingHandler, unanswered
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_client import (
    Broken,
    Launch,
    McpSession,
    StdoutNoise,
    error_text,
    list_session_tools,
)
from toolfuzz_gate.edges.handlers.mcp_listing import list_kept, server_key
from toolfuzz_gate.edges.handlers.mcp_result import output_of, result_outcome, with_raised
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers, SharedServer
from toolfuzz_gate.edges.handlers.rlimits import Limits
from toolfuzz_gate.errors import HandlerError, TaskRequiredError

STARTUP_TIMEOUT_S = 30.0
"""For starting the server and `initialize`, separate from the per-call timeout."""
READ_FACTOR = 4
"""The read cap is READ_FACTOR x max_output_bytes + slack: an MCP result carries its output
twice (`structuredContent` and a text rendering, which SDKs indent)."""
RESPONSE_SLACK_BYTES = 16384
PROGRESS_MAX_FACTOR = 15
"""How far progress notifications may stretch one `tools/call`: each one pushes the
deadline to a full per-call timeout after it, but never past PROGRESS_MAX_FACTOR times
that timeout after the call began (the MCP spec: a client MAY reset its timeout on
progress, and SHOULD enforce a maximum). 15 gives a 2 s timeout a 30 s ceiling: room for
a long operation that reports as it goes (the reference server's 10 s
`trigger-long-running-operation`), while a server that reports progress forever still
times out, holding the run for a bounded time. The ceiling is that of the configured
timeout: a confirmation replay's longer budget (`confirm.TIMEOUT_FACTOR`) lengthens the
silence it forgives, not the ceiling, so confirming a server that reports forever costs
one ceiling per replay, not three."""
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
GENERIC_ERRORS = frozenset({INTERNAL_ERROR, -32000})
"""JSON-RPC codes an SDK gives whatever the tool raised (a TypeScript server's thrown
`Error`, whatever its words, is -32603): the message's first words tell two causes apart."""
PING_TIMEOUT_S = 2.0
"""The most a `ping` waits for its answer (a live server answers it at once)."""


class McpHandler(RestartingHandler):
    """A `Handler` calling one tool of an MCP server. Not thread-safe.

    The server starts, is initialized and lists its tools in the constructor, so a server
    that cannot start, or lacks the tool, fails fast with `HandlerError`.
    """

    def __init__(self, config: HandlerConfig, *, startup_timeout_s: float = STARTUP_TIMEOUT_S):
        if not config.target:
            raise HandlerError(
                "the mcp handler needs a tool name",
                hint="list the server's tools with mcp.list_tools and build one handler each",
            )
        self.config = config
        self.noise = StdoutNoise()
        self._startup_timeout_s = startup_timeout_s
        self._set_timeout(config.timeout_ms / 1000)
        self._read_limit = READ_FACTOR * config.max_output_bytes + RESPONSE_SLACK_BYTES
        limits = Limits.resolve(config.memory_limit_mb, config.cpu_limit_s, config.process_limit)

        def launch() -> Launch:
            return Launch.prepare(config.argv, config.env, config.cwd, config.checkout, limits)

        # A shared server (`mcp_servers`) outlives this handler; its own dies with it.
        self._shared = config.servers is not None
        taken = _handed_over(config)
        if taken is not None and taken.session is not None:
            self.noise = taken.session.noise  # what it printed while it started counts
        self._server = (
            config.servers.server(server_key(config), launch)
            if config.servers is not None
            else taken or SharedServer(launch())
        )
        self._relaunch = launch
        try:
            if self._session is None:
                self._session = self._start()
            self._session.noise = self.noise
            listed = self._server.listed
            if listed is None:
                listed = self._server.listed = list_session_tools(self._session, startup_timeout_s)
        except BaseException:
            self.close()
            raise
        tools = {tool["name"]: tool for tool in listed}
        for wanted in (config.target, config.effects):
            if wanted is not None and wanted not in tools:
                self.close()
                raise HandlerError(
                    f"the MCP server {self._launch.label} lists no tool {wanted!r}",
                    hint=f"it lists: {', '.join(sorted(tools)) or 'nothing'}",
                )
        self.tool: dict[str, Any] = tools[config.target]
        if self.tool.get("taskSupport") == "required":
            self.close()
            raise TaskRequiredError(
                f"the MCP tool {config.target!r} requires task augmentation "
                "(execution.taskSupport: required) and the gate calls tools plainly, "
                "so it is skipped, not fuzzed",
                hint="calling a tool as a task is not supported; the skip is a note, not a "
                "failure of the gate",
            )

    @property
    def _launch(self) -> Launch:
        """How the server starts (shared tools see a new working directory at once)."""
        return self._server.launch

    @property
    def _session(self) -> McpSession | None:
        return self._server.session

    @_session.setter
    def _session(self, session: McpSession | None) -> None:
        self._server.session = session

    @property
    def input_schema(self) -> JSONObject:
        """The tool's `inputSchema` as `tools/list` gave it at startup."""
        schema: JSONObject = self.tool["inputSchema"]
        return schema

    @property
    def stdout_noise(self) -> int:
        """Non-JSON-RPC lines the server printed on stdout so far (skipped, not failures)."""
        return self.noise.count

    def notes(self) -> HandlerNotes:
        """How many lines that are not JSON-RPC the server printed on stdout, and the first."""
        if self.noise.count <= 0:
            return NO_NOTES
        return HandlerNotes(
            stdout_noise_lines=self.noise.count, stdout_noise_sample=self.noise.sample
        )

    @property
    def server_pid(self) -> int | None:
        return self._session.pid if self._session is not None else None

    def describe(self) -> str:
        return f"mcp:{self.config.target}"

    def call(self, arguments: JSONObject) -> Outcome:
        session = self._session
        if session is None:
            try:
                session = self._session = self._start()
            except HandlerError as error:
                message = bounded_message(f"restart failed: {error.message}")
                return Outcome(kind=OutcomeKind.CRASH, message=message)
        effects = self.config.effects
        try:
            if effects is None:
                return self._call(session, self.config.target, arguments)
            before = self._snapshot(session, effects)
            if isinstance(before, Outcome):
                return before
            outcome = self._call(session, self.config.target, arguments)
            if self._session is not session:
                return outcome  # the call cost the server: nothing to compare against
            after = self._snapshot(session, effects)
            if isinstance(after, Outcome):
                return outcome
            return outcome._replace(
                effects_before=before[0], effects_after=after[0], effects_observed=True
            )
        except BaseException:
            # Interrupted mid-call (KeyboardInterrupt): a late answer would desynchronise ids.
            self._discard()
            raise

    def close(self) -> None:
        if not self._shared:
            self._server.stop()

    def _start(self) -> McpSession:
        with timing.measured("starts"):
            return McpSession(
                self._launch, startup_timeout_s=self._startup_timeout_s, noise=self.noise
            )

    def _call(self, session: McpSession, tool: str, arguments: JSONObject) -> Outcome:
        deadline = Deadline(self._timeout_s, PROGRESS_MAX_FACTOR * self._base_timeout_s)
        params = {"name": tool, "arguments": arguments}
        mark = session.process.stderr_mark()
        reply = session.request("tools/call", params, deadline, self._read_limit)
        if isinstance(reply, Broken):
            outcome = self._broken(session, reply)
            if outcome.kind is OutcomeKind.TIMEOUT and deadline.extended:
                return outcome._replace(message=self._waited(deadline))
            return outcome
        result = reply.get("result")
        if isinstance(result, dict):
            outcome = result_outcome(
                result, tool, arguments, self.config.ignore_output, self.config.output_text_chars
            )
            if outcome.kind is OutcomeKind.CRASH and outcome.cause is None:
                return with_raised(outcome, session.process.stderr_since(mark))
            return outcome
        error = reply.get("error")
        if isinstance(error, dict) and error.get("code") == INVALID_PARAMS:
            message = bounded_message(str(error.get("message", "")))
            return Outcome(
                kind=OutcomeKind.REJECTED,
                error_code="invalid-params",
                message=message,
                code_derived=True,
            )
        if isinstance(error, dict):
            message = f"JSON-RPC error {error_text(reply)}"
            detail = named(message)
            if not detail and error.get("code") in GENERIC_ERRORS:
                detail = signature(str(error.get("message", "")), arguments)
            cause = f"json-rpc {error.get('code')}" + (f" {detail}" if detail else "")
            crash = self._launch.limits.crash(message, cause)
            # An internal error is an answer: the server caught what the tool raised and lives.
            return crash._replace(internal=error.get("code") == INTERNAL_ERROR)
        return self._broken(session, Broken(None, "sent a malformed tools/call response"))

    def _waited(self, deadline: Deadline) -> str:
        """What a timeout that progress notifications had put off waited for."""
        if deadline.capped:
            most = max(PROGRESS_MAX_FACTOR * self._base_timeout_s, self._timeout_s)
            return (
                f"no answer within {most:g} s, the most progress notifications extend "
                f"a {self._base_timeout_s:g} s timeout to"
            )
        return f"no answer within {self._timeout_s:g} s of the last progress notification"

    def _snapshot(self, session: McpSession, tool: str) -> tuple[JSON] | Outcome:
        """The effects tool's output (in a 1-tuple: it may be null), or why there is none."""
        deadline = time.monotonic() + self._timeout_s
        params = {"name": tool, "arguments": {}}
        with timing.measured("effects"):
            reply = session.request("tools/call", params, deadline, self._read_limit)
        if isinstance(reply, Broken):
            failed = self._broken(session, reply)
        else:
            result = reply.get("result")
            if isinstance(result, dict) and result.get("isError") is not True:
                return (output_of(result),)
            failed = Outcome(kind=OutcomeKind.CRASH, message="failed")
        kind = OutcomeKind.TIMEOUT if failed.kind is OutcomeKind.TIMEOUT else OutcomeKind.CRASH
        return Outcome(kind=kind, message=f"the effects tool {tool} {failed.message}".strip())

    def _broken(self, session: McpSession, broken: Broken) -> Outcome:
        """The server is not trusted for another call: kill it, say why."""
        self._session = None
        if broken.stop is not None:
            ended = unanswered(broken.stop, session.process, self._timeout_s, self._launch.limits)
            if ended is not None:
                return ended._replace(ended=True)
        message = f"the MCP server {session.describe(broken, tail_chars=280)}"
        session.kill()
        return self._launch.limits.crash(bounded_message(message))._replace(ended=True)

    def ping(self) -> Outcome | None:
        """Ask the running server for a `ping` (`core.campaign.outcome.Pinging`): ACCEPTED
        when it answers, else how it did not (the server then dropped); None when no
        server is running (there is nothing to ask)."""
        session = self._session
        if session is None:
            return None
        deadline = time.monotonic() + min(PING_TIMEOUT_S, self._timeout_s)
        reply = session.request("ping", None, deadline, RESPONSE_SLACK_BYTES)
        if isinstance(reply, Broken):
            return self._broken(session, reply)
        return Outcome(kind=OutcomeKind.ACCEPTED)

    def start_fresh(self) -> None:
        """Drop the server, run the declared reset, and give the next server a new working
        directory where the adapter made its own: what the campaign's calls wrote there
        stays behind."""
        self._discard()
        if self._launch.tempdir is not None:
            self._server.launch.cleanup()
            self._server.launch = self._relaunch()
        if self.fresh_hook is not None:
            self.fresh_hook()

    def _discard(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.kill()


def _handed_over(config: HandlerConfig) -> SharedServer | None:
    """The server a listing left running for this handler to take (`config.listed`), when
    nothing must run before the handler's own server starts: a reset, a workspace."""
    if config.listed is None or config.servers is not None:
        return None
    if config.reset_command or config.reset_tool is not None or config.work_tree is not None:
        return None
    return config.listed.take(server_key(config))


def list_tools(
    config: HandlerConfig,
    *,
    startup_timeout_s: float = STARTUP_TIMEOUT_S,
    servers: McpServers | None = None,
) -> list[dict[str, Any]]:
    """Every tool of the server `config.argv` starts: `{name, description, inputSchema,
    annotations}` (`annotations`: the boolean hints only).

    Starts the server, initializes it, follows `tools/list` pagination, stops it; with
    `servers`, leaves it running there for a handler of it to take over (`_handed_over`),
    when no reset or workspace must come before its start.
    """
    if servers is not None and not (config.reset_command or config.reset_tool or config.sandbox):
        return list_kept(servers, config, startup_timeout_s)
    from toolfuzz_gate.edges.handlers.reset import run_reset_command
    from toolfuzz_gate.edges.handlers.workspace import placed

    limits = Limits.resolve(config.memory_limit_mb, config.cpu_limit_s, config.process_limit)
    config, workspace = placed(config)  # a sandboxed server is listed in a workspace too
    try:
        if workspace is not None and config.reset_command:
            run_reset_command(config)  # what sets the workspace up for the server
        launch = Launch.prepare(config.argv, config.env, config.cwd, config.checkout, limits)
        try:
            session = McpSession(launch, startup_timeout_s=startup_timeout_s, noise=StdoutNoise())
            try:
                return list_session_tools(session, startup_timeout_s)
            finally:
                session.stop(grace_s=1.0)
        finally:
            launch.cleanup()
    finally:
        if workspace is not None:
            workspace.close()
