"""What starts a handler, and what a started one offers: the adapters' shared vocabulary (edge).

Adapters import these; `registry` imports the adapters. Keeping them apart keeps the
imports one way.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from toolfuzz_gate.core.campaign.outcome import Outcome
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
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
