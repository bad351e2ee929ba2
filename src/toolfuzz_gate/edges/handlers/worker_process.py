"""One child process spoken to in lines over pipes, under deadlines (edge; POSIX only).

Shared plumbing for adapters that keep a handler process alive between calls: the child
runs in its own session so its whole process group can be killed; stdin and stdout are
non-blocking and driven by `selectors` against a deadline; stderr is drained by a thread
into a bounded tail, so a chatty child never blocks on a full pipe. The child's exit is
watched too (a pidfd, else polling), so a child that exits while a helper it started still
holds its stdout is noticed at once, not when the pipe closes. Ending a child ends every
process it started, in its group or escaped from it (`reaper`). Every live process is
tracked so the gate can kill them all on exit, including after Ctrl-C. Where the gate is
root in the action, the child runs as an unprivileged user (`confine`). Handlers may run in
several threads at once (`run --jobs`): a child joins the tracked set under the same lock
that looking for strays takes, so one thread never takes another's fresh child for a stray.
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import os
import selectors
import signal
import subprocess
import threading
import time
from typing import IO, ClassVar

from toolfuzz_gate.edges.handlers import confine, reaper, rlimits

STDERR_TAIL_BYTES = 32768
"""Enough for a traceback of a few frames, so `stderr_since` can name its exception."""
STDERR_SETTLE_S = 0.03
STDERR_WAIT_S = 0.3
_READ_CHUNK = 65536
_EXIT_POLL_S = 0.05
"""Without a pidfd, how often a waiting read checks whether the child exited."""
_COUNT_EVERY_S = 0.1
"""With a process limit, how often a waiting read counts the child's processes."""


class Stop(enum.Enum):
    """Why `read_line` returned without a line."""

    TIMEOUT = "timeout"
    EOF = "eof"
    OVERFLOW = "overflow"
    CROWD = "crowd"
    """The child and what it started passed the process limit (see `crowd_limit`)."""


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    if stream is None:
        raise RuntimeError("subprocess pipe missing")
    return stream


class WorkerProcess:
    """A started child process. `kill` is idempotent and always reaps."""

    _live: ClassVar[set[WorkerProcess]] = set()
    _tracking: ClassVar[threading.RLock] = threading.RLock()
    """Held while a child starts and joins `_live`, and while strays are looked for: a
    child another thread has just started is outside the gate's session before it is
    live, and would look like a stray (`run --jobs`)."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: str,
        *,
        talks: bool = True,
        cpu_budget_s: int | None = None,
        process_limit: int | None = None,
    ) -> None:
        """`talks`: spoken to over stdin/stdout; else (a server reached another way) its
        stdin is empty and its stdout joins stderr in the drained tail. `cpu_budget_s`: the
        CPU seconds the child may use from each `write` on (`rlimits.allow_cpu`).
        `process_limit`: how many processes the child may have below it while a read waits
        (counted through /proc every 0.1 s; past it the read returns `Stop.CROWD`)."""
        self._cpu_budget_s = cpu_budget_s
        self.crowd_limit = process_limit if reaper.HAS_PROC else None
        self._subreaper = reaper.become_subreaper()
        argv, env = confine.confined(argv, env)  # as the handler user, when the gate is root
        with WorkerProcess._tracking:
            reaper.reap_zombies(self.live_pids())
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if talks else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if talks else subprocess.STDOUT,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
            self.pid = self.process.pid  # before it joins `_live`: `live_pids` reads it
            WorkerProcess._live.add(self)
        self._readable = selectors.DefaultSelector()
        self._writable = selectors.DefaultSelector()
        self._streams: list[IO[bytes]] = []
        self._pidfd: int | None = None
        self._gone = False
        """The child has exited: nothing more can come from it, whoever holds the pipe."""
        self._counted_at = time.monotonic()
        """When the current call began, or the process was last counted (`crowd_limit`)."""
        self._cpu_renewed_at = -float("inf")
        self._tracked: set[int] = set()
        """Descendants seen while their parent lived (only without a subreaper)."""
        if talks:
            self._stdin = _pipe(self.process.stdin)
            self._stdout = _pipe(self.process.stdout)
            os.set_blocking(self._stdin.fileno(), False)
            os.set_blocking(self._stdout.fileno(), False)
            self._readable.register(self._stdout.fileno(), selectors.EVENT_READ)
            self._writable.register(self._stdin.fileno(), selectors.EVENT_WRITE)
            self._streams = [self._stdin, self._stdout]
            with contextlib.suppress(AttributeError, OSError):  # Linux 5.3+
                self._pidfd = os.pidfd_open(self.pid)
                self._readable.register(self._pidfd, selectors.EVENT_READ)
        self._buffer = bytearray()
        self._scanned = 0
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        self._stderr_total = 0
        """Bytes drained from stderr so far: marks for `stderr_since`."""
        drained = self.process.stderr if talks else self.process.stdout
        self._drainer = threading.Thread(target=self._drain, args=(_pipe(drained),), daemon=True)
        self._drainer.start()

    def exited(self) -> bool:
        """Has the child exited (not yet reaped: see `_exit_status`)?"""
        return self._exit_status(0.0) is not None

    @property
    def pending_bytes(self) -> int:
        """Bytes read from stdout that are not yet part of a returned line."""
        return len(self._buffer)

    def write(self, data: bytes, deadline: float) -> bool:
        """Write all of `data`: False if the deadline passes first, OSError if the child is gone
        (even while a process it started holds the pipe open)."""
        if self.exited():
            raise BrokenPipeError("the child exited")
        self._counted_at = now = time.monotonic()
        budget = self._cpu_budget_s
        # Renewed when a tenth of the budget may have gone since: each call gets at least
        # nine tenths of it (one thread), without a /proc read and two syscalls per call.
        if budget and now >= self._cpu_renewed_at + budget / 10:
            self._cpu_renewed_at = now
            rlimits.allow_cpu(self.pid, budget)
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not self._writable.select(remaining):
                continue
            try:
                written = os.write(self._stdin.fileno(), view)
            except BlockingIOError:
                continue
            view = view[written:]
        return True

    def read_line(self, deadline: float, limit: int) -> bytes | Stop:
        """The next line without its newline, or why there is none.

        Never reads more than `limit` + 1 bytes of one line, so OVERFLOW always leaves
        exactly `limit` + 1 pending bytes, however the child's writes were chunked.
        """
        while True:
            newline = self._buffer.find(b"\n", self._scanned)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                self._scanned = 0
                self.track()
                return line
            self._scanned = len(self._buffer)
            if len(self._buffer) > limit:
                return Stop.OVERFLOW
            wanted = min(_READ_CHUNK, limit + 1 - len(self._buffer))
            if self._gone:
                # What the child wrote before it exited is in the pipe; take it without waiting.
                chunk = self._read_now(wanted)
                if not chunk:
                    return Stop.EOF
                self._buffer += chunk
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Stop.TIMEOUT
            wait_s = remaining if self._pidfd is not None else min(remaining, _EXIT_POLL_S)
            if self.crowd_limit is not None:
                if self._crowded():
                    return Stop.CROWD
                wait_s = min(wait_s, _COUNT_EVERY_S)
            ready = {key.fd for key, _ in self._readable.select(wait_s)}
            if self._stdout.fileno() in ready:
                chunk = self._read_now(wanted)
                if chunk == b"":
                    return Stop.EOF
                self._buffer += chunk or b""
            elif self._pidfd in ready or (self._pidfd is None and self.exited()):
                self._gone = True

    def _crowded(self) -> bool:
        """More processes below the child than `crowd_limit`? Counted at most every 0.1 s."""
        now = time.monotonic()
        if now < self._counted_at + _COUNT_EVERY_S or self.crowd_limit is None:
            return False
        self._counted_at = now
        with WorkerProcess._tracking:
            table = reaper.process_table()
            strays = reaper.strays(self.live_pids(), table)
        below = reaper.descendants([self.pid], table) | strays
        return len(below) > self.crowd_limit

    def _read_now(self, wanted: int) -> bytes | None:
        """Up to `wanted` bytes, b"" at end of file, None when nothing is there yet."""
        try:
            return os.read(self._stdout.fileno(), wanted)
        except BlockingIOError:
            return None

    def track(self) -> None:
        """Note the child's current descendants, to end them even after they are orphaned.

        Only needed without a subreaper: with one, orphans come to the gate by themselves.
        """
        if not self._subreaper:
            self._tracked |= reaper.descendants([self.pid], reaper.process_table())

    def stderr_mark(self) -> int:
        """Where stderr is now, for `stderr_since`."""
        with self._tail_lock:
            return self._stderr_total

    def stderr_since(self, mark: int) -> str:
        """What the child wrote on stderr after `mark` (as much as the tail still holds).

        The child wrote it before answering, but the drainer may not have read it yet: wait
        (at most `STDERR_WAIT_S`) until something came and nothing more comes for a moment."""
        deadline = time.monotonic() + STDERR_WAIT_S
        seen, quiet_since = self.stderr_mark(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.005)
            now = self.stderr_mark()
            if now != seen:
                seen, quiet_since = now, time.monotonic()
            elif seen > mark and time.monotonic() - quiet_since >= STDERR_SETTLE_S:
                break
        with self._tail_lock:
            fresh = min(self._stderr_total - mark, len(self._tail))
            data = bytes(self._tail[len(self._tail) - fresh :]) if fresh > 0 else b""
        return data.decode("utf-8", errors="replace")

    def stderr_tail(self, chars: int) -> str:
        with self._tail_lock:
            data = bytes(self._tail)
        return data.decode("utf-8", errors="replace")[-chars:].strip()

    def describe_exit(self, problem: str, tail_chars: int = 300, wait_s: float = 1.0) -> str:
        """`problem`, the exit status if the child exits within `wait_s`, and a stderr tail."""
        status = self._exit_status(wait_s)
        if status is not None:
            problem += f" ({status})"
            # The pipe reaches EOF once the child and whatever it started (and may hold the
            # pipe) are gone; then the drainer has caught the last words.
            self._end_descendants()
            self._drainer.join(timeout=0.5)
        # The end of a traceback names the exception: keep the end, within the budget
        # messages are capped to (`redact.bounded_message`), so nothing cuts it off later.
        room = max(80, tail_chars - len(problem) - len("; stderr: …"))
        tail = self.stderr_tail(room + 1)
        if len(tail) > room:
            tail = "…" + tail[-room:].lstrip()
        return f"{problem}; stderr: {tail}" if tail else problem

    def stop(self, grace_s: float) -> None:
        """Close stdin, give the child `grace_s` to exit on its own, then kill its group."""
        for stream in self._streams[:1]:
            with contextlib.suppress(OSError):
                stream.close()
        if not self._streams:  # nothing to close: ask it to stop
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGTERM)
        self._exit_status(grace_s)
        self.kill()

    def kill(self) -> None:
        """SIGKILL the whole process group, end every process the child started (SIGTERM, a
        short grace, SIGKILL), reap them all, release the pipes."""
        with WorkerProcess._tracking:
            WorkerProcess._live.discard(self)
        if self.process.returncode is None:
            # Found while the tree is whole: once the group dies, its escapees are orphans.
            escaped = reaper.descendants([self.pid], reaper.process_table())
            # Not yet reaped, so the group id is still ours: nothing can have reused it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5.0)
            self._tracked |= escaped
        self._end_descendants()
        for stream in self._streams:
            with contextlib.suppress(OSError):
                stream.close()
        self._readable.close()
        self._writable.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None
        self._drainer.join(timeout=1.0)

    @classmethod
    def live_pids(cls) -> set[int]:
        with cls._tracking:
            return {worker.pid for worker in cls._live}

    @classmethod
    def kill_all(cls) -> None:
        """Kill every live child and every stray; registered with `atexit` below."""
        with cls._tracking:
            live = list(cls._live)
        for worker in live:
            worker.kill()
        with cls._tracking:
            reaper.sweep(cls.live_pids())

    def _end_descendants(self) -> None:
        """End what the child started: those seen below it, and orphans the gate adopted."""
        tracked, self._tracked = self._tracked, set()
        if self.process.returncode is None:
            tracked |= reaper.descendants([self.pid], reaper.process_table())
        with WorkerProcess._tracking:
            reaper.sweep(self.live_pids() | {self.pid}, tracked)

    def _exit_status(self, wait_s: float) -> str | None:
        """How the child exited, waiting up to `wait_s`, without reaping it.

        WNOWAIT leaves the zombie in place so the process group id stays ours until
        `kill` has signalled any grandchildren still in it.
        """
        deadline = time.monotonic() + wait_s
        while True:
            try:
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return None
            if info is not None and info.si_pid == self.pid:
                if info.si_code == os.CLD_EXITED:
                    return f"exit code {info.si_status}"
                try:
                    return f"killed by {signal.Signals(info.si_status).name}"
                except ValueError:
                    return f"killed by signal {info.si_status}"
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)

    def _drain(self, stream: IO[bytes]) -> None:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            with self._tail_lock:
                self._tail += chunk
                del self._tail[:-STDERR_TAIL_BYTES]
                self._stderr_total += len(chunk)
        stream.close()


atexit.register(WorkerProcess.kill_all)
