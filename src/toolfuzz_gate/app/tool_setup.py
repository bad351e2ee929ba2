"""A policy tool made ready to call: its handler config, its contract, its schema (from a
file, a model, a tools file or its MCP server's listing), and, for replaying stored
inputs, the judge of validity under that schema."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toolfuzz_gate.app.front_doors import build_policy_spec
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.interface import (
    DeclaredInterface,
    declared_interface,
)
from toolfuzz_gate.core.campaign.output_schema import OutputSchema, read_output_schema
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import RunOptions, ToolPolicy
from toolfuzz_gate.core.gate.regression import schema_judge
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.files import load_json
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import HandlerError

Listings = dict[HandlerConfig, list[dict[str, Any]] | HandlerError]
"""Each MCP server's `tools/list` (or why it failed), asked once per run."""


class KeptListings(Listings):
    """Listings whose servers stay running in `servers` (`edges.handlers.mcp_servers`) for
    the first handler of each to take over: a policy run starts a server once per side."""

    def __init__(self, servers: McpServers) -> None:
        super().__init__()
        self.servers = servers


def build_policy_handler(
    handler: HandlerSettings, tool: str, options: RunOptions, loaded: LoadedPolicy
) -> HandlerConfig:
    """The adapter config, its code read from the policy's checkout (`loaded.root`)."""
    mirrors = None if loaded.mirrors is None else str(loaded.mirrors)
    return HandlerConfig.from_policy(handler, tool, options, root=str(loaded.root), mirrors=mirrors)


def tool_annotations(
    tool: ToolPolicy, handler: HandlerConfig, listings: Listings | None = None
) -> dict[str, Any]:
    """The MCP tool's `annotations` hints from its server's `tools/list` (empty for other
    handlers, and when the server does not list them or does not start: the run that
    follows says why)."""
    found: dict[str, Any] = _listed(handler, listings).get("annotations") or {}
    return found


def tool_output_schema(
    tool: ToolPolicy, handler: HandlerConfig, listings: Listings | None = None
) -> JSON:
    """The MCP tool's `outputSchema` from its server's `tools/list` (None when it declares
    none, for other handlers, and when the server does not start)."""
    found: JSON = _listed(handler, listings).get("outputSchema")
    return found


def server_output_schema(handler: HandlerConfig) -> OutputSchema | None:
    """What the MCP server now declares as the tool's output schema (None when nothing),
    for replaying a receipt that was judged by one."""
    declared = _listed(handler, None).get("outputSchema")
    return None if declared is None else read_output_schema(declared)


def build_listed_spec(
    tool: ToolPolicy, options: RunOptions, handler: HandlerConfig, listings: Listings | None
) -> ToolSpec:
    """`build_policy_spec` with what the tool's MCP server (or tools file) declares
    about it."""
    if tool.tools is not None:
        wanted = tool.pick or handler.target
        found = [t for t in load_declarations(Path(tool.tools)).tools if t.name == wanted]
        declared = DeclaredInterface(found[0].description if found else None)
    else:
        declared = declared_interface(_listed(handler, listings))
    return build_policy_spec(
        tool,
        options,
        tool_annotations(tool, handler, listings),
        tool_output_schema(tool, handler, listings),
        declared,
    )


def _listed(handler: HandlerConfig, listings: Listings | None) -> dict[str, Any]:
    if not handler_kind(handler).lists_its_tools:
        return {}
    try:
        listed = server_tools(handler, {} if listings is None else listings)
    except HandlerError:
        return {}
    for item in listed:
        if item.get("name") == handler.target:
            return item
    return {}


@dataclass(frozen=True)
class ReplaySetup:
    """What replaying stored inputs on a policy tool needs: its handler, its contract and
    the judge of validity under its current schema (None when the engine refuses it)."""

    handler: HandlerConfig
    spec: ToolSpec
    judge: Callable[[JSON], bool] | None


def replay_setup(
    tool: ToolPolicy,
    options: RunOptions,
    loaded: LoadedPolicy,
    listings: Listings | None = None,
) -> ReplaySetup:
    """`listings`: as for `tool_schema`, shared by the tools a caller sets up in turn."""
    handler = build_policy_handler(tool.handler, tool.name, options, loaded)
    reading = SchemaOptions(options.default_draft, options.format_assertion)
    schema = tool_schema(tool, handler, loaded, listings)
    judge = schema_judge(schema, reading, options.dialect)
    spec = build_listed_spec(tool, options, handler, listings)
    return ReplaySetup(handler, spec, judge)


def tool_schema(
    tool: ToolPolicy,
    handler: HandlerConfig,
    loaded: LoadedPolicy,
    listings: Listings | None = None,
) -> JSON:
    """The tool's schema: its file, model or tools-file entry, or its MCP server's listing.

    `listings` remembers each server's `tools/list` (or why it failed) across the tools of
    a run, so a server is asked once and a server that does not start refuses every one
    of its tools with the same reason. `HandlerError` when the server does not start or
    lists no such tool."""
    if tool.schema is not None:
        return load_json(Path(tool.schema), what="schema")
    if tool.model is not None:
        return load_model_tool(
            tool.model, checkout=handler.checkout, python=handler.python, cwd=handler.cwd
        ).schema
    if not handler_kind(handler).in_policy:  # the built-in contract
        return poster.SCHEMA
    if tool.tools is not None:
        declared = load_declarations(Path(tool.tools)).tools
        listed = [(item.name, item.schema) for item in declared]
        where = "tools file"
    else:
        listed = [
            (str(item.get("name")), item.get("inputSchema", {}))
            for item in server_tools(handler, {} if listings is None else listings)
        ]
        where = "MCP server"
    wanted = tool.pick or handler.target
    for name, schema in listed:
        if name == wanted:
            return schema
    known = ", ".join(name for name, _ in listed)[:200] or "none"
    if tool.tools is None:
        raise HandlerError(f"the {where} lists no tool named {wanted!r}; it has: {known}")
    raise loaded.error_at(
        f"{tool.pointer}/tool",
        f"the {where} declares no tool named {wanted!r}; it has: {known}",
        near=tool.pointer,
    )


def server_tools(handler: HandlerConfig, listings: Listings) -> list[dict[str, Any]]:
    server = replace(handler, target="")
    if server not in listings:
        from toolfuzz_gate.edges.handlers.mcp import list_tools

        try:
            kept = listings.servers if isinstance(listings, KeptListings) else None
            listings[server] = list_tools(handler, servers=kept)
        except HandlerError as error:
            listings[server] = error
    found = listings[server]
    if isinstance(found, HandlerError):
        raise found
    return found
