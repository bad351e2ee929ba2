"""The `python:MODULE:FUNCTION` adapter: calls run in one persistent worker subprocess (edge).

The handler's code never runs in the gate's process. `python_worker_main` is the other end
of the pipe and documents the JSON-lines protocol; it runs under the interpreter
`interpreter.resolve_python` picks (the job's Python, which need not have the gate). A call
that hangs, floods its output or breaks the protocol costs the worker: its whole process
group is killed and a fresh worker starts on the next call. POSIX only (process groups,
non-blocking pipes under `selectors`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind, output_text, said_of
from toolfuzz_gate.core.jsonutil.canonical import JSON, digest_and_size
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.edges.handlers.base import RESPONSE_SLACK_BYTES, LineWorkerHandler
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.edges.handlers.confine import handlers_own
from toolfuzz_gate.edges.handlers.interpreter import (
    WORKER_SCRIPT,
    configured_python,
    resolve_python,
    too_old,
    too_old_version,
)
from toolfuzz_gate.edges.handlers.rlimits import MEMORY_RLIMIT, Limits
from toolfuzz_gate.edges.handlers.wire import json_object_line
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess
from toolfuzz_gate.errors import HandlerError

CRASH_TAIL_CHARS = 300
_DEFAULT_REJECTS = ("builtins:ValueError",)


def _is_dotted(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _check_reference(what: str, reference: str) -> None:
    module, sep, name = reference.partition(":")
    if not (sep and _is_dotted(module) and name.isidentifier()):
        raise HandlerError(
            f"{what} {reference!r} is not MODULE:NAME",
            hint="name a module and an attribute in it, e.g. poster:ToolError or builtins:KeyError",
        )


@dataclass(frozen=True)
class PythonSpec:
    """What to import in the worker: the function, the rejection classes, the state probe."""

    module: str
    function: str
    rejects: tuple[str, ...] = _DEFAULT_REJECTS
    """`MODULE:CLASS` entries; raising a subclass of one of them is a clean rejection."""
    effects: str | None = None
    """`MODULE:FUNCTION` of a zero-argument function returning a JSON state snapshot."""

    @classmethod
    def parse(
        cls,
        text: str,
        rejects: Sequence[str] = _DEFAULT_REJECTS,
        effects: str | None = None,
    ) -> PythonSpec:
        kind, _, reference = text.partition(":")
        module, sep, function = reference.partition(":")
        if kind != "python" or not sep or not _is_dotted(module) or not function.isidentifier():
            raise HandlerError(
                f"handler spec {text!r} is not python:MODULE:FUNCTION",
                hint="e.g. python:poster:render_poster, with poster.py importable "
                "from the working directory or PYTHONPATH",
            )
        if isinstance(rejects, str):
            raise HandlerError(f"rejects must be a list of MODULE:CLASS, not {rejects!r}")
        for entry in rejects:
            _check_reference("reject class", entry)
        if effects is not None:
            _check_reference("effects function", effects)
        return cls(module, function, tuple(rejects), effects)

    @property
    def text(self) -> str:
        return f"python:{self.module}:{self.function}"


@dataclass(frozen=True)
class WorkerOptions:
    timeout_s: float = 2.0
    """Per call, wall clock; the worker is killed when it passes."""
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    ignore_output: tuple[str, ...] = ()
    output_text_chars: int = 0
    """Characters of an accepted call's output kept as text (`HandlerConfig`)."""
    cwd: str | None = None
    """The worker's working directory, also first on its import path. By default modules
    are imported from the checkout and the worker runs in a temporary directory."""
    checkout: Checkout | None = None
    """Where the handler's code is read from; None: the gate's current directory."""
    extra_pythonpath: tuple[str, ...] = ()
    env_passthrough: tuple[str, ...] = ()
    """Variable names passed on top of the allowlist in `environment.scrubbed_environment`."""
    memory_limit_bytes: int | None = None
    """The worker's memory limit (`rlimits`: RLIMIT_DATA on Linux). None here; the registry
    gives handlers the default."""
    cpu_limit_s: int | None = None
    """CPU seconds per call (`rlimits`); None here, the registry gives the default."""
    process_limit: int | None = None
    """Processes below the worker during a call (`rlimits`); None here, as above."""
    startup_timeout_s: float = 30.0
    """For the handshake, separate from `timeout_s`: importing a handler can be slow."""
    python: str | None = None
    """The interpreter (`interpreter.resolve_python`); None: the default there."""

    def __post_init__(self) -> None:
        if self.timeout_s <= 0 or self.startup_timeout_s <= 0 or self.max_output_bytes < 0:
            raise ValueError(f"invalid worker options: {self}")


class PythonWorkerHandler(LineWorkerHandler):
    """A `Handler` calling a Python function in a worker subprocess. Not thread-safe.

    The worker starts in the constructor, so an unimportable handler fails fast with
    `HandlerError`; after a kill it restarts lazily, on the next call.
    """

    noun = "worker"
    gone_unread = "the worker died before reading the call"
    gone_during = "the worker exited during the call"

    def __init__(self, spec: PythonSpec, options: WorkerOptions | None = None) -> None:
        self.spec = spec
        self.options = options or WorkerOptions()
        memory = self.options.memory_limit_bytes
        limits = Limits(
            memory // (1024 * 1024) if memory else None,
            self.options.cpu_limit_s,
            self.options.process_limit,
        )
        super().__init__(self.options.timeout_s, self.options.max_output_bytes, limits)
        # Modules are imported from the configured directory (default: where the gate
        # runs); the worker itself runs in a fresh temporary directory unless one is
        # configured, so a handler's relative writes cannot land in the checkout.
        self._checkout = self.options.checkout or Checkout.at(None)
        self._import_root = os.path.abspath(self.options.cwd or self._checkout.root)
        self._tempdir = (
            None if self.options.cwd else handlers_own(tempfile.mkdtemp(prefix="toolfuzz-python-"))
        )
        self._cwd = self._tempdir or self._import_root
        self._env = self._environment()
        try:
            self._shown_python = configured_python(self.options.python)
            self._python = resolve_python(
                self.options.python, self._checkout, self.options.cwd, self._env.get("PATH")
            )
            self._worker = self._spawn()
        except BaseException:
            self.close()
            raise

    def describe(self) -> str:
        return self.spec.text

    def _cleanup(self) -> None:
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)

    def _environment(self) -> dict[str, str]:
        env = self._checkout.environment(
            self.options.env_passthrough, import_root=self._import_root
        )
        entries = [
            *env["PYTHONPATH"].split(os.pathsep),
            *(os.path.abspath(entry) for entry in self.options.extra_pythonpath),
        ]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(entry for entry in entries if entry))
        # A worker restarted mid-run must iterate sets the same way as the first one did.
        env["PYTHONHASHSEED"] = "0"
        # The gate must not write __pycache__ directories into the checkout it is judging.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def _spawn(self) -> WorkerProcess:
        config = {
            "module": self.spec.module,
            "function": self.spec.function,
            "rejects": list(self.spec.rejects),
            "effects": self.spec.effects,
            "memory_limit_bytes": self.options.memory_limit_bytes,
            "memory_rlimit": MEMORY_RLIMIT,
            "cpu_limit_s": self.options.cpu_limit_s,
        }
        argv = [self._python, WORKER_SCRIPT, json.dumps(config)]
        try:
            worker = WorkerProcess(
                argv,
                self._env,
                self._cwd,
                cpu_budget_s=self.options.cpu_limit_s,
                process_limit=self.options.process_limit,
            )
        except OSError as exc:
            raise HandlerError(
                f"{self.spec.text}: the Python interpreter {self._shown_python} cannot "
                f"start the worker: {exc}"
            ) from exc
        deadline = time.monotonic() + self.options.startup_timeout_s
        line = worker.read_line(deadline, RESPONSE_SLACK_BYTES)
        ready = json_object_line(line) if isinstance(line, bytes) else None
        if isinstance(ready, dict) and ready.get("ready") is True:
            return worker
        if isinstance(ready, dict) and isinstance(ready.get("error"), str):
            worker.kill()
            old = too_old_version(self._shown_python, str(ready.get("python", "")))
            if old is not None:
                raise HandlerError(f"{self.spec.text}: {old}")
            raise HandlerError(
                f"{self.spec.text}: cannot import the handler: {ready['error']}",
                hint=f"run it under a Python where `import {self.spec.module}` works "
                "(python_interpreter; its directory or PYTHONPATH), and check the names in "
                "rejects and effects",
            )
        if line is Stop.EOF:
            problem = "exited during startup"
        elif line is Stop.TIMEOUT:
            problem = f"did not report ready within {self.options.startup_timeout_s:g} s"
        else:
            problem = "sent a bad handshake"
        reason = worker.describe_exit(problem)
        worker.kill()
        old = too_old(self._python, self._shown_python, self._env) if line is Stop.EOF else None
        raise HandlerError(f"{self.spec.text}: {old or f'the worker {reason}'}")

    def _answered(self, response: dict[str, Any], line: bytes) -> Outcome:
        crash = response.get("crash")
        if isinstance(crash, dict):
            kind = crash.get("type")
            cause = kind if isinstance(kind, str) and kind else None
            return self.limits.crash(_crash_message(crash), cause)
        effects = response.get("effects")
        observed = self.spec.effects is not None and isinstance(effects, dict)
        before: JSON = effects.get("before") if observed and effects else None
        after: JSON = effects.get("after") if observed and effects else None
        error = response.get("error")
        if response.get("ok") is True and "output" in response:
            output_digest, output_bytes = digest_and_size(
                response["output"], self.options.ignore_output
            )
            return Outcome(
                kind=OutcomeKind.ACCEPTED,
                output_digest=output_digest,
                output_bytes=output_bytes,
                effects_before=before,
                effects_after=after,
                effects_observed=observed,
                output_text=output_text(response["output"], self.options.output_text_chars),
                said=said_of(output) if isinstance(output := response["output"], str) else None,
            )
        if response.get("ok") is False and isinstance(error, dict):
            code, path = error.get("code"), error.get("path")
            if isinstance(code, str):
                return Outcome(
                    kind=OutcomeKind.REJECTED,
                    error_code=code,
                    error_path=path if isinstance(path, str) else None,
                    effects_before=before,
                    effects_after=after,
                    effects_observed=observed,
                )
        return self._broken(f"the worker sent a malformed response: {line[:80]!r}")

    def _broken(self, problem: str, *, exited: bool = False) -> Outcome:
        """A protocol-level crash: the worker is not trusted for another call (whether it
        exited or not, its exit status is waited for)."""
        worker, self._worker = self._worker, None
        message = problem
        if worker is not None:
            message = worker.describe_exit(problem, tail_chars=CRASH_TAIL_CHARS)
            worker.kill()
        return self.limits.crash(message)


def _crash_message(crash: dict[str, Any]) -> str:
    message = f"{crash.get('type', 'Exception')}: {crash.get('message', '')}"
    where = crash.get("where")
    return f"{message} (at {where})" if isinstance(where, str) else message
