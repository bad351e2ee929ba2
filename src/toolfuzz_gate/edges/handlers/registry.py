"""The registry of handler adapters: spec prefix -> factory (edge).

Adding an adapter is one entry in `ADAPTERS` and one module beside this one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from toolfuzz_gate.core.canonical import JSONObject
from toolfuzz_gate.core.outcome import Outcome
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.errors import HandlerError


@dataclass(frozen=True)
class HandlerConfig:
    """Everything needed to start a handler, as a policy or the command line gives it.

    `kind` picks the adapter; the other fields are read by the adapters they concern:
    `target` is the built-in name, the Python `MODULE:FUNCTION`, the HTTP URL or the
    MCP tool name; `argv` starts a command, an MCP server or the HTTP handler's server;
    `rejects` and `effects` are the Python adapter's rejection classes and state-snapshot
    function; `headers` maps
    HTTP header names to the environment variables holding their values (never literal
    secrets); `env` names variables passed through the scrubbed environment.
    """

    kind: str
    target: str = ""
    argv: tuple[str, ...] = ()
    rejects: tuple[str, ...] = ()
    effects: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    env: tuple[str, ...] = ()
    cwd: str | None = None
    timeout_ms: int = 2000
    max_output_bytes: int = 65536
    effects_directory: str | None = None
    """A directory whose tree digest is the committed state (works with any adapter)."""
    effects_command: tuple[str, ...] = ()
    """A command printing the committed state (works with any adapter)."""
    memory_limit_mb: int | None = None
    """Memory per handler process (python, command, mcp), in MiB; None: the default, 0: none
    (`rlimits`)."""
    cpu_limit_s: int | None = None
    """CPU seconds per call (python, command, mcp); None: the default, 0: none (`rlimits`)."""
    process_limit: int | None = None
    """Processes below one handler process during a call (python, command, mcp; Linux);
    None: the default, 0: none (`rlimits`)."""
    root: str | None = None
    """The checkout the handler's code is read from (`checkout.Checkout`); None: the
    gate's current directory. Not part of the label: receipts say what was configured."""
    mirrors: str | None = None
    """On the base side, the head's checkout: its absolute paths are read from `root`."""

    @property
    def checkout(self) -> Checkout:
        return Checkout.at(self.root, self.mirrors)

    @classmethod
    def from_spec(cls, spec: str, **options: Any) -> HandlerConfig:
        """`python:MODULE:FUNCTION` or `builtin:NAME`."""
        kind, separator, target = spec.partition(":")
        if not separator or kind not in ("python", "builtin"):
            raise HandlerError(
                f"handler spec {spec!r} is not python:MODULE:FUNCTION",
                hint="use --command, --mcp or --http for the other kinds of handler",
            )
        return cls(kind, target, **options)

    @property
    def spec(self) -> str:
        return f"{self.kind}:{self.target}"

    def label(self) -> JSONObject:
        """The receipt's `handler` member: enough to start the same handler again."""
        label: JSONObject
        if self.kind == "command":
            label = {"command": list(self.argv)}
        elif self.kind == "mcp":
            label = {"mcp": {"command": list(self.argv), "tool": self.target}}
        elif self.kind == "http":
            label = {"http": self.target}
            if self.argv:
                label["server"] = list(self.argv)
            if self.headers:
                label["headers"] = {name: f"${variable}" for name, variable in self.headers}
        else:
            label = {"spec": self.spec}
        if self.rejects:
            label["rejects"] = list(self.rejects)
        if self.effects is not None:
            label["effects"] = self.effects
        if self.effects_directory is not None:
            label["effectsProbe"] = {"directory": self.effects_directory}
        elif self.effects_command:
            label["effectsProbe"] = {"command": list(self.effects_command)}
        return label


class ManagedHandler(Protocol):
    def call(self, arguments: JSONObject) -> Outcome: ...

    def close(self) -> None: ...

    def __enter__(self) -> ManagedHandler: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


def _builtin(config: HandlerConfig) -> ManagedHandler:
    from toolfuzz_gate.edges.handlers.builtin import SPEC, BuiltinPosterHandler

    if config.spec != SPEC:
        raise HandlerError(f"unknown built-in handler {config.spec!r}; the one built in is {SPEC}")
    return BuiltinPosterHandler()


def _python(config: HandlerConfig) -> ManagedHandler:
    from toolfuzz_gate.edges.handlers.python_worker import (
        PythonSpec,
        PythonWorkerHandler,
        WorkerOptions,
    )
    from toolfuzz_gate.edges.handlers.rlimits import Limits

    rejects = config.rejects or ("builtins:ValueError",)
    spec = PythonSpec.parse(config.spec, rejects=rejects, effects=config.effects)
    limits = Limits.resolve(config.memory_limit_mb, config.cpu_limit_s, config.process_limit)
    options = WorkerOptions(
        timeout_s=config.timeout_ms / 1000,
        max_output_bytes=config.max_output_bytes,
        cwd=config.cwd,
        checkout=config.checkout,
        env_passthrough=config.env,
        memory_limit_bytes=limits.memory_bytes,
        cpu_limit_s=limits.cpu_s,
        process_limit=limits.processes,
    )
    return PythonWorkerHandler(spec, options)


def _command(config: HandlerConfig) -> ManagedHandler:
    from toolfuzz_gate.edges.handlers.command import CommandHandler

    return CommandHandler(config)


def _mcp(config: HandlerConfig) -> ManagedHandler:
    from toolfuzz_gate.edges.handlers.mcp import McpHandler

    return McpHandler(config)


def _http(config: HandlerConfig) -> ManagedHandler:
    from toolfuzz_gate.edges.handlers.http import HttpHandler

    return HttpHandler(config)


ADAPTERS: dict[str, Callable[[HandlerConfig], ManagedHandler]] = {
    "builtin": _builtin,
    "python": _python,
    "command": _command,
    "mcp": _mcp,
    "http": _http,
}


def build_handler(config: HandlerConfig) -> ManagedHandler:
    """Start the handler; wrap it in an effect probe when the config names one."""
    from pathlib import Path

    from toolfuzz_gate.edges.effects import CommandProbe, DirectoryProbe, ProbedHandler

    factory = ADAPTERS.get(config.kind)
    if factory is None:
        raise HandlerError(
            f"unknown kind of handler {config.kind!r}", hint=f"known: {', '.join(ADAPTERS)}"
        )
    if config.effects_directory is not None and config.effects_command:
        raise HandlerError("name one effects probe: a directory or a command, not both")
    probe: DirectoryProbe | CommandProbe | None = None
    if config.effects_directory is not None:
        probe = DirectoryProbe(Path(config.effects_directory))
    elif config.effects_command:
        probe = CommandProbe(config.effects_command, config.cwd, config.env, config.checkout)
    handler = factory(config)
    if probe is None:
        return handler
    try:
        return ProbedHandler(handler, probe)
    except BaseException:
        handler.close()
        raise
