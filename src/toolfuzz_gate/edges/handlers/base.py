"""The handler contract every adapter implements, and the JSON-lines call loop the process
adapters share (edge).

Adapter modules import this one (and helpers of their own: `worker_process`, `rlimits`,
`checkout`, `wire`); `registry` imports the adapters and nothing here imports `registry`,
so the imports run one way, as pre-commit keeps `lang_base` apart from its table of
languages.

The loop: one request written as a JSON line to a `WorkerProcess`, then lines read until
one is the answer, everything under one deadline and a byte cap per line (`exchange`);
what a request that got no answer comes to is decided once, here (`unanswered`). The
`python:` and `command` adapters speak the same `{"id", "arguments"}` protocol and share
all of a call (`LineWorkerHandler`); `mcp` speaks JSON-RPC and uses the loop alone.
"""

from __future__ import annotations

import abc
import json
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, ClassVar, NamedTuple, Self, TypeVar

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_members import NO_NOTES, HandlerNotes
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.handlers import timing
from toolfuzz_gate.edges.handlers.rlimits import Limits, crowded
from toolfuzz_gate.edges.handlers.wire import json_object_line
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess

RESPONSE_SLACK_BYTES = 4096
"""Room for the envelope, an error or an effects report beyond `max_output_bytes`."""

_Answer = TypeVar("_Answer")


class ManagedHandler(abc.ABC):
    """A handler the gate starts, calls and closes: what every adapter implements.

    `call` and `close` are the obligations; the rest has defaults here. Adapters with a
    process to start again also offer `restart` and `scale_timeout`
    (`core.campaign.outcome.Replaying`). Those have no default: offering them is what
    tells the engine that a finding can be confirmed on a fresh process.
    """

    @abc.abstractmethod
    def call(self, arguments: JSONObject) -> Outcome:
        """Call the handler with one tool call's arguments; what it did, as an `Outcome`."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release what the handler holds (processes, connections, temporary directories)."""

    def notes(self) -> HandlerNotes:
        """What the adapter noticed about the handler beyond single calls, for the receipt's
        `handlerNotes` (deterministic; `NO_NOTES` when there is nothing to say)."""
        return NO_NOTES

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class Silence(NamedTuple):
    """Why a request got no answer: how writing or reading stopped, and whether the request
    was still being written (`writing`: the process never read it)."""

    stop: Stop
    writing: bool = False


def encode_line(message: Mapping[str, Any]) -> bytes:
    """`message` as one line of ASCII JSON (NaN and Infinity refused: they are not JSON)."""
    return json.dumps(message, allow_nan=False).encode("ascii") + b"\n"


class Deadline:
    """A deadline a request's own messages may push back, never past a hard limit (MCP
    `notifications/progress`: a client may reset its timeout on each, and should still
    enforce a maximum). `exchange` reads `at` before each line it waits for, so a line that
    calls `extend` lengthens the wait for the next. A plain float is the fixed deadline
    every other request uses."""

    __slots__ = ("at", "limit", "start", "window")

    def __init__(self, window_s: float, most_s: float, start: float | None = None) -> None:
        """Wait `window_s` from `start` (now), and after each sign of life, never more
        than `most_s` (nor less than one window) in all."""
        self.start = time.monotonic() if start is None else start
        self.window = window_s
        self.at = self.start + window_s
        self.limit = self.start + max(most_s, window_s)

    @property
    def extended(self) -> bool:
        """Whether a message pushed the deadline back at least once."""
        return self.at > self.start + self.window

    @property
    def capped(self) -> bool:
        """Whether the deadline has reached its hard limit."""
        return self.at >= self.limit

    def extend(self, now: float) -> None:
        """A sign of life at `now`: wait one more window from it, up to the limit."""
        self.at = min(max(self.at, now + self.window), self.limit)


def _at(deadline: float | Deadline) -> float:
    return deadline.at if isinstance(deadline, Deadline) else deadline


def send_line(process: WorkerProcess, line: bytes, deadline: float) -> Silence | None:
    """Write `line`: None once it is written, else why not (the deadline, or EOF: the
    process is gone)."""
    try:
        if process.write(line, deadline):
            return None
    except OSError:
        return Silence(Stop.EOF, writing=True)
    return Silence(Stop.TIMEOUT, writing=True)


def exchange(
    process: WorkerProcess,
    line: bytes,
    deadline: float | Deadline,
    limit: int,
    answer: Callable[[bytes], _Answer | None],
) -> _Answer | Silence:
    """Send `line`, then read lines of at most `limit` bytes until `answer` takes one.

    `answer` returns None to pass a line by (a log line, an announcement, a request of
    the process's own, answered meanwhile) and anything else to end the exchange with it.
    A `Deadline` is read again before each line, so `answer` may extend it.
    """
    silence = send_line(process, line, _at(deadline))
    if silence is not None:
        return silence
    while True:
        read = process.read_line(_at(deadline), limit)
        if isinstance(read, Stop):
            return Silence(read)
        taken = answer(read)
        if taken is not None:
            return taken


def unanswered(
    stop: Stop, process: WorkerProcess, timeout_s: float, limits: Limits
) -> Outcome | None:
    """The outcome of a call `process` did not answer, the process killed: TIMEOUT past the
    deadline, a capped ACCEPTED past the byte cap, a CRASH past the process limit. None for
    EOF, leaving the process to the adapter to say how it ended (`describe_exit`)."""
    if stop is Stop.EOF:
        return None
    if stop is Stop.OVERFLOW:
        # Exactly limit + 1 bytes were read, so the outcome is the same on every run.
        read = process.pending_bytes
        process.kill()
        return Outcome(OutcomeKind.ACCEPTED, output_capped=True, output_bytes=read)
    process.kill()
    if stop is Stop.CROWD:
        return crowded(limits)
    return Outcome(OutcomeKind.TIMEOUT, message=f"no answer within {timeout_s:g} s", ended=True)


class RestartingHandler(ManagedHandler):
    """A handler behind a process it can drop and start again: `restart` and `scale_timeout`
    (`core.campaign.outcome.Replaying`) for every such adapter, over `_discard` (drop the
    process; the next call starts a fresh one) and the per-call timeout it keeps."""

    _base_timeout_s: float
    _timeout_s: float

    def _set_timeout(self, timeout_s: float) -> None:
        self._base_timeout_s = self._timeout_s = timeout_s

    def restart(self) -> None:
        """Drop the process; the next call starts a fresh one (for confirming findings)."""
        self._discard()

    def scale_timeout(self, factor: float) -> None:
        """Stretch the per-call timeout from the next call on (1.0: as configured)."""
        self._timeout_s = self._base_timeout_s * factor

    fresh_hook: Callable[[], None] | None = None
    """What `start_fresh` runs after dropping the process: the config's reset (set by the
    registry when the config declares one)."""

    def start_fresh(self) -> None:
        """Drop the process and run the declared reset: the next call meets the state a
        campaign starts from (`core.campaign.outcome.Refreshing`)."""
        self._discard()
        if self.fresh_hook is not None:
            self.fresh_hook()

    @abc.abstractmethod
    def _discard(self) -> None:
        """Kill the running process, if any, so the next call starts a fresh one."""


class LineWorkerHandler(RestartingHandler):
    """A handler that is one persistent process answering a JSON line per request.

    The request is `{"id": N, "arguments": {...}}`; the answer is one JSON object line with
    the same `id`, interpreted by the adapter (`_answered`). A process that answers late,
    too much or wrongly is not trusted again: it is killed and the next call starts a fresh
    one (`_spawn`). Not thread-safe.
    """

    noun: ClassVar[str]
    """What messages call the process: "the {noun} answered id ..."."""
    gone_unread: ClassVar[str]
    """The problem when the process was gone before it read the call."""
    gone_during: ClassVar[str]
    """The problem when it exited while the call waited for an answer."""

    def __init__(self, timeout_s: float, max_output_bytes: int, limits: Limits) -> None:
        self.limits = limits
        self._set_timeout(timeout_s)
        self._limit = max_output_bytes + RESPONSE_SLACK_BYTES
        self._next_id = 0
        self._worker: WorkerProcess | None = None

    @property
    def worker_pid(self) -> int | None:
        """The running process's pid (its process group id too), or None between processes."""
        return self._worker.pid if self._worker is not None else None

    def call(self, arguments: JSONObject) -> Outcome:
        if self._worker is not None:
            return self._call(self._worker, arguments)
        started = time.monotonic()
        self._worker = self._spawn()
        try:
            return self._call(self._worker, arguments)
        finally:  # a fresh process's first answer waits for its imports: part of the start
            timing.add("starts", time.monotonic() - started)

    def _call(self, worker: WorkerProcess, arguments: JSONObject) -> Outcome:
        self._next_id += 1
        line = encode_line({"id": self._next_id, "arguments": arguments})
        timeout_s = self._timeout_s
        deadline = time.monotonic() + timeout_s
        try:
            answer = exchange(worker, line, deadline, self._limit, self._take)
            if not isinstance(answer, Silence):
                return self._outcome(answer)
            if answer.stop is Stop.EOF:
                problem = self.gone_unread if answer.writing else self.gone_during
                return self._broken(problem, exited=True)
            self._worker = None
            outcome = unanswered(answer.stop, worker, timeout_s, self.limits)
            assert outcome is not None
            return outcome
        except BaseException:
            # Interrupted mid-call (KeyboardInterrupt): a late answer would desynchronise ids.
            self._discard()
            raise

    def close(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop(grace_s=1.0)
        self._cleanup()

    @abc.abstractmethod
    def _spawn(self) -> WorkerProcess:
        """Start a fresh process (`HandlerError` when it cannot run)."""

    @abc.abstractmethod
    def _answered(self, response: dict[str, Any], line: bytes) -> Outcome:
        """The outcome `response` (the answer to this call, as read in `line`) reports."""

    @abc.abstractmethod
    def _broken(self, problem: str, *, exited: bool = False) -> Outcome:
        """A protocol-level crash described by `problem`: the process is not trusted for
        another call (`exited`: it ended, so its exit status is worth waiting for)."""

    def _take(self, line: bytes) -> bytes | None:
        """The answer among the lines read; every line is one unless an adapter says so."""
        return line

    def _cleanup(self) -> None:
        """Remove what the handler made besides its process (a temporary directory)."""

    def _outcome(self, line: bytes) -> Outcome:
        response = json_object_line(line)
        if response is None:
            return self._broken(f"the {self.noun} wrote a line that is not JSON: {line[:80]!r}")
        call_id = response.get("id")
        if type(call_id) is not int or call_id != self._next_id:
            return self._broken(
                f"the {self.noun} answered id {call_id!r}, expected {self._next_id}"
            )
        return self._answered(response, line)

    def _discard(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.kill()
