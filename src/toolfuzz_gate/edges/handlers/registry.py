"""The registry of handler adapters: spec prefix -> factory (edge).

Adding an adapter is one entry in `ADAPTERS` and one module beside this one, a
`base.ManagedHandler`. The registry imports the adapters; no adapter imports the registry.
"""

from __future__ import annotations

from collections.abc import Callable

from toolfuzz_gate.edges.handlers.base import ManagedHandler, RestartingHandler
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.reset import reset
from toolfuzz_gate.errors import HandlerError

__all__ = ["ADAPTERS", "HandlerConfig", "ManagedHandler", "build_handler"]


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
        ignore_output=config.ignore_output,
        output_text_chars=config.output_text_chars,
        cwd=config.cwd,
        checkout=config.checkout,
        env_passthrough=config.env,
        memory_limit_bytes=limits.memory_bytes,
        cpu_limit_s=limits.cpu_s,
        process_limit=limits.processes,
        python=config.python,
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
    """Start the handler in its workspace when it has one (`workspace`: a sandbox, whose
    writes outside the root are watched, or fixtures); wrap it in an effect probe when the
    config names one."""
    from toolfuzz_gate.edges.handlers.workspace import ConfinedHandler, placed

    factory = ADAPTERS.get(config.kind)
    if factory is None:
        raise HandlerError(
            f"unknown kind of handler {config.kind!r}", hint=f"known: {', '.join(ADAPTERS)}"
        )
    if config.effects_directory is not None and config.effects_command:
        raise HandlerError("name one effects probe: a directory or a command, not both")
    moved, workspace = placed(config)
    if workspace is None:
        return _started(factory, config)
    try:
        handler = _started(factory, moved)
    except BaseException:
        workspace.close()
        raise
    return ConfinedHandler(handler, workspace, watch=config.sandbox)


def _started(
    factory: Callable[[HandlerConfig], ManagedHandler], config: HandlerConfig
) -> ManagedHandler:
    """The reset run, the handler started, wrapped in its effects probe if it has one."""
    from pathlib import Path

    from toolfuzz_gate.edges.effects import CommandProbe, DirectoryProbe, ProbedHandler

    reset(config, build_handler)
    probe: DirectoryProbe | CommandProbe | None = None
    if config.effects_directory is not None:
        probe = DirectoryProbe(Path(config.effects_directory))
    elif config.effects_command:
        probe = CommandProbe(config.effects_command, config.cwd, config.env, config.checkout)
    handler = factory(config)
    if isinstance(handler, RestartingHandler) and (config.reset_command or config.reset_tool):
        handler.fresh_hook = lambda: reset(config, build_handler)
    if probe is None:
        return handler
    try:
        return ProbedHandler(handler, probe)
    except BaseException:
        handler.close()
        raise
