"""The `command: [ARGV...]` adapter: one persistent process speaking JSON lines (edge).

Protocol, one line each way per call, UTF-8 JSON on stdin and stdout (logs go to stderr):

    -> {"id": 7, "arguments": {...}}
    <- {"id": 7, "ok": true, "output": ..., "effects": ...}
    <- {"id": 7, "ok": false, "error": {"code": "...", "path": "...", "message": "..."}}

`effects` (optional) is the tool's committed state AFTER the call. The state before a call
is the state the same process reported last, so a change is seen from the first call on
only if the process says where it starts: it may write `{"effects": <JSON>}` (no `id`) as
its very first line, before reading any request. Without that line the first call of each
process is unobserved rather than guessed: an in-memory counter restarts from zero with
the process, so a previous process's last report would make up a change, and `None` as a
"before" would flag every first call. A response without `effects` makes the state
unknown again for the same reason. So `effects_observed` is true exactly when both ends of
the comparison are reports of one process.

Exit, a non-JSON line, a wrong id or a malformed response is a CRASH, silence past the
timeout a TIMEOUT, a line past `max_output_bytes` + slack an ACCEPTED `output_capped`
outcome; each costs the process (its whole group is killed) and the next call starts a
fresh one in the same working directory. A command that cannot run at all is a
`HandlerError`: it cannot be started, or, when the first call of a handler breaks the
protocol before any process answered, a fresh process watched without input exits or
writes a non-protocol line. If it stays quiet, the input is to blame and the call is a
CRASH. POSIX only (process groups, non-blocking pipes under `selectors`).
"""

from __future__ import annotations

import os
import shlex
import tempfile
import time
from typing import Any

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind, output_text, said_of
from toolfuzz_gate.core.jsonutil.canonical import JSON, digest_and_size
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.base import LineWorkerHandler
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.confine import handlers_own
from toolfuzz_gate.edges.handlers.rlimits import Limits, require_executable
from toolfuzz_gate.edges.handlers.wire import json_object_line
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess
from toolfuzz_gate.errors import HandlerError

CRASH_TAIL_CHARS = 160
STARTUP_PROBE_S = 2.0
"""How long a fresh process is watched, without input, after a first call broke."""
_MESSAGE_CHARS = 300


class CommandHandler(LineWorkerHandler):
    """A `Handler` speaking JSON lines to one persistent process. Not thread-safe.

    The process starts in the constructor, so a missing executable fails fast with
    `HandlerError`; after a failure it restarts lazily, on the next call.
    """

    noun = "process"
    gone_unread = "the process exited before reading the call"
    gone_during = "the process exited during the call"

    def __init__(self, config: HandlerConfig, *, startup_probe_s: float = STARTUP_PROBE_S) -> None:
        if not config.argv:
            raise HandlerError(
                "command handler has no command", hint="give its ARGV, e.g. [./tool]"
            )
        if config.timeout_ms <= 0 or config.max_output_bytes < 0:
            raise HandlerError(f"invalid command handler limits: {config}")
        limits = Limits.resolve(config.memory_limit_mb, config.cpu_limit_s, config.process_limit)
        super().__init__(config.timeout_ms / 1000, config.max_output_bytes, limits)
        self._ignore = config.ignore_output
        self._text_chars = config.output_text_chars
        # Popen would resolve a relative executable against the new working directory.
        resolved = config.checkout.argv(config.argv, config.cwd)
        self._program = resolved[0]
        self.argv = self.limits.wrap(resolved)
        self.label = f"command: {shlex.join(config.argv)}"
        self._startup_probe_s = startup_probe_s
        self._env = config.checkout.environment(config.env)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if config.cwd:
            self.cwd = os.path.abspath(config.cwd)
            if not os.path.isdir(self.cwd):
                raise HandlerError(f"{self.label}: working directory {self.cwd} does not exist")
        else:
            self._tmp = tempfile.TemporaryDirectory(prefix="toolfuzz-command-")
            self.cwd = handlers_own(self._tmp.name)
        self._vouched = False
        """True once a process answered a call or passed the startup probe."""
        self._fresh = True
        """The current process has written nothing yet, so an announcement may come."""
        self._state: JSON = None
        self._state_known = False
        try:
            self._worker = self._spawn()
        except HandlerError:
            self._cleanup()
            raise

    def describe(self) -> str:
        return self.label

    def _spawn(self) -> WorkerProcess:
        try:
            require_executable(self._program, self._env, self.cwd)
            worker = WorkerProcess(
                list(self.argv),
                self._env,
                self.cwd,
                cpu_budget_s=self.limits.cpu_s,
                process_limit=self.limits.processes,
            )
        except OSError as exc:
            raise HandlerError(
                f"{self.label}: cannot start {self._program!r}: {exc.strerror or exc}",
                hint="name an existing executable file; a name without a slash is looked up "
                "on PATH",
            ) from exc
        self._fresh = True
        self._state, self._state_known = None, False
        return worker

    def _take(self, line: bytes) -> bytes | None:
        """The answer, unless `line` is a fresh process's announcement of its state."""
        if self._fresh:
            self._fresh = False
            if self._announced(line):
                return None
        return line

    def _announced(self, line: bytes) -> bool:
        """Take `line` as the process's initial state if it is an announcement."""
        value = json_object_line(line)
        if value is None or set(value) != {"effects"}:
            return False
        self._state, self._state_known = value["effects"], True
        return True

    def _answered(self, response: dict[str, Any], line: bytes) -> Outcome:
        ok, error = response.get("ok"), response.get("error")
        accepted = ok is True and "output" in response
        rejected = ok is False and isinstance(error, dict) and isinstance(error.get("code"), str)
        if not (accepted or rejected):
            return self._broken(f"the process sent a malformed response: {line[:80]!r}")
        self._vouched = True
        before, known = self._state, self._state_known
        reported = "effects" in response
        self._state, self._state_known = response.get("effects"), reported
        observed = known and reported
        effects: dict[str, Any] = {
            "effects_before": before if observed else None,
            "effects_after": self._state if observed else None,
            "effects_observed": observed,
        }
        if accepted:
            output_digest, output_bytes = digest_and_size(response["output"], self._ignore)
            return Outcome(
                OutcomeKind.ACCEPTED,
                output_digest=output_digest,
                output_bytes=output_bytes,
                output_text=output_text(response["output"], self._text_chars),
                said=said_of(output) if isinstance(output := response["output"], str) else None,
                **effects,
            )
        assert isinstance(error, dict)
        path, message = error.get("path"), error.get("message")
        return Outcome(
            OutcomeKind.REJECTED,
            error_code=error["code"],
            error_path=path if isinstance(path, str) else None,
            message=bounded_message(message) if isinstance(message, str) else "",
            **effects,
        )

    def _broken(self, problem: str, *, exited: bool = False) -> Outcome:
        """A protocol-level crash: the process is not trusted for another call."""
        worker, self._worker = self._worker, None
        message = problem
        if worker is not None:
            wait_s = 1.0 if exited else 0.0
            message = worker.describe_exit(problem, tail_chars=CRASH_TAIL_CHARS, wait_s=wait_s)
            worker.kill()
        if not self._vouched:
            self._probe_startup()
        return self.limits.crash(bounded_message(message, _MESSAGE_CHARS))

    def _probe_startup(self) -> None:
        """Start a process and watch it without input: HandlerError if it cannot run at all."""
        worker = self._spawn()
        deadline = time.monotonic() + self._startup_probe_s
        while True:
            line = worker.read_line(deadline, self._limit)
            if line is Stop.TIMEOUT:
                break
            if isinstance(line, bytes) and self._fresh:
                self._fresh = False
                if self._announced(line):
                    continue
            problem, hint = _startup_problem(line)
            wait_s = 1.0 if line is Stop.EOF else 0.0
            reason = worker.describe_exit(problem, tail_chars=_MESSAGE_CHARS, wait_s=wait_s)
            worker.kill()
            raise HandlerError(bounded_message(f"{self.label}: {reason}", 600), hint=hint)
        self._worker = worker
        self._vouched = True

    def _cleanup(self) -> None:
        tmp, self._tmp = self._tmp, None
        if tmp is not None:
            tmp.cleanup()


def _startup_problem(line: bytes | Stop) -> tuple[str, str]:
    """What a process that spoke or ended before any request did wrong, and the advice."""
    if line is Stop.CROWD:
        return "the command starts too many processes before any request", (
            "raise the handler's process_limit, or 0 for none"
        )
    if line is Stop.EOF:
        return "the command exits on start without reading a request", (
            "run it by hand: it runs in a fresh temporary directory (give paths as absolute "
            "paths or set the handler's cwd) with a scrubbed environment (name the variables "
            "it needs)"
        )
    shown = repr(line[:80]) if isinstance(line, bytes) else "an overlong line"
    return f"the command writes {shown} on stdout before any request", (
        'stdout carries only responses and an optional first {"effects": ...} line; '
        "write logs to stderr"
    )
