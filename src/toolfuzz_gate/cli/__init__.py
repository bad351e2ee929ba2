"""The command line: parse, wire, pick an exit code. Nothing clever lives here.

`parser` holds the grammar; each subcommand's wiring has its own module.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO, cast

from toolfuzz_gate.cli.diff import command_diff
from toolfuzz_gate.cli.fuzz import command_fuzz, command_run
from toolfuzz_gate.cli.lint import command_lint
from toolfuzz_gate.cli.merge import command_merge
from toolfuzz_gate.cli.output import CommandGuard
from toolfuzz_gate.cli.parser import build_parser
from toolfuzz_gate.cli.promote import command_promote
from toolfuzz_gate.cli.replay import command_replay
from toolfuzz_gate.errors import ToolfuzzError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

__all__ = ["build_parser", "interrupt_on_terminate", "main", "run"]


def _split_tail(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Arguments before `--`, and the verbatim command after it."""
    items = list(argv)
    if "--" in items:
        index = items.index("--")
        return items[:index], items[index + 1 :]
    return items, []


def run(
    argv: Sequence[str],
    stdout: TextIO,
    stderr: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The whole command line with injected streams; returns the exit code. `environ` is
    what `action` reads (default: the process environment). Both streams go through
    `output.CommandGuard`: nothing printed becomes a workflow command unless the gate emits
    it as one (`output.emit`)."""
    guarded_out, guarded_err = CommandGuard(stdout), CommandGuard(stderr)
    try:
        return _run(argv, cast(TextIO, guarded_out), cast(TextIO, guarded_err), environ)
    finally:
        guarded_out.flush()
        guarded_err.flush()


def _run(
    argv: Sequence[str], stdout: TextIO, stderr: TextIO, environ: Mapping[str, str] | None
) -> int:
    args: argparse.Namespace | None = None
    try:
        head, tail = _split_tail(argv)
        args = build_parser().parse_args(head)
        if args.command == "fuzz":
            return int(command_fuzz(args, argv, stdout, tail))
        if tail:
            raise UsageError("`--` ARGV goes with fuzz --command or --mcp")
        if args.command == "lint":
            return int(command_lint(args, stdout))
        if args.command == "diff":
            return int(command_diff(args, stdout))
        if args.command == "merge":
            return int(command_merge(args, stdout))
        if args.command == "promote":
            return int(command_promote(args, stdout))
        if args.command == "replay":
            return int(command_replay(args, stdout))
        if args.command == "action":
            from toolfuzz_gate.cli.action import command_action  # needs requests

            return int(command_action(stdout, environ))
        return int(command_run(args, argv, stdout))
    except ToolfuzzError as error:
        print(error.render(), file=stderr)
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return int(ExitCode.INTERNAL)
    except Exception as error:  # a bug in the gate: a short message, the traceback in a file
        from toolfuzz_gate.cli.internal_error import report_internal_error

        out_dir = getattr(args, "out", None)
        env = os.environ if environ is None else environ
        report_internal_error(error, list(argv), env, out_dir, stderr)
        return int(ExitCode.INTERNAL)


def interrupt_on_terminate() -> None:
    """Make SIGTERM (a cancelled Actions job, `docker stop`) unwind like Ctrl-C, so base
    worktrees are removed and handler processes stopped on the way out. As PID 1 in the
    action's container the default would be worse than dying: the signal is ignored."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def main(argv: Sequence[str] | None = None) -> int:
    interrupt_on_terminate()
    arguments = sys.argv[1:] if argv is None else list(argv)
    environ = None
    if arguments[:1] == ["action"]:
        from toolfuzz_gate.edges.secrets import withhold_secrets

        # before anything else runs: the token leaves the process environment
        environ = withhold_secrets(os.environ, arguments)
    return run(arguments, sys.stdout, sys.stderr, environ)
