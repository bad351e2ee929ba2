"""One MCP server process for several tools of it, in turn (edge).

Starting an SDK-built server costs 1-2 s (it imports the SDK), once per tool when each tool
has its own. A policy run shares one process among the tools of one server that promise
to change nothing (`readOnlyHint: true`, no declared reset or effects: `app.policy_run`
decides), so what one tool did cannot reach another's results. They run one after another
in one lane (`core.gate.lanes`), never at once: the client is synchronous. A call that
costs the server (a crash, a timeout) or a confirmation's restart drops the process for
every tool; the next call, whichever tool makes it, starts a fresh one.

A server started to list its tools (`mcp_listing.list_kept`) stays here, running,
for the first handler of it to take over (`McpServers.take`), or for the tools that share
it: a policy run (and so `fuzz --mcp`) starts each server once per side, to list its tools
and to call them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.edges.handlers.mcp_client import Launch, McpSession


@dataclass
class SharedServer:
    """A server's launch, its running session (None: none running) and its tools as it
    first listed them."""

    launch: Launch
    session: McpSession | None = None
    listed: list[dict[str, Any]] | None = None

    def stop(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            session.stop(grace_s=1.0)
        self.launch.cleanup()


@dataclass
class McpServers:
    """The shared servers of one policy run (one side of it), by what starts them; `close`
    stops them all."""

    _servers: dict[tuple[object, ...], SharedServer] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def server(self, key: tuple[object, ...], launch: Any) -> SharedServer:
        """The server started the way `key` says; `launch()` prepares it the first time."""
        with self._lock:
            shared = self._servers.get(key)
            if shared is None:
                shared = self._servers[key] = SharedServer(launch())
            return shared

    def take(self, key: tuple[object, ...]) -> SharedServer | None:
        """The running server started the way `key` says, no longer this run's to share or
        stop: its taker's own (`listed` handed a listing's server over), or None."""
        with self._lock:
            shared = self._servers.get(key)
            if shared is None or shared.session is None:
                return None
            return self._servers.pop(key)

    def forget(self, key: tuple[object, ...]) -> None:
        """Drop the server `key` names from the run (its caller stops it)."""
        with self._lock:
            self._servers.pop(key, None)

    def close(self) -> None:
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for shared in servers:
            shared.stop()
