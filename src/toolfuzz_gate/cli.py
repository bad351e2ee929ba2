"""The command line: parse, wire, pick an exit code. Nothing clever lives here."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from toolfuzz_gate import __version__
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.canonical import JSONObject
from toolfuzz_gate.core.fuzz import FuzzConfig, FuzzResult
from toolfuzz_gate.core.summary import render_receipt_summary
from toolfuzz_gate.core.tool import ToolSpec
from toolfuzz_gate.edges.execute import ToolRun, execute
from toolfuzz_gate.edges.files import load_json, write_document
from toolfuzz_gate.edges.handlers.builtin import SPEC as BUILTIN_SPEC
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
from toolfuzz_gate.errors import SchemaError, ToolfuzzError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

DEFAULT_SEED = 41
DEFAULT_RUN_RUNS = 24
DEFAULT_FUZZ_RUNS = 200
DEFAULT_OUT = "toolfuzz-receipts"
ORACLE_CHOICES = ("auto", "jsonschema", "jsonschema-rs")


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


def _common(parser: argparse.ArgumentParser, runs: int) -> None:
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, action=_Once)
    parser.add_argument("--runs", type=int, default=runs, action=_Once, help="valid cases per seed")
    parser.add_argument("--cases", type=Path, action=_Once, help="write every case as JSON lines")
    parser.add_argument("--oracle", choices=ORACLE_CHOICES, default="auto", action=_Once)
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

    one = commands.add_parser("fuzz", help="fuzz one tool from a schema file and a handler")
    _common(one, DEFAULT_FUZZ_RUNS)
    one.add_argument("--schema", type=Path, required=True, action=_Once)
    one.add_argument("--handler", required=True, action=_Once, help="python:MODULE:FUNCTION")
    one.add_argument("--tool", action=_Once, help="tool name (default: the schema file's stem)")
    one.add_argument("--rejects", action="append", default=[], metavar="MODULE:CLASS")
    one.add_argument("--effects", action=_Once, metavar="MODULE:FUNCTION")
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
    one.add_argument("--receipt", type=Path, action=_Once)
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
        FuzzConfig(args.seed, args.runs, oracle=args.oracle),
        _replay_command(argv),
    )


def _fuzz_run(args: argparse.Namespace, argv: Sequence[str]) -> ToolRun:
    if args.timeout_ms <= 0:
        raise UsageError("--timeout-ms must be positive")
    if args.error_codes is not None:
        try:
            re.compile(args.error_codes)
        except re.error as error:
            raise UsageError(f"--error-codes is not a regular expression: {error}") from None
    schema = load_json(args.schema, what="schema")
    tool = ToolSpec(
        args.tool or args.schema.stem,
        expected_rejections=tuple(args.expected_rejection),
        error_codes=args.error_codes,
        dry_run=args.dry_run,
    )
    handler = HandlerConfig.from_spec(
        args.handler,
        rejects=tuple(args.rejects),
        effects=args.effects,
        timeout_ms=args.timeout_ms,
        effects_directory=args.effects_directory,
        effects_command=tuple(shlex.split(args.effects_command or "")),
    )
    return ToolRun(
        schema,
        handler,
        tool,
        FuzzConfig(args.seed, args.runs, oracle=args.oracle),
        _replay_command(argv),
    )


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


def _command_fuzz(args: argparse.Namespace, argv: Sequence[str], out: TextIO) -> ExitCode:
    tool_run = _fuzz_run(args, argv)
    receipt_path = args.receipt or Path(DEFAULT_OUT) / f"{tool_run.tool.name}.json"
    try:
        result = execute(tool_run, receipt_path, args.cases, diagnostics=args.diagnostics)
    except SchemaError as error:
        raise SchemaError(list(error.problems), source=str(args.schema)) from None
    verdict = _verdict([result])
    print(render_receipt_summary(result.receipt, str(receipt_path)), file=out)
    print(f"gate: {'FAILED' if verdict else 'passed'}", file=out)
    return verdict


COMMANDS = {"run": _command_run, "fuzz": _command_fuzz}


def run(argv: Sequence[str], stdout: TextIO, stderr: TextIO) -> int:
    """The whole command line with injected streams; returns the exit code."""
    try:
        args = build_parser().parse_args(list(argv))
        return int(COMMANDS[args.command](args, argv, stdout))
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
