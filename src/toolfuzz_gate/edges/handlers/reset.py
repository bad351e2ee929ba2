"""Resetting the state a handler's tools share, before the handler starts (edge).

A stateful server's tools see what the tools fuzzed before them left (a store a `create`
tool filled makes a `list` tool's output grow), so a policy may name a reset: a command
(`reset_command`, any kind of handler) or, for an MCP server, one of its tools
(`reset_tool`, called with `{}` on a server started for it). It runs each time a handler
is started from the config: before each tool and seed is fuzzed, and before stored cases
are replayed. A reset that fails is the handler's failure: the tool is refused, not
fuzzed on a state nobody chose.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.base import ManagedHandler
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.helper_command import run_helper
from toolfuzz_gate.errors import HandlerError, TaskRequiredError

RESET_TIMEOUT_S = 60.0


def reset(config: HandlerConfig, start: Callable[[HandlerConfig], ManagedHandler]) -> None:
    """Run the config's reset, if it names one; `start` starts a handler (for a reset tool)."""
    if config.reset_command:
        run_reset_command(config)
    elif config.reset_tool is not None:
        _call(config, config.reset_tool, start)


def run_reset_command(config: HandlerConfig) -> None:
    """Run the config's `reset_command` (it has one)."""
    checkout = config.checkout
    run_helper(
        "reset command",
        checkout.argv(config.reset_command, config.cwd),
        cwd=config.cwd or str(checkout.root),
        env=checkout.environment(config.env),
        timeout_s=RESET_TIMEOUT_S,
    )


def _call(
    config: HandlerConfig, tool: str, start: Callable[[HandlerConfig], ManagedHandler]
) -> None:
    plain = replace(
        config,
        target=tool,
        reset_tool=None,
        effects=None,
        effects_directory=None,
        effects_command=(),
    )
    try:
        handler = start(plain)
    except TaskRequiredError as error:
        # The reset cannot run, which refuses the tool; it does not skip the tool.
        raise HandlerError(f"reset tool {tool!r} cannot be called: {error.message}") from None
    try:
        outcome = handler.call({})
    finally:
        handler.close()
    if outcome.kind is not OutcomeKind.ACCEPTED:
        said = bounded_message(outcome.message or outcome.error_code or "", 200)
        raise HandlerError(f"reset tool {tool!r} did not succeed ({outcome.kind.value}): {said}")
