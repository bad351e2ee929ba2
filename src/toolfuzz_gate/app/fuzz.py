"""`fuzz`: build the tool runs the request describes, execute them, pick the verdict."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TextIO

from toolfuzz_gate.app.defaults import DEFAULT_OUT
from toolfuzz_gate.app.gate_results import build_summary
from toolfuzz_gate.app.policy_plan import Written, receipt_name
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import FuzzRequest, HandlerFlags
from toolfuzz_gate.core.campaign.checks import declared_hints, resolve_checks
from toolfuzz_gate.core.campaign.interface import (
    NOTHING_DECLARED,
    DeclaredInterface,
    declared_interface,
)
from toolfuzz_gate.core.campaign.output_schema import read_output_schema
from toolfuzz_gate.core.campaign.rejection_code import pattern_problem, regex_problem
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import fixed_not_admitted
from toolfuzz_gate.core.gate.policy import ANY_TOOL, GateRules
from toolfuzz_gate.core.gate.verdict import decide
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.terminal import render_receipt_summary, render_refused_summary
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.execute import SchemaLines, ToolRun, attempt
from toolfuzz_gate.edges.files import load_json, write_document
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.errors import UsageError
from toolfuzz_gate.exitcodes import ExitCode


def build_handler_config(flags: HandlerFlags) -> HandlerConfig:
    """The one handler the flags name; `flags.argv` is the command after `--`."""
    chosen = [
        name
        for name, given in (
            ("--handler", flags.handler is not None),
            ("--command", flags.stdio),
            ("--mcp", flags.mcp),
            ("--http", flags.http is not None),
        )
        if given
    ]
    if len(chosen) != 1:
        raise UsageError(
            "name exactly one handler" + (f"; got {', '.join(chosen)}" if chosen else ""),
            hint="--handler python:MODULE:FUNCTION, --command -- ARGV, --mcp -- ARGV, --http URL",
        )
    needs_argv = flags.stdio or flags.mcp
    if needs_argv != bool(flags.argv):
        raise UsageError(
            f"{chosen[0]} takes the command after `--`" if needs_argv else "unexpected `--` ARGV",
        )
    if flags.timeout_ms <= 0:
        raise UsageError("--timeout-ms must be positive")
    for flag, value in (
        ("--memory-limit-mb", flags.memory_limit_mb),
        ("--cpu-limit-s", flags.cpu_limit_s),
        ("--process-limit", flags.process_limit),
    ):
        if value is not None and value < 0:
            raise UsageError(f"{flag} must be 0 (no limit) or positive")
    if flags.rejects and flags.handler is None:
        raise UsageError("--rejects goes with --handler python:...")
    if flags.effects and flags.handler is None and not flags.mcp:
        raise UsageError(
            "--effects goes with --handler python:... (a function) or --mcp (a tool)",
            hint="for other handlers use --effects-directory or --effects-command",
        )
    if flags.reset_tool is not None and not flags.mcp:
        raise UsageError("--reset-tool goes with --mcp", hint="use --reset-command otherwise")
    if flags.reset_tool is not None and flags.reset_command is not None:
        raise UsageError("--reset-command and --reset-tool conflict: name one reset")
    headers = []
    for header in flags.headers:
        name, separator, variable = header.partition("=")
        if not separator or not name or not variable:
            raise UsageError(f"--header {header!r} is not NAME=ENV_VAR")
        headers.append((name, variable))
    if headers and flags.http is None:
        raise UsageError("--header goes with --http")
    common: dict[str, Any] = {
        "timeout_ms": flags.timeout_ms,
        "env": tuple(flags.env),
        "cwd": flags.cwd,
        "memory_limit_mb": flags.memory_limit_mb,
        "cpu_limit_s": flags.cpu_limit_s,
        "process_limit": flags.process_limit,
        "effects_directory": flags.effects_directory,
        "effects_command": tuple(shlex.split(flags.effects_command or "")),
        "reset_command": tuple(shlex.split(flags.reset_command or "")),
        "reset_tool": flags.reset_tool,
    }
    if flags.handler is not None:
        return HandlerConfig.from_spec(
            flags.handler, rejects=tuple(flags.rejects), effects=flags.effects, **common
        )
    if flags.stdio:
        return HandlerConfig("command", argv=tuple(flags.argv), **common)
    if flags.mcp:
        return HandlerConfig(
            "mcp", target=flags.tool or "", argv=tuple(flags.argv), effects=flags.effects, **common
        )
    assert flags.http is not None
    return HandlerConfig("http", target=flags.http, headers=tuple(headers), **common)


def build_tool_spec(
    request: FuzzRequest,
    name: str,
    annotations: Mapping[str, Any] | None = None,
    output_schema: JSON = None,
    interface: DeclaredInterface = NOTHING_DECLARED,
) -> ToolSpec:
    """The contract the flags declare; the contract checks as the MCP server's
    `annotations` declare them (without a policy nothing else can), and its
    `outputSchema` when it declares one."""
    for flag, given, problem_of in (
        ("--error-codes", request.error_codes, regex_problem),
        ("--rejection-code", request.rejection_code, pattern_problem),
    ):
        problem = problem_of(given) if given is not None else None
        if problem is not None:
            raise UsageError(f"{flag}: {problem}")
    return ToolSpec(
        name,
        expected_rejections=tuple(request.expected_rejections),
        error_codes=request.error_codes,
        rejection_code=request.rejection_code,
        dry_run=request.dry_run,
        fixed=build_fixed(request.fixed_arguments),
        checks=resolve_checks(
            annotations=annotations,
            deterministic=True if request.deterministic else None,
            strict=True if request.strict else None,
        ),
        output_schema=None if output_schema is None else read_output_schema(output_schema),
        annotations=declared_hints(annotations),
        interface=interface,
    )


def build_fixed(given: tuple[str, ...]) -> tuple[tuple[str, JSON], ...]:
    """`--fixed-argument POINTER=JSON` flags as (pointer, value) pairs, sorted."""
    fixed: dict[str, JSON] = {}
    for item in given:
        pointer, separator, text = item.partition("=")
        if not separator or not pointer.startswith("/"):
            raise UsageError(
                f"--fixed-argument {item!r} is not POINTER=JSON",
                hint="""e.g. --fixed-argument '/repo_path="/tmp/repo"'""",
            )
        try:
            fixed[pointer] = json.loads(text)
        except ValueError:
            raise UsageError(
                f"--fixed-argument {pointer}: {text!r} is not JSON",
                hint="a string is quoted: '/repo_path=\"/tmp/repo\"'",
            ) from None
    return tuple(sorted(fixed.items()))


def build_fuzz_runs(request: FuzzRequest) -> list[ToolRun]:
    """One run per tool: the schema file's tool, or each tool an MCP server lists."""
    handler = build_handler_config(request.handler)
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
        return [ToolRun(schema, handler, build_tool_spec(request, name), config, replay)]
    if request.tools is not None or request.model is not None:
        declared = build_declarations(request)
        kept = set(_not_excluded([tool.name for tool in declared], request))
        return [
            ToolRun(
                tool.schema,
                replace(handler, target=tool.name) if handler.kind == "mcp" else handler,
                build_tool_spec(request, tool.name, interface=DeclaredInterface(tool.description)),
                config,
                replay,
            )
            for tool in declared
            if tool.name in kept
        ]
    if handler.kind != "mcp":
        raise UsageError("--schema, --tools or --model is required unless the handler is --mcp")
    from toolfuzz_gate.edges.handlers.mcp import list_tools

    listed = list_tools(handler)
    if request.tool is not None:
        listed = [tool for tool in listed if tool.get("name") == request.tool]
        if not listed:
            raise UsageError(f"the MCP server lists no tool named {request.tool!r}")
    kept = set(_not_excluded([str(tool.get("name")) for tool in listed], request))
    return [
        ToolRun(
            tool.get("inputSchema", {}),
            replace(handler, target=str(tool["name"])),
            build_tool_spec(
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
    runs = build_fuzz_runs(request)
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
    # The default gate rules: any counterexample fails, and so does any refusal (there is
    # no base for a refusal to be old against) and a tool no valid call got past.
    rules = GateRules(allow_unreached=(ANY_TOOL,) if request.allow_unreached else ())
    verdict = decide(rules, [item.receipt for item in written], None)
    if request.receipt is None:
        summary = build_summary(verdict, written)
        summary["regressions"] = []
        write_document((request.out or DEFAULT_OUT) / "summary.json", summary)
    for reason in verdict.reasons:  # why it failed (a tool unreached, say), as `run` says
        print(f"  - {reason}", file=out)
    print(f"gate: {'FAILED' if verdict.failed else 'passed'}", file=out)
    return ExitCode.FAILED if verdict.failed else ExitCode.PASSED


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
