"""`run` and `fuzz`: build the tool runs the flags describe, execute them, pick the verdict."""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from toolfuzz_gate.cli.parser import DEFAULT_OUT, schema_options
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.terminal import render_receipt_summary, render_refused_summary
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.execute import SchemaLines, ToolRun, attempt, execute
from toolfuzz_gate.edges.files import load_json, write_document
from toolfuzz_gate.edges.handlers.builtin import SPEC as BUILTIN_SPEC
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.errors import UsageError
from toolfuzz_gate.exitcodes import ExitCode

OUTPUT_FLAGS = frozenset(
    {"--out", "--receipt", "--cases", "--baseline", "--baseline-dir", "--shard"}
)
"""Flags that say where results go, what they are compared with, or which CI job runs which
part (`--shard`: a receipt is the same whichever shard wrote it), not what is run."""


def build_replay_command(argv: Sequence[str]) -> str:
    """The command that reproduces the run: the same arguments, minus where outputs go,
    so the receipt does not depend on the output directory."""
    kept: list[str] = []
    skip = False
    for argument in argv:
        if skip:
            skip = False
            continue
        name = argument.partition("=")[0]
        if name in OUTPUT_FLAGS or name == "--diagnostics":
            skip = "=" not in argument and name != "--diagnostics"
            continue
        kept.append(argument)
    return shlex.join(["toolfuzz-gate", *kept])


def build_fuzz_config(args: argparse.Namespace) -> FuzzConfig:
    options = schema_options(args)
    return FuzzConfig(args.seed, args.runs, oracle=args.oracle, options=options)


def _builtin_run(args: argparse.Namespace, argv: Sequence[str]) -> ToolRun:
    tool = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
    )
    return ToolRun(
        poster.SCHEMA,
        HandlerConfig.from_spec(BUILTIN_SPEC),
        tool,
        build_fuzz_config(args),
        build_replay_command(argv),
    )


def build_handler_config(args: argparse.Namespace, tail: Sequence[str]) -> HandlerConfig:
    """The one handler the flags name; `tail` is the command after `--`."""
    chosen = [
        name
        for name, given in (
            ("--handler", args.handler is not None),
            ("--command", args.stdio),
            ("--mcp", args.mcp),
            ("--http", args.http is not None),
        )
        if given
    ]
    if len(chosen) != 1:
        raise UsageError(
            "name exactly one handler" + (f"; got {', '.join(chosen)}" if chosen else ""),
            hint="--handler python:MODULE:FUNCTION, --command -- ARGV, --mcp -- ARGV, --http URL",
        )
    needs_argv = args.stdio or args.mcp
    if needs_argv != bool(tail):
        raise UsageError(
            f"{chosen[0]} takes the command after `--`" if needs_argv else "unexpected `--` ARGV",
        )
    if args.timeout_ms <= 0:
        raise UsageError("--timeout-ms must be positive")
    for flag, value in (
        ("--memory-limit-mb", args.memory_limit_mb),
        ("--cpu-limit-s", args.cpu_limit_s),
        ("--process-limit", args.process_limit),
    ):
        if value is not None and value < 0:
            raise UsageError(f"{flag} must be 0 (no limit) or positive")
    if args.rejects and args.handler is None:
        raise UsageError("--rejects goes with --handler python:...")
    if args.effects and args.handler is None and not args.mcp:
        raise UsageError(
            "--effects goes with --handler python:... (a function) or --mcp (a tool)",
            hint="for other handlers use --effects-directory or --effects-command",
        )
    headers = []
    for header in args.header:
        name, separator, variable = header.partition("=")
        if not separator or not name or not variable:
            raise UsageError(f"--header {header!r} is not NAME=ENV_VAR")
        headers.append((name, variable))
    if headers and args.http is None:
        raise UsageError("--header goes with --http")
    common: dict[str, Any] = {
        "timeout_ms": args.timeout_ms,
        "env": tuple(args.env),
        "cwd": args.cwd,
        "memory_limit_mb": args.memory_limit_mb,
        "cpu_limit_s": args.cpu_limit_s,
        "process_limit": args.process_limit,
        "effects_directory": args.effects_directory,
        "effects_command": tuple(shlex.split(args.effects_command or "")),
    }
    if args.handler is not None:
        return HandlerConfig.from_spec(
            args.handler, rejects=tuple(args.rejects), effects=args.effects, **common
        )
    if args.stdio:
        return HandlerConfig("command", argv=tuple(tail), **common)
    if args.mcp:
        return HandlerConfig(
            "mcp", target=args.tool or "", argv=tuple(tail), effects=args.effects, **common
        )
    return HandlerConfig("http", target=args.http, headers=tuple(headers), **common)


def build_tool_spec(args: argparse.Namespace, name: str) -> ToolSpec:
    if args.error_codes is not None:
        try:
            re.compile(args.error_codes)
        except re.error as error:
            raise UsageError(f"--error-codes is not a regular expression: {error}") from None
    return ToolSpec(
        name,
        expected_rejections=tuple(args.expected_rejection),
        error_codes=args.error_codes,
        dry_run=args.dry_run,
    )


def build_fuzz_runs(
    args: argparse.Namespace, argv: Sequence[str], tail: Sequence[str]
) -> list[ToolRun]:
    """One run per tool: the schema file's tool, or each tool an MCP server lists."""
    handler = build_handler_config(args, tail)
    config = replace(build_fuzz_config(args), dialect=args.dialect)
    replay = build_replay_command(argv)
    sources = [
        flag
        for flag, given in (
            ("--schema", args.schema),
            ("--tools", args.tools),
            ("--model", args.model),
        )
        if given is not None
    ]
    if len(sources) > 1:
        raise UsageError(f"{' and '.join(sources)} conflict: name the schema one way")
    if args.schema is not None:
        schema = load_json(args.schema, what="schema")
        name = args.tool or args.schema.stem
        return [ToolRun(schema, handler, build_tool_spec(args, name), config, replay)]
    if args.tools is not None or args.model is not None:
        declared = build_declarations(args)
        return [
            ToolRun(
                tool.schema,
                replace(handler, target=tool.name) if handler.kind == "mcp" else handler,
                build_tool_spec(args, tool.name),
                config,
                replay,
            )
            for tool in declared
        ]
    if handler.kind != "mcp":
        raise UsageError("--schema, --tools or --model is required unless the handler is --mcp")
    from toolfuzz_gate.edges.handlers.mcp import list_tools

    listed = list_tools(handler)
    if args.tool is not None:
        listed = [tool for tool in listed if tool.get("name") == args.tool]
        if not listed:
            raise UsageError(f"the MCP server lists no tool named {args.tool!r}")
    return [
        ToolRun(
            tool.get("inputSchema", {}),
            replace(handler, target=str(tool["name"])),
            build_tool_spec(args, str(tool["name"])),
            config,
            replay,
        )
        for tool in listed
    ]


def build_declarations(args: argparse.Namespace) -> list[ToolDeclaration]:
    """The tools `--tools FILE` or `--model MODULE:CLASS` declares, narrowed by `--tool`."""
    if args.model is not None:
        model = load_model_tool(args.model)
        return [replace(model, name=args.tool)] if args.tool else [model]
    declared = load_declarations(args.tools).tools
    if args.tool is None:
        return declared
    picked = [tool for tool in declared if tool.name == args.tool]
    if not picked:
        names = ", ".join(tool.name for tool in declared)[:200]
        raise UsageError(f"{args.tools} declares no tool named {args.tool!r}; it has {names}")
    return picked


def _verdict(results: Sequence[FuzzResult]) -> ExitCode:
    failed = any(result.counterexamples for result in results)
    return ExitCode.FAILED if failed else ExitCode.PASSED


def command_run(args: argparse.Namespace, argv: Sequence[str], out: TextIO) -> ExitCode:
    if args.policy is not None:
        from toolfuzz_gate.cli.policy_run import command_policy_run

        return command_policy_run(args, argv, out)
    for flag, given in (
        ("--root", args.root),
        ("--baseline", args.baseline),
        ("--baseline-dir", args.baseline_dir),
        ("--shard", args.shard),
    ):
        if given is not None:
            raise UsageError(f"{flag} goes with --policy")
    tool_run = _builtin_run(args, argv)
    receipt_path = args.out / f"{tool_run.tool.name}.json"
    result = execute(tool_run, receipt_path, args.cases, diagnostics=args.diagnostics)
    verdict = _verdict([result])
    summary: JSONObject = {
        "format": "toolfuzz-summary/1",
        "verdict": "failed" if verdict else "passed",
        "tools": [
            {
                "tool": tool_run.tool.name,
                "receipt": receipt_path.name,
                "receiptHash": result.receipt["receiptHash"],
                "counterexamples": len(result.counterexamples),
                "coverage": result.receipt["coverage"],
            }
        ],
    }
    write_document(args.out / "summary.json", summary)
    print(render_receipt_summary(result.receipt, str(receipt_path)), file=out)
    print(f"gate: {'FAILED' if verdict else 'passed'}", file=out)
    return verdict


def command_fuzz(
    args: argparse.Namespace, argv: Sequence[str], out: TextIO, tail: Sequence[str]
) -> ExitCode:
    """Each tool fuzzed, or refused in its own receipt (its schema refused, its handler
    unreachable) while the others run; the exit code is the verdict: a counterexample or
    a refusal fails (there is no baseline, so every refusal is new)."""
    runs = build_fuzz_runs(args, argv, tail)
    if args.receipt is not None and args.out is not None:
        raise UsageError("--receipt and --out conflict: one names a file, the other a directory")
    if args.receipt is not None and len(runs) != 1:
        raise UsageError(f"{len(runs)} tools to fuzz: use --out DIR instead of --receipt")
    located = build_schema_lines(args)
    failed = False
    for tool_run in runs:
        receipt_path = args.receipt or (args.out or Path(DEFAULT_OUT)) / _receipt_name(tool_run)
        cases = args.cases if len(runs) == 1 else None
        done = attempt(
            tool_run,
            receipt_path,
            cases,
            diagnostics=args.diagnostics,
            located=located.get(tool_run.tool.name),
        )
        failed = failed or done.refused or bool(done.receipt["counterexamples"])
        render = render_refused_summary if done.refused else render_receipt_summary
        print(render(done.receipt, str(receipt_path)), file=out)
    print(f"gate: {'FAILED' if failed else 'passed'}", file=out)
    return ExitCode.FAILED if failed else ExitCode.PASSED


def build_schema_lines(args: argparse.Namespace) -> dict[str, SchemaLines]:
    """Per tool name, where its schema sits in the file the flags name (none for a model
    or a server's listing), so a refusal can name the line."""
    if args.schema is not None:
        lines = line_index(args.schema.read_text("utf-8"))
        return {args.tool or args.schema.stem: SchemaLines(lines)}
    if args.tools is not None:
        declared = load_declarations(args.tools)
        return {tool.name: SchemaLines(declared.lines, tool.pointer) for tool in declared.tools}
    return {}


def _receipt_name(tool_run: ToolRun) -> str:
    return receipt_name(tool_run.tool.name)


def receipt_name(tool: str, seed: int | None = None) -> str:
    """`NAME.json`, or `NAME.seed-N.json` when a tool runs under several seeds."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", tool)[:100] or "tool"
    return f"{safe}.json" if seed is None else f"{safe}.seed-{seed}.json"
