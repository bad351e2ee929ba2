"""The command line: parse, wire, pick an exit code. Nothing clever lives here."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NoReturn, TextIO

from toolfuzz_gate import __version__
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.canonical import JSON, JSONObject, canonical_document
from toolfuzz_gate.core.dialects import DIALECTS
from toolfuzz_gate.core.discover import ToolDeclaration
from toolfuzz_gate.core.fuzz import FuzzConfig, FuzzResult
from toolfuzz_gate.core.lint_report import (
    ToolReport,
    render_lint_json,
    render_lint_text,
    report_tool,
    unreadable,
)
from toolfuzz_gate.core.options import SchemaOptions
from toolfuzz_gate.core.summary import render_receipt_summary
from toolfuzz_gate.core.tool import ToolSpec
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.execute import ToolRun, execute
from toolfuzz_gate.edges.files import load_json, write_document
from toolfuzz_gate.edges.handlers.builtin import SPEC as BUILTIN_SPEC
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.errors import InputFileError, SchemaError, ToolfuzzError, ToolsError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

DEFAULT_SEED = 41
DEFAULT_RUN_RUNS = 24
DEFAULT_FUZZ_RUNS = 200
DEFAULT_OUT = "toolfuzz-receipts"
ORACLE_CHOICES = ("auto", "jsonschema", "jsonschema-rs")
DIALECT_HELP = "read non-standard schemas: " + ", ".join(DIALECTS) + " (rewrites go in the receipt)"


class _Parser(argparse.ArgumentParser):
    """Raises `UsageError` instead of printing and exiting, so `run` picks the exit code."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"see `{self.prog} --help`")


class _Once(argparse.Action):
    """A flag that may be given at most once."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        if getattr(namespace, f"_seen_{self.dest}", False):
            raise UsageError(f"{option} was given twice", hint="give each flag once")
        setattr(namespace, f"_seen_{self.dest}", True)
        setattr(namespace, self.dest, values)


class _OnceSwitch(_Once):
    """An on/off switch that may be given at most once."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        super().__call__(parser, namespace, True, option)


def _common(parser: argparse.ArgumentParser, runs: int) -> None:
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, action=_Once)
    parser.add_argument("--runs", type=int, default=runs, action=_Once, help="valid cases per seed")
    parser.add_argument("--cases", type=Path, action=_Once, help="write every case as JSON lines")
    parser.add_argument("--oracle", choices=ORACLE_CHOICES, default="auto", action=_Once)
    parser.add_argument(
        "--format-assertion",
        action=_OnceSwitch,
        help="check `format` and mutate against it (2020-12 default: an annotation)",
    )
    parser.add_argument(
        "--diagnostics",
        action="store_true",
        help="add durations and host to receipts (unhashed; makes files differ run to run)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="toolfuzz-gate", description="Fuzz AI-agent tool handlers.")
    parser.add_argument("--version", action="version", version=f"toolfuzz-gate {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, required=True)

    run = commands.add_parser("run", help="fuzz the built-in renderPoster contract")
    _common(run, DEFAULT_RUN_RUNS)
    run.add_argument("--out", type=Path, default=Path(DEFAULT_OUT), action=_Once)

    one = commands.add_parser(
        "fuzz",
        help="fuzz one tool (or every tool of an MCP server)",
        description="Handler, one of: --handler python:MODULE:FUNCTION, --command -- ARGV..., "
        "--mcp -- ARGV..., --http URL. The command after `--` is taken verbatim.",
    )
    _common(one, DEFAULT_FUZZ_RUNS)
    one.add_argument("--schema", type=Path, action=_Once, help="optional with --mcp")
    one.add_argument(
        "--tools",
        type=Path,
        action=_Once,
        metavar="FILE",
        help="an OpenAI, Anthropic or MCP tools file (every tool, or --tool NAME)",
    )
    one.add_argument(
        "--model", action=_Once, metavar="MODULE:CLASS", help="a pydantic model's schema"
    )
    one.add_argument("--dialect", choices=tuple(DIALECTS), action=_Once, help=DIALECT_HELP)
    one.add_argument("--handler", action=_Once, help="python:MODULE:FUNCTION")
    one.add_argument("--command", dest="stdio", action="store_true", help="a JSON-lines process")
    one.add_argument("--mcp", action="store_true", help="an MCP server over stdio")
    one.add_argument("--http", action=_Once, metavar="URL")
    one.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=ENV_VAR",
        help="an HTTP header whose value is read from an environment variable",
    )
    one.add_argument("--env", action="append", default=[], metavar="NAME", help="pass through")
    one.add_argument("--cwd", action=_Once, metavar="DIR", help="the handler's working directory")
    one.add_argument("--tool", action=_Once, help="tool name (MCP: the tool to fuzz)")
    one.add_argument("--rejects", action="append", default=[], metavar="MODULE:CLASS")
    one.add_argument(
        "--effects",
        action=_Once,
        metavar="REF",
        help="python: MODULE:FUNCTION returning the state; mcp: a zero-argument TOOL",
    )
    one.add_argument(
        "--effects-directory", action=_Once, metavar="PATH", help="digest this tree per call"
    )
    one.add_argument(
        "--effects-command",
        action=_Once,
        metavar="COMMAND",
        help="a command (one shell-quoted string, run without a shell) printing the state",
    )
    one.add_argument("--expected-rejection", action="append", default=[], metavar="CODE")
    one.add_argument("--error-codes", action=_Once, metavar="REGEX")
    one.add_argument("--dry-run", action=_Once, metavar="ARGUMENT")
    one.add_argument("--timeout-ms", type=int, default=2000, action=_Once)
    one.add_argument("--memory-limit-mb", type=int, action=_Once, help="RLIMIT_AS per handler")
    one.add_argument(
        "--cpu-limit-s", type=int, action=_Once, help="RLIMIT_CPU (command and MCP processes)"
    )
    one.add_argument("--receipt", type=Path, action=_Once, help="the receipt (one tool)")
    one.add_argument("--out", type=Path, action=_Once, help="receipts directory (many tools)")

    lint = commands.add_parser(
        "lint",
        help="compile tool schemas without running anything; report documentation problems",
        description="Exit 0 when every schema compiles cleanly, 2 when any is refused "
        "(unsupported or contradictory keywords, a root that is not an object) or a file "
        "cannot be read. Documentation findings (lint.default-invalid, lint.example-invalid, "
        "lint.required-undefined, lint.enum-type, lint.empty-schema) are warnings and never "
        "change the exit status.",
    )
    lint.add_argument("files", nargs="*", type=Path, metavar="FILE", help="schema or tools file")
    lint.add_argument(
        "--model", action="append", default=[], metavar="MODULE:CLASS", help="a pydantic model"
    )
    lint.add_argument("--dialect", choices=tuple(DIALECTS), action=_Once, help=DIALECT_HELP)
    lint.add_argument("--format", choices=("text", "json"), default="text", action=_Once)
    lint.add_argument(
        "--format-assertion",
        action=_OnceSwitch,
        help="read `format` as a constraint, as fuzz --format-assertion does",
    )
    return parser


OUTPUT_FLAGS = frozenset({"--out", "--receipt", "--cases"})


def _replay_command(argv: Sequence[str]) -> str:
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
    options = SchemaOptions(format_assertion=args.format_assertion)
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
        _replay_command(argv),
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
    ):
        if value is not None and value <= 0:
            raise UsageError(f"{flag} must be positive")
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
    replay = _replay_command(argv)
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


def _command_run(args: argparse.Namespace, argv: Sequence[str], out: TextIO) -> ExitCode:
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


def _command_fuzz(
    args: argparse.Namespace, argv: Sequence[str], out: TextIO, tail: Sequence[str]
) -> ExitCode:
    runs = build_fuzz_runs(args, argv, tail)
    if args.receipt is not None and args.out is not None:
        raise UsageError("--receipt and --out conflict: one names a file, the other a directory")
    if args.receipt is not None and len(runs) != 1:
        raise UsageError(f"{len(runs)} tools to fuzz: use --out DIR instead of --receipt")
    results = []
    for tool_run in runs:
        receipt_path = args.receipt or (args.out or Path(DEFAULT_OUT)) / _receipt_name(tool_run)
        cases = args.cases if len(runs) == 1 else None
        try:
            result = execute(tool_run, receipt_path, cases, diagnostics=args.diagnostics)
        except SchemaError as error:
            where = (
                str(args.schema or args.tools or "")
                or (args.model and f"--model {args.model}")
                or f"tools/list of {tool_run.tool.name}"
            )
            if args.tools is not None:
                where += f" (tool {tool_run.tool.name})"
            raise SchemaError(list(error.problems), source=where) from None
        results.append(result)
        print(render_receipt_summary(result.receipt, str(receipt_path)), file=out)
    verdict = _verdict(results)
    print(f"gate: {'FAILED' if verdict else 'passed'}", file=out)
    return verdict


def build_lint_reports(args: argparse.Namespace) -> list[ToolReport]:
    """One report per declared tool; a file that yields no tools is one error report."""
    if not args.files and not args.model:
        raise UsageError("lint needs a FILE or --model MODULE:CLASS")
    reports: list[ToolReport] = []
    sources: list[tuple[str, list[ToolDeclaration], dict[str, int]]] = []
    for path in args.files:
        try:
            declared = load_declarations(path)
        except InputFileError as error:
            reports.append(unreadable(str(path), error.code, error.message))
            continue
        except ToolsError as error:
            reports.append(
                unreadable(str(path), error.code, error.detail, error.pointer or "", error.line)
            )
            continue
        sources.append((declared.file, declared.tools, declared.lines))
    for reference in args.model:
        try:
            sources.append((f"--model {reference}", [load_model_tool(reference)], {}))
        except ToolsError as error:
            reports.append(unreadable(f"--model {reference}", error.code, error.detail))
    options = SchemaOptions(format_assertion=args.format_assertion)
    for file, tools, lines in sources:
        reports.extend(
            report_tool(tool, file=file, lines=lines, dialect=args.dialect, options=options)
            for tool in tools
        )
    return reports


def _command_lint(args: argparse.Namespace, out: TextIO) -> ExitCode:
    reports = build_lint_reports(args)
    if args.format == "json":
        document: JSON = render_lint_json(reports)
        out.write(canonical_document(document).decode("utf-8"))
    else:
        print(render_lint_text(reports), file=out)
    return ExitCode.PASSED if all(r.clean for r in reports) else ExitCode.USAGE


def _receipt_name(tool_run: ToolRun) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", tool_run.tool.name)[:100] or "tool"
    return f"{safe}.json"


def _split_tail(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Arguments before `--`, and the verbatim command after it."""
    items = list(argv)
    if "--" in items:
        index = items.index("--")
        return items[:index], items[index + 1 :]
    return items, []


def run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """The whole command line with injected streams; returns the exit code."""
    try:
        head, tail = _split_tail(argv)
        args = build_parser().parse_args(head)
        if args.command == "fuzz":
            return int(_command_fuzz(args, argv, stdout, tail))
        if tail:
            raise UsageError("`--` ARGV goes with fuzz --command or --mcp")
        if args.command == "lint":
            return int(_command_lint(args, stdout))
        return int(_command_run(args, argv, stdout))
    except ToolfuzzError as error:
        print(error.render(), file=stderr)
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return int(ExitCode.INTERNAL)
    except Exception as error:  # a bug in the gate: say so, keep the traceback short
        print(f"internal error: {type(error).__name__}: {error}", file=stderr)
        print("this is a bug in toolfuzz-gate; please report it with the command line", file=stderr)
        return int(ExitCode.INTERNAL)


def main(argv: Sequence[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv, sys.stdout, sys.stderr)
