"""`edges.handlers.mcp_servers`: tools of one MCP server share its process in turn, and a
call that costs the server costs it for all of them; over a real stdio server."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.processes import alive, process_gone
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers.mcp import McpHandler
from toolfuzz_gate.edges.handlers.mcp_listing import server_key
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.handlers.registry import HandlerConfig

PAGED = Path(__file__).resolve().parents[2] / "fixtures" / "mcp_tool" / "paged_mcp.py"
ARGV = (sys.executable, str(PAGED))


def config(tool: str, servers: McpServers | None) -> HandlerConfig:
    return HandlerConfig("mcp", target=tool, argv=ARGV, servers=servers)


def test_tools_of_one_server_share_its_process_in_turn() -> None:
    servers = McpServers()
    try:
        with McpHandler(config("echo", servers)) as echo:
            first = echo.server_pid
            assert echo.call({"a": 1}).kind is OutcomeKind.ACCEPTED
        assert first is not None and alive(first)  # closing one tool keeps it
        with McpHandler(config("text", servers)) as text:
            assert text.server_pid == first
            assert text.call({}).kind is OutcomeKind.ACCEPTED
            assert text.input_schema == echo.input_schema  # listed once, for both
    finally:
        servers.close()
    assert process_gone(first)


def test_a_call_that_costs_the_server_costs_it_for_every_tool() -> None:
    servers = McpServers()
    try:
        with McpHandler(config("exit", servers)) as exits:
            before = exits.server_pid
            assert exits.call({}).kind is OutcomeKind.CRASH
            assert exits.server_pid is None
        with McpHandler(config("echo", servers)) as echo:
            after = echo.server_pid
            assert after is not None and after != before
            assert echo.call({"b": 2}).kind is OutcomeKind.ACCEPTED
            echo.restart()  # a confirmation's fresh process
            assert echo.call({"b": 2}).kind is OutcomeKind.ACCEPTED
            assert echo.server_pid not in (None, after)
    finally:
        servers.close()


def test_without_the_run_servers_each_tool_has_its_own() -> None:
    with McpHandler(config("echo", None)) as one, McpHandler(config("text", None)) as two:
        assert one.server_pid != two.server_pid
    assert server_key(config("echo", None)) == server_key(config("text", None))
    other = HandlerConfig("mcp", target="echo", argv=(*ARGV, "--page-size", "1"))
    assert server_key(other) != server_key(config("echo", None))
