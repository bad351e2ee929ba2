"""The tools of one MCP server behind one process, for a stateful campaign (edge).

Every tool of the campaign is an `McpHandler` on one shared server process (`mcp_servers`),
so what one call leaves, the next one sees. `fresh` drops the process (the next call starts
a new one) and runs the server's declared reset (`reset_command` or `reset_tool`, as before
a tool's campaign): a server that keeps its state in files is fresh only with a reset.
Outputs are kept as text (`output_text_chars`) so that the campaign can read the values a
call returned. A server whose handler asks for a workspace (`sandbox`, `fixtures`) runs in
one for the whole campaign, and `begin` lays its fixtures again before each sequence; its
writes outside the root are not judged here (each tool's own campaign does).
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
from toolfuzz_gate.edges.handlers.workspace import placed
from toolfuzz_gate.errors import TaskRequiredError

OUTPUT_CHARS = 65536
"""Characters of each accepted call's output the campaign reads values from."""


class McpServerTools:
    """A `core.campaign.stateful.sequence.Server` over one MCP server's tools."""

    def __init__(self, config: HandlerConfig, tools: Sequence[str]) -> None:
        config, self._workspace = placed(config)
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

    def begin(self) -> None:
        """Before each sequence: the fixtures laid again."""
        if self._workspace is not None:
            self._workspace.lay_fixtures_again()

    def close(self) -> None:
        try:
            self._servers.close()
        finally:
            if self._workspace is not None:
                self._workspace.close()
