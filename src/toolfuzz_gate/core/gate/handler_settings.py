"""A tool's handler as a policy or the command line names it: the settings both give (pure).

The policy parses a tool's `handler` into `HandlerSettings`; the adapters' config
(`edges.handlers.config.HandlerConfig`) extends it with what a run adds (the per-call
timeout, the output cap, the checkout), so each setting is declared once, here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HandlerSettings:
    """What starts a handler and what it may use; `kind` picks the adapter.

    `target` is the built-in name, the Python `MODULE:FUNCTION`, the HTTP URL or the MCP
    tool name (in a policy, empty: the policy tool's name); `argv` starts a command, an MCP
    server or the HTTP handler's server; `rejects` and `effects` are the Python adapter's
    rejection classes and state-snapshot function (`effects` is a state tool for MCP);
    `headers` maps HTTP header names to the environment variables holding their values
    (never literal secrets); `env` names variables passed through the scrubbed environment.
    """

    kind: str
    target: str = ""
    argv: tuple[str, ...] = ()
    rejects: tuple[str, ...] = ()
    effects: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    env: tuple[str, ...] = ()
    cwd: str | None = None
    memory_limit_mb: int | None = None
    """Memory per handler process (python, command, mcp), in MiB; None: the default, 0: none
    (`rlimits`)."""
    cpu_limit_s: int | None = None
    """CPU seconds per call (python, command, mcp); None: the default, 0: none (`rlimits`)."""
    process_limit: int | None = None
    """Processes below one handler process during a call (python, command, mcp; Linux);
    None: the default, 0: none (`rlimits`)."""
    effects_directory: str | None = None
    """A directory whose tree digest is the committed state (works with any adapter)."""
    effects_command: tuple[str, ...] = ()
    """A command printing the committed state (works with any adapter)."""
    reset_command: tuple[str, ...] = ()
    """A command run before the handler starts, restoring the state tools share (any
    adapter)."""
    reset_tool: str | None = None
    """mcp: a tool of the same server called with `{}` before the handler starts."""
    sandbox: bool = False
    """Run confined to a fresh workspace whose surroundings are watched for writes
    (`edges.handlers.workspace`): python, command, mcp, http with a server."""
    fixtures: tuple[str, ...] = ()
    """Files and directories laid in the handler's workspace before it starts (the policy
    tool's `fixtures`, every path once; the edge resolves them in the checkout)."""
