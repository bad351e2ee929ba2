"""The tools of one MCP server behind one process, for a stateful campaign (edge).

Every tool of the campaign is an `McpHandler` on one shared server process (`mcp_servers`),
so what one call leaves, the next one sees. `fresh` drops the process (the next call starts
a new one) and runs the server's declared reset (`reset_command` or `reset_tool`, as before
a tool's campaign): a server that keeps its state in files is fresh only with a reset.
Outputs are kept as text (`output_text_chars`) so that the campaign can read the values a
call returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp import McpHandler
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.handlers.reset import reset
from toolfuzz_gate.errors import TaskRequiredError

OUTPUT_CHARS = 65536
"""Characters of each accepted call's output the campaign reads values from."""


class McpServerTools:
    """A `core.campaign.stateful.sequence.Server` over one MCP server's tools."""

    def __init__(self, config: HandlerConfig, tools: Sequence[str]) -> None:
        self._config = replace(config, effects=None, reset_tool=config.reset_tool)
        self._servers = McpServers()
        self._handlers: dict[str, McpHandler] = {}
        self.fresh_starts = 0
        try:
            for name in tools:
                settings = replace(
                    config,
                    target=name,
                    servers=self._servers,
                    effects=None,
                    output_text_chars=OUTPUT_CHARS,
                )
                try:
                    self._handlers[name] = McpHandler(settings)
                except TaskRequiredError:
                    continue  # never called plainly: the campaign leaves it out
        except BaseException:
            self.close()
            raise

    @property
    def tools(self) -> list[str]:
        """The tools the campaign may call (a tool that requires MCP tasks is left out)."""
        return sorted(self._handlers)

    def call(self, tool: str, arguments: JSONObject) -> Outcome:
        handler = self._handlers.get(tool)
        if handler is None:
            return Outcome(kind=OutcomeKind.REJECTED, error_code="unknown-tool")
        return handler.call(arguments)

    def fresh(self) -> None:
        """Start again from a fresh state: a new process, after the declared reset."""
        self.fresh_starts += 1
        for handler in self._handlers.values():
            handler.restart()
            break
        reset(self._config, McpHandler)

    def close(self) -> None:
        self._servers.close()
