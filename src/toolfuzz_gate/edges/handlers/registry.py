"""The registry of handler adapters: spec prefix -> factory (edge).

Adding an adapter is one entry in `ADAPTERS` and one module beside this one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from toolfuzz_gate.core.canonical import JSONObject
from toolfuzz_gate.core.outcome import Outcome
from toolfuzz_gate.errors import HandlerError


@dataclass(frozen=True)
class HandlerConfig:
    """Everything needed to start a handler, as a policy or the command line gives it."""

    spec: str
    rejects: tuple[str, ...] = ()
    effects: str | None = None
    timeout_ms: int = 2000
    max_output_bytes: int = 65536

    def label(self) -> JSONObject:
        """The receipt's `handler` member: enough to start the same handler again."""
        label: JSONObject = {"spec": self.spec}
        if self.rejects:
            label["rejects"] = list(self.rejects)
        if self.effects is not None:
            label["effects"] = self.effects
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

    rejects = config.rejects or ("builtins:ValueError",)
    spec = PythonSpec.parse(config.spec, rejects=rejects, effects=config.effects)
    options = WorkerOptions(
        timeout_s=config.timeout_ms / 1000, max_output_bytes=config.max_output_bytes
    )
    return PythonWorkerHandler(spec, options)


ADAPTERS: dict[str, Callable[[HandlerConfig], ManagedHandler]] = {
    "builtin": _builtin,
    "python": _python,
}


def build_handler(config: HandlerConfig) -> ManagedHandler:
    kind = config.spec.partition(":")[0]
    factory = ADAPTERS.get(kind)
    if factory is None:
        known = ", ".join(f"{name}:..." for name in ADAPTERS)
        raise HandlerError(f"unknown handler spec {config.spec!r}", hint=f"use one of {known}")
    return factory(config)
