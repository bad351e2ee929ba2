"""The command line: argv -> request -> exit code. Nothing clever lives here.

`parser` holds the grammar; the `commands_*` modules turn parsed flags into the typed
requests of `app.requests`, and the `app` functions run them. A command's modules are
imported when that command runs, not before: `--version` and `--help` start without the
engine, and only agent mode (`agent`, or a gate whose `fail_on` lists an agent check) and
`action` load an HTTP client (`tests/cli/test_start.py`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from toolfuzz_gate.cli.output import CommandGuard
from toolfuzz_gate.cli.parser import build_parser, split_tail
from toolfuzz_gate.core.campaign.run_defaults import DEFAULT_OUT
from toolfuzz_gate.errors import LlmError, ToolfuzzError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

if TYPE_CHECKING:
    from toolfuzz_gate.cli.commands_run import RunRequest

__all__ = ["build_parser", "interrupt_on_terminate", "main", "run"]


def run(
    argv: Sequence[str],
    stdout: TextIO,
    stderr: TextIO,
    environ: Mapping[str, str] | None = None,
) -> int:
    """The whole command line with injected streams; returns the exit code. `environ` is
    what `action` reads (default: the process environment). Both streams go through
    `output.CommandGuard`: nothing printed becomes a workflow command unless the gate emits
    it as one (`app.progress.emit`)."""
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
        head, tail = split_tail(argv)
        args = build_parser().parse_args(head)
        if args.command == "fuzz":
            from toolfuzz_gate.app.fuzz import fuzz
            from toolfuzz_gate.cli.commands_run import build_fuzz_request

            return int(fuzz(build_fuzz_request(args, argv, tail), stdout))
        if tail:
            raise UsageError("`--` ARGV goes with fuzz --command or --mcp")
        if args.command == "lint":
            from toolfuzz_gate.app.lint import lint
            from toolfuzz_gate.cli.commands_lint import build_lint_request

            return int(lint(build_lint_request(args), stdout))
        if args.command == "diff":
            from toolfuzz_gate.app.reports import diff
            from toolfuzz_gate.cli.commands_receipts import build_diff_request

            return int(diff(build_diff_request(args), stdout))
        if args.command == "merge":
            from toolfuzz_gate.app.shard import merge
            from toolfuzz_gate.cli.commands_receipts import build_merge_request

            env = os.environ if environ is None else environ
            return int(merge(build_merge_request(args, env), stdout))
        if args.command == "promote":
            from toolfuzz_gate.app.replay import promote
            from toolfuzz_gate.cli.commands_receipts import build_promote_request

            return int(promote(build_promote_request(args), stdout))
        if args.command == "replay":
            from toolfuzz_gate.app.replay import replay
            from toolfuzz_gate.cli.commands_receipts import build_replay_request

            return int(replay(build_replay_request(args), stdout))
        if args.command == "agent":
            from toolfuzz_gate.app.agent import agent  # loads the model's HTTP client: only here
            from toolfuzz_gate.cli.commands_agent import build_agent_request

            env = os.environ if environ is None else environ
            return int(agent(build_agent_request(args, env), stdout))
        if args.command == "action":
            from toolfuzz_gate.app.action import run_action  # loads the HTTP client: only here
            from toolfuzz_gate.app.requests import ActionRequest

            request = ActionRequest(os.environ if environ is None else environ)
            return int(run_action(request, stdout))
        from toolfuzz_gate.cli.commands_run import build_run_request

        env = os.environ if environ is None else environ
        return int(_run_command(build_run_request(args, argv, env), stdout))
    except LlmError as error:
        print(error.render(), file=stderr)
        return int(ExitCode.MODEL)
    except ToolfuzzError as error:
        print(error.render(), file=stderr)
        return int(ExitCode.USAGE)
    except Terminated:
        print("interrupted (SIGTERM)", file=stderr)
        return int(ExitCode.TERMINATED)
    except KeyboardInterrupt:
        print("interrupted", file=stderr)
        return int(ExitCode.INTERRUPTED)
    except Exception as error:  # a bug in the gate: a short message, the traceback in a file
        from toolfuzz_gate.cli.internal_error import report_internal_error

        env = os.environ if environ is None else environ
        report_internal_error(error, list(argv), env, _output_directory(args), stderr)
        return int(ExitCode.INTERNAL)


def _output_directory(args: argparse.Namespace | None) -> Path | None:
    """Where the command writes its results (None: it has no such place). `fuzz` without
    `--out` writes to the default directory, or beside the one `--receipt`."""
    out: Path | None = getattr(args, "out", None)
    if out is not None or args is None or args.command != "fuzz":
        return out
    return args.receipt.parent if args.receipt is not None else Path(DEFAULT_OUT)


def _run_command(request: RunRequest, out: TextIO) -> ExitCode:
    from toolfuzz_gate.app.requests import BaselineRequest, BuiltinRunRequest, ShardRequest

    if isinstance(request, ShardRequest):
        from toolfuzz_gate.app.shard import run_shard

        return run_shard(request, out)
    if isinstance(request, BuiltinRunRequest):
        from toolfuzz_gate.app.fuzz import run_builtin

        return run_builtin(request, out)
    from toolfuzz_gate.app.policy_gate import gate_policy, gate_policy_on_baseline

    if isinstance(request, BaselineRequest):
        return gate_policy_on_baseline(request, out)
    return gate_policy(request, out)


class Terminated(KeyboardInterrupt):
    """SIGTERM, unwound as Ctrl-C is but told apart for the exit code."""


def interrupt_on_terminate() -> None:
    """Make SIGTERM (a cancelled Actions job, `docker stop`) unwind like Ctrl-C, so base
    worktrees are removed and handler processes stopped on the way out. As PID 1 in the
    action's container the default would be worse than dying: the signal is ignored."""

    def interrupt(signum: int, frame: object) -> None:
        raise Terminated

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
