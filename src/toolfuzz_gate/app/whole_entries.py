"""Whole policy entries expanded into one tool each: a tools file without `tool` (every tool
it declares) and an MCP server entry without `name` (every tool the server lists), each
under its own name, so each gets its own receipt."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from toolfuzz_gate.app.tool_setup import Listings, build_policy_handler, server_tools
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import HandlerError


def expanded(tool: ToolPolicy, loaded: LoadedPolicy, listings: Listings) -> list[ToolPolicy]:
    """The tools `tool` stands for: itself, or, for a whole entry, every tool its file
    declares or its server lists but those `exclude_tools` names (and, for a server, those
    another entry of the policy names on the same server command: that entry's settings
    win). A server that does not list its tools leaves the entry as it is: its run refuses
    it, saying why."""
    if not takes_every_tool(tool):
        return [tool]
    try:
        names = entry_names(tool, loaded, listings)
    except HandlerError:
        return [tool]
    what = "the tools file declares" if tool.tools is not None else "the MCP server lists"
    # The base's checkout may list other tools than the head's: names are checked on head.
    if tool.tools is not None or loaded.mirrors is None:
        for index, name in enumerate(tool.exclude):
            if name not in names:
                raise loaded.error_at(
                    f"{tool.pointer}/exclude_tools/{index}",
                    f"exclude_tools: {what} no tool named {name!r}",
                    near=tool.pointer,
                    hint=f"it has: {', '.join(names)[:300]}",
                )
    taken = _named_elsewhere(tool, loaded) if whole_server(tool) else set()
    return [
        replace(tool, name=name, pick=name if tool.tools is not None else None, named=True)
        for name in names
        if name not in tool.exclude and name not in taken
    ]


def entry_names(tool: ToolPolicy, loaded: LoadedPolicy, listings: Listings) -> list[str]:
    """Every tool the entry's tools file declares, or its MCP server lists (`HandlerError`
    when the server does not list them)."""
    if tool.tools is not None:
        return [item.name for item in load_declarations(Path(tool.tools)).tools]
    handler = build_policy_handler(tool.handler, tool.name, tool.options, loaded)
    return [str(item.get("name")) for item in server_tools(handler, listings)]


def whole_server(tool: ToolPolicy) -> bool:
    """An MCP entry without `name` or the handler's `tool`: every tool its server lists."""
    return handler_kind(tool.handler).lists_its_tools and not tool.named and not tool.handler.target


def takes_every_tool(tool: ToolPolicy) -> bool:
    """A whole entry: a tools file without `tool`, or a whole MCP server."""
    return (tool.tools is not None and tool.pick is None) or whole_server(tool)


def _named_elsewhere(whole: ToolPolicy, loaded: LoadedPolicy) -> set[str]:
    """The tools of `whole`'s server that entries of their own name (by `name`, or the
    handler's `tool`)."""
    return {
        other.handler.target or other.name
        for other in loaded.policy.tools
        if other is not whole
        and other.named
        and other.handler.kind == whole.handler.kind
        and other.handler.argv == whole.handler.argv
        and other.handler.cwd == whole.handler.cwd
    }
