"""What starts an MCP server, and a listing that leaves its server running for the first
handler of it to take over (edge): a policy run starts each server once (`mcp_servers`)."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.edges.handlers import timing
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_client import (
    Launch,
    McpSession,
    StdoutNoise,
    list_session_tools,
)
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.handlers.rlimits import Limits


def server_key(config: HandlerConfig) -> tuple[object, ...]:
    """What starts the server of `config`: handlers with the same key may share it."""
    limits = (config.memory_limit_mb, config.cpu_limit_s, config.process_limit)
    return (config.argv, config.env, config.cwd, config.root, config.mirrors, limits)


def list_kept(
    servers: McpServers, config: HandlerConfig, startup_timeout_s: float
) -> list[dict[str, Any]]:
    """`list_tools` on a server kept in `servers` (started once, listed once)."""
    limits = Limits.resolve(config.memory_limit_mb, config.cpu_limit_s, config.process_limit)

    def launch() -> Launch:
        return Launch.prepare(config.argv, config.env, config.cwd, config.checkout, limits)

    shared = servers.server(server_key(config), launch)
    if shared.listed is None:
        try:
            if shared.session is None:
                with timing.measured("starts"):
                    shared.session = McpSession(
                        shared.launch, startup_timeout_s=startup_timeout_s, noise=StdoutNoise()
                    )
            shared.listed = list_session_tools(shared.session, startup_timeout_s)
        except BaseException:
            servers.forget(server_key(config))  # a server that failed is nobody's to take
            shared.stop()
            raise
    return shared.listed
