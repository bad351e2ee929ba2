"""`fuzz`: build the tool runs the request describes, execute them, pick the verdict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TextIO

from toolfuzz_gate.app.defaults import DEFAULT_OUT
from toolfuzz_gate.app.front_doors import build_policy_spec, fuzz_tool
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import FuzzRequest
from toolfuzz_gate.app.summary import gate_without_base
from toolfuzz_gate.app.written import Written, receipt_name
from toolfuzz_gate.core.campaign.interface import (
    NOTHING_DECLARED,
    DeclaredInterface,
    declared_interface,
)
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import fixed_not_admitted
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.terminal import render_receipt_summary, render_refused_summary
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.execute import SchemaLines, ToolRun, attempt
from toolfuzz_gate.edges.files import load_json
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.errors import UsageError
from toolfuzz_gate.exitcodes import ExitCode


def fuzz_handler(request: FuzzRequest) -> HandlerConfig:
    """The handler the flags name, as a policy's handler becomes a config."""
    tool = fuzz_tool(request, request.tool or "")
    return HandlerConfig.from_policy(tool.handler, tool.name, tool.options)


def _spec(
    request: FuzzRequest,
    name: str,
    annotations: Mapping[str, Any] | None = None,
    output_schema: JSON = None,
    interface: DeclaredInterface = NOTHING_DECLARED,
) -> ToolSpec:
    """The contract the flags declare, as a policy tool's (`app.tool_setup`): the checks
    as the MCP server's `annotations` declare them where the flags do not say, and its
    `outputSchema` when it declares one."""
    tool = fuzz_tool(request, name)
    return build_policy_spec(tool, tool.options, annotations, output_schema, interface)


def build_fuzz_runs(request: FuzzRequest, servers: McpServers | None = None) -> list[ToolRun]:
    """One run per tool: the schema file's tool, or each tool an MCP server lists (the
    server left running in `servers`, when given, for the first tool to call)."""
    handler = fuzz_handler(request)
    config = request.config
    replay = build_replay_command(request.argv)
    sources = [
        flag
        for flag, given in (
            ("--schema", request.schema),
            ("--tools", request.tools),
            ("--model", request.model),
        )
        if given is not None
    ]
    if len(sources) > 1:
        raise UsageError(f"{' and '.join(sources)} conflict: name the schema one way")
    if request.exclude_tools and (request.schema is not None or request.model is not None):
        raise UsageError("--exclude-tool goes with --tools or --mcp (several tools)")
    if request.schema is not None:
        schema = load_json(request.schema, what="schema")
        name = request.tool or request.schema.stem
        return [ToolRun(schema, handler, _spec(request, name), config, replay)]
    if request.tools is not None or request.model is not None:
        declared = build_declarations(request)
        kept = set(_not_excluded([tool.name for tool in declared], request))
        return [
            ToolRun(
                tool.schema,
                replace(handler, target=tool.name) if _lists(handler) else handler,
                _spec(request, tool.name, interface=DeclaredInterface(tool.description)),
                config,
                replay,
            )
            for tool in declared
            if tool.name in kept
        ]
    if not _lists(handler):
        raise UsageError("--schema, --tools or --model is required unless the handler is --mcp")
    from toolfuzz_gate.edges.handlers.mcp import list_tools

    listed = list_tools(handler, servers=servers)
    handler = replace(handler, listed=servers)
    if request.tool is not None:
        listed = [tool for tool in listed if tool.get("name") == request.tool]
        if not listed:
            raise UsageError(f"the MCP server lists no tool named {request.tool!r}")
    kept = set(_not_excluded([str(tool.get("name")) for tool in listed], request))
    return [
        ToolRun(
            tool.get("inputSchema", {}),
            replace(handler, target=str(tool["name"])),
            _spec(
                request,
                str(tool["name"]),
                tool.get("annotations"),
                tool.get("outputSchema"),
                declared_interface(tool),
            ),
            config,
            replay,
        )
        for tool in listed
        if str(tool.get("name")) in kept
    ]


def _lists(handler: HandlerConfig) -> bool:
    return handler_kind(handler).lists_its_tools


def _not_excluded(names: list[str], request: FuzzRequest) -> list[str]:
    """`names` less those `--exclude-tool` gives; an excluded name that is none of them is
    a usage error, as is excluding every one."""
    for name in request.exclude_tools:
        if name not in names:
            raise UsageError(
                f"--exclude-tool {name!r}: no such tool to fuzz",
                hint=f"the tools: {', '.join(names)[:300] or 'none'}",
            )
    kept = [name for name in names if name not in request.exclude_tools]
    if not kept:
        raise UsageError("--exclude-tool leaves no tool to fuzz")
    return kept


def build_declarations(request: FuzzRequest) -> list[ToolDeclaration]:
    """The tools `--tools FILE` or `--model MODULE:CLASS` declares, narrowed by `--tool`."""
    if request.model is not None:
        model = load_model_tool(request.model)
        return [replace(model, name=request.tool)] if request.tool else [model]
    assert request.tools is not None
    declared = load_declarations(request.tools).tools
    if request.tool is None:
        return declared
    picked = [tool for tool in declared if tool.name == request.tool]
    if not picked:
        names = ", ".join(tool.name for tool in declared)[:200]
        raise UsageError(f"{request.tools} declares no tool named {request.tool!r}; it has {names}")
    return picked


def fuzz(request: FuzzRequest, out: TextIO) -> ExitCode:
    """Each tool fuzzed, or refused in its own receipt (its schema refused, its handler
    unreachable) while the others run; the exit code is the verdict: a counterexample or
    a refusal fails (there is no baseline, so every refusal is new)."""
    servers = McpServers()  # the server listed is the server the first tool calls
    try:
        return _fuzz(request, build_fuzz_runs(request, servers), out)
    finally:
        servers.close()


def _fuzz(request: FuzzRequest, runs: list[ToolRun], out: TextIO) -> ExitCode:
    if request.receipt is not None and request.out is not None:
        raise UsageError("--receipt and --out conflict: one names a file, the other a directory")
    if request.receipt is not None and len(runs) != 1:
        raise UsageError(f"{len(runs)} tools to fuzz: use --out DIR instead of --receipt")
    if request.cases is not None and len(runs) != 1:
        raise UsageError(
            f"--cases logs one tool's cases and there are {len(runs)} tools to fuzz",
            hint="pick one with --tool NAME",
        )
    located = build_schema_lines(request)
    written: list[Written] = []
    for tool_run in runs:
        problem = fixed_not_admitted(tool_run.schema, tool_run.tool, tool_run.config)
        if problem is not None:
            raise UsageError(f"--fixed-argument: {tool_run.tool.name}: {problem}")
    for tool_run in runs:
        receipt_path = request.receipt or (request.out or DEFAULT_OUT) / receipt_name(
            tool_run.tool.name
        )
        done = attempt(
            tool_run,
            receipt_path,
            request.cases,
            diagnostics=request.diagnostics,
            located=located.get(tool_run.tool.name),
        )
        written.append(Written(done.receipt, receipt_path.name, done.refused))
        render = render_refused_summary if done.refused else render_receipt_summary
        print(render(done.receipt, str(receipt_path)), file=out)
    directory = None if request.receipt is not None else request.out or DEFAULT_OUT
    return gate_without_base(written, directory, out, allow_unreached=request.allow_unreached)


def build_schema_lines(request: FuzzRequest) -> dict[str, SchemaLines]:
    """Per tool name, where its schema sits in the file the request names (none for a model
    or a server's listing), so a refusal can name the line."""
    if request.schema is not None:
        lines = line_index(request.schema.read_text("utf-8"))
        return {request.tool or request.schema.stem: SchemaLines(lines)}
    if request.tools is not None:
        declared = load_declarations(request.tools)
        return {tool.name: SchemaLines(declared.lines, tool.pointer) for tool in declared.tools}
    return {}
