"""The server behind an `http:` handler, when the policy says how to start it (edge).

`server: [ARGV...]` starts the checkout's own server (resolved by `checkout.Checkout`,
so the base side of a pull request serves the base's code), in the handler's `cwd` or a
fresh temporary directory, with the scrubbed environment. The gate then waits for the
URL to accept connections; a server that exits is started again before the next call,
so one crashing input does not turn every later call into a crash. Its output is kept as
a bounded tail for messages; its whole process group ends with the handler.
"""

from __future__ import annotations

import shutil
import tempfile

from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.confine import handlers_own
from toolfuzz_gate.edges.handlers.worker_process import WorkerProcess
from toolfuzz_gate.errors import HandlerError

SERVER_STARTUP_S = 30.0
"""How long a started server gets to accept connections."""
STOP_GRACE_S = 2.0


class ManagedServer:
    """One server process at a time, started on demand."""

    def __init__(self, config: HandlerConfig) -> None:
        checkout = config.checkout
        self.label = bounded_message(" ".join(config.argv), 100)
        self._argv = checkout.argv(config.argv, config.cwd)
        self._env = checkout.environment(config.env)
        self._tempdir = (
            None if config.cwd else handlers_own(tempfile.mkdtemp(prefix="toolfuzz-http-"))
        )
        self._cwd = config.cwd or self._tempdir or ""
        self._process: WorkerProcess | None = None

    def running(self) -> bool:
        return self._process is not None and not self._process.exited()

    def ensure(self) -> bool:
        """Start the server unless it runs; True when it was (re)started just now."""
        if self.running():
            return False
        if self._process is not None:
            self._process.kill()
            self._process = None
        try:
            self._process = WorkerProcess(self._argv, self._env, self._cwd, talks=False)
        except OSError as error:
            raise HandlerError(
                f"cannot start the server {self.label!r}: {error.strerror or error}",
                hint="check `server:`; relative paths in it are read from the repository root",
            ) from None
        return True

    def failure(self, problem: str) -> HandlerError:
        """`problem` with how the server exited (if it did) and its last output."""
        detail = self._process.describe_exit(problem) if self._process else problem
        return HandlerError(f"{self.label}: {detail}")

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stop(grace_s=STOP_GRACE_S)
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None
