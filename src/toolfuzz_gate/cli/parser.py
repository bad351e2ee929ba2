"""The command line's grammar: every subcommand and flag, each flag at most once (no I/O)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolfuzz_gate import __version__
from toolfuzz_gate.app.defaults import DEFAULT_OUT
from toolfuzz_gate.app.jobs import DEFAULT_MOST, MAX_JOBS
from toolfuzz_gate.cli.commands_agent import add_agent_parser
from toolfuzz_gate.cli.flags import Once, OnceSwitch, Parser
from toolfuzz_gate.core.gate.handler_kinds import KINDS
from toolfuzz_gate.core.schema.dialects import DIALECTS
from toolfuzz_gate.core.schema.options import DRAFT_2020_12, DRAFTS
from toolfuzz_gate.edges.handlers.rlimits import (
    DEFAULT_CPU_LIMIT_S,
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
)

KIND_DESTS = {"--command": "stdio"}
"""Where a kind's flag goes when its own name is taken (`command` names the subcommand)."""
DEFAULT_SEED = 41
DEFAULT_RUN_RUNS = 24
DEFAULT_FUZZ_RUNS = 200
ORACLE_CHOICES = ("auto", "jsonschema", "jsonschema-rs")
DIALECT_HELP = "read non-standard schemas: " + ", ".join(DIALECTS) + " (rewrites go in the receipt)"


def _common(parser: argparse.ArgumentParser, runs: int) -> None:
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, action=Once)
    parser.add_argument("--runs", type=int, default=runs, action=Once, help="valid cases per seed")
    parser.add_argument("--cases", type=Path, action=Once, help="write every case as JSON lines")
    parser.add_argument("--oracle", choices=ORACLE_CHOICES, default="auto", action=Once)
    _schema_reading(parser)
    parser.add_argument(
        "--diagnostics",
        action="store_true",
        help="add durations and host to receipts (unhashed; makes files differ run to run)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="toolfuzz-gate", description="Fuzz AI-agent tool handlers.")
    parser.add_argument("--version", action="version", version=f"toolfuzz-gate {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=Parser, required=True)

    run = commands.add_parser(
        "run",
        help="fuzz every tool of a policy (--policy), or the built-in renderPoster contract",
        description="With --policy FILE: every tool the policy names, one receipt per tool and "
        "seed plus summary.json in --out; --seed, --runs, --format-assertion and "
        "--default-draft given here override the policy's values.",
    )
    _common(run, DEFAULT_RUN_RUNS)
    run.add_argument("--out", type=Path, default=DEFAULT_OUT, action=Once)
    run.add_argument("--policy", type=Path, action=Once, metavar="FILE", help="a YAML policy")
    run.add_argument(
        "--root",
        type=Path,
        action=Once,
        metavar="DIR",
        help="the repository root policy paths resolve against (default: the git top level "
        "above the policy, else its directory)",
    )
    run.add_argument(
        "--baseline",
        action=Once,
        metavar="REF",
        help="with --policy: run the base's own policy at REF (a git worktree) and diff; "
        "`auto` finds the pull request's base",
    )
    run.add_argument(
        "--baseline-dir",
        type=Path,
        action=Once,
        metavar="DIR",
        help="with --policy: diff against the receipts stored in DIR",
    )
    run.add_argument(
        "--shard",
        action=Once,
        metavar="I/N",
        help="with --policy: run only shard I of N (1 <= I <= N <= 256) of the tools x seeds, "
        "writing shard.json for `merge`; no summary.json and no verdict",
    )
    run.add_argument(
        "--shard-costs",
        type=Path,
        action=Once,
        metavar="DIR",
        help="with --shard: share the units out by the time each took in a previous run "
        "(its receipts, written with --diagnostics) instead of round-robin; give every "
        "shard the same DIR",
    )
    run.add_argument(
        "--tool",
        dest="tools",
        action="append",
        default=[],
        metavar="NAME",
        help="with --policy: fuzz only this tool (repeatable)",
    )
    run.add_argument(
        "--exclude-tool",
        dest="exclude_tools",
        action="append",
        default=[],
        metavar="NAME",
        help="with --policy: leave this tool out (repeatable)",
    )
    run.add_argument(
        "--jobs",
        type=int,
        action=Once,
        metavar="N",
        help="with --policy: fuzz up to N independent tools, and the base beside the head, "
        f"at the same time (1..{MAX_JOBS}; default: the CPUs, at most {DEFAULT_MOST}); "
        "receipts are the same whatever N",
    )

    one = commands.add_parser(
        "fuzz",
        help="fuzz one tool (or every tool of an MCP server)",
        description="Handler, one of: "
        + ", ".join(kind.flag + ("..." * kind.takes_command) for kind in KINDS if kind.in_policy)
        + ". The command after `--` is taken verbatim.",
    )
    _common(one, DEFAULT_FUZZ_RUNS)
    one.add_argument("--schema", type=Path, action=Once, help="optional with --mcp")
    one.add_argument(
        "--tools",
        type=Path,
        action=Once,
        metavar="FILE",
        help="an OpenAI, Anthropic or MCP tools file (every tool, or --tool NAME)",
    )
    one.add_argument(
        "--model", action=Once, metavar="MODULE:CLASS", help="a pydantic model's schema"
    )
    one.add_argument("--dialect", choices=tuple(DIALECTS), action=Once, help=DIALECT_HELP)
    _kind_flags(one)
    one.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=ENV_VAR",
        help="an HTTP header whose value is read from an environment variable",
    )
    one.add_argument("--env", action="append", default=[], metavar="NAME", help="pass through")
    one.add_argument("--cwd", action=Once, metavar="DIR", help="the handler's working directory")
    one.add_argument("--tool", action=Once, help="tool name (MCP: the tool to fuzz)")
    one.add_argument(
        "--reset-command",
        action=Once,
        metavar="COMMAND",
        help="a command (one shell-quoted string, run without a shell) run before each tool",
    )
    one.add_argument(
        "--reset-tool", action=Once, metavar="NAME", help="mcp: a tool called with {} instead"
    )
    one.add_argument(
        "--exclude-tool",
        dest="exclude_tools",
        action="append",
        default=[],
        metavar="NAME",
        help="with --tools or --mcp: leave this tool out (repeatable)",
    )
    one.add_argument(
        "--fixed-argument",
        dest="fixed_arguments",
        action="append",
        default=[],
        metavar="POINTER=JSON",
        help="every call carries this argument as given, e.g. /repo_path='\"/tmp/r\"' (repeatable)",
    )
    one.add_argument("--rejects", action="append", default=[], metavar="MODULE:CLASS")
    one.add_argument(
        "--effects",
        action=Once,
        metavar="REF",
        help="python: MODULE:FUNCTION returning the state; mcp: a zero-argument TOOL",
    )
    one.add_argument(
        "--effects-directory", action=Once, metavar="PATH", help="digest this tree per call"
    )
    one.add_argument(
        "--effects-command",
        action=Once,
        metavar="COMMAND",
        help="a command (one shell-quoted string, run without a shell) printing the state",
    )
    one.add_argument("--expected-rejection", action="append", default=[], metavar="CODE")
    one.add_argument("--error-codes", action=Once, metavar="REGEX")
    one.add_argument(
        "--rejection-code",
        action=Once,
        metavar="REGEX",
        help="a regular expression with a group named code, searched in the text of a "
        "rejection the handler did not code: the group is its code",
    )
    one.add_argument("--dry-run", action=Once, metavar="ARGUMENT")
    one.add_argument(
        "--deterministic",
        action="store_true",
        help="the tool is deterministic: check replay and key order (default: as the MCP "
        "server's readOnlyHint/idempotentHint say, else not)",
    )
    one.add_argument(
        "--strict",
        action="store_true",
        help="the schema is complete: a rejected schema-valid call is a counterexample "
        "(default: an under-specification note)",
    )
    one.add_argument(
        "--allow-unreached",
        action="store_true",
        help="pass although no valid call of a tool got past its door (default: that fails, "
        "as the policy's unreached does)",
    )
    one.add_argument("--timeout-ms", type=int, default=2000, action=Once)
    one.add_argument(
        "--memory-limit-mb",
        type=int,
        action=Once,
        help=f"memory per handler process (default {DEFAULT_MEMORY_LIMIT_MB}; 0: no limit)",
    )
    one.add_argument(
        "--cpu-limit-s",
        type=int,
        action=Once,
        help=f"CPU seconds per call (default {DEFAULT_CPU_LIMIT_S}; 0: no limit)",
    )
    one.add_argument(
        "--process-limit",
        type=int,
        action=Once,
        help=f"processes below a handler process (default {DEFAULT_PROCESS_LIMIT}; 0: no limit)",
    )
    one.add_argument("--receipt", type=Path, action=Once, help="the receipt (one tool)")
    one.add_argument("--out", type=Path, action=Once, help="receipts directory (many tools)")

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
    lint.add_argument("--dialect", choices=tuple(DIALECTS), action=Once, help=DIALECT_HELP)
    lint.add_argument("--format", choices=("text", "json"), default="text", action=Once)
    _schema_reading(lint)

    compare = commands.add_parser(
        "diff",
        help="compare two receipt directories (base, head)",
        description="Counterexamples new / fixed / still failing (matched by fingerprint), "
        "unsupported keywords added / removed, coverage changes, flipped invariants, tools "
        "added or removed. Exit 0 when no counterexample is new and no unsupported keyword "
        "was added, 1 otherwise, 2 when a directory or receipt cannot be read.",
    )
    compare.add_argument("base", type=Path, metavar="BASE_DIR")
    compare.add_argument("head", type=Path, metavar="HEAD_DIR")
    compare.add_argument("--format", choices=("json", "markdown"), default="json", action=Once)

    merge = commands.add_parser(
        "merge",
        help="combine the outputs of `run --policy --shard I/N` into one run's results",
        description="Checks that the shards belong together (same policy and arguments, the "
        "same N, every I once), copies their receipts into --out and writes the summary.json, "
        "reports and verdict the unsharded run gives. Exit 0 or 1 as that run would, 2 when the "
        "shards do not fit together or cannot be read.",
    )
    merge.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="a shard's --out")
    merge.add_argument("--out", type=Path, required=True, action=Once, metavar="DIR")
    merge.add_argument(
        "--policy",
        type=Path,
        required=True,
        action=Once,
        metavar="FILE",
        help="the policy the shards ran (its sha256 must match): its gate rules decide, and "
        "reports locate findings in its schema files",
    )
    merge.add_argument("--root", type=Path, action=Once, metavar="DIR", help="as for run --policy")
    merge.add_argument(
        "--baseline-dir",
        type=Path,
        action=Once,
        metavar="DIR",
        help="diff the merged receipts against the receipts stored in DIR (diff.json), and "
        "decide with the diff, as `run --policy --baseline-dir DIR` does",
    )
    _corpus_commands(commands)
    add_agent_parser(commands, Once)
    commands.add_parser(
        "action",
        help="the GitHub Action's entrypoint (reads INPUT_* and GITHUB_* variables)",
        description="Runs inside GitHub Actions: reads the inputs action.yml declares from "
        "INPUT_* variables and the event from GITHUB_EVENT_PATH, runs the gate on the head "
        "and its base, writes the output directory, GITHUB_OUTPUT and the step summary, "
        "prints annotations and upserts one PR comment. Takes no flags. Exit codes as for "
        "run --policy.",
    )
    return parser


def _kind_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per kind of handler `fuzz` names (`core.gate.handler_kinds`; kinds that
    share a flag, as `--handler python:...` and `--handler builtin:...`, share it)."""
    for option in dict.fromkeys(kind.option for kind in KINDS if kind.flag):
        kind = next(kind for kind in KINDS if kind.option == option)
        dest = KIND_DESTS.get(option, option[2:])
        if kind.takes_command:
            parser.add_argument(option, dest=dest, action="store_true", help=kind.help)
            continue
        value = kind.flag.partition(" ")[2]
        metavar = None if ":" in value else value
        parser.add_argument(option, dest=dest, action=Once, metavar=metavar, help=kind.help)


def _corpus_commands(commands: Any) -> None:
    """`promote` and `replay`: the regression corpus."""
    promote = commands.add_parser(
        "promote",
        help="store a receipt's counterexamples as regression corpus cases",
        description="Writes CORPUS/<tool>/<fingerprint>.json per counterexample (all of them "
        "unless --fingerprint names some); re-promoting writes the same bytes. The corpus is "
        "the policy's `corpus:` directory (--policy) or --corpus DIR.",
    )
    promote.add_argument("receipt", type=Path, metavar="RECEIPT")
    _fingerprints(promote)
    promote.add_argument("--policy", type=Path, action=Once, metavar="FILE")
    promote.add_argument("--root", type=Path, action=Once, metavar="DIR")
    promote.add_argument("--corpus", type=Path, action=Once, metavar="DIR")

    replay = commands.add_parser(
        "replay",
        help="re-run a receipt's counterexamples against the handler",
        description="Exit 1 when any counterexample still fails (or fails differently), 0 "
        "when all are fixed, 2 when the receipt or the handler cannot be used. The handler "
        "comes from the policy entry of the receipt's tool (--policy), else from the "
        "receipt's replayCommand, run from the current directory.",
    )
    replay.add_argument("receipt", type=Path, metavar="RECEIPT")
    _fingerprints(replay)
    replay.add_argument("--policy", type=Path, action=Once, metavar="FILE")
    replay.add_argument("--root", type=Path, action=Once, metavar="DIR")


def _fingerprints(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fingerprint",
        action="append",
        default=[],
        metavar="F",
        help="only this counterexample (repeatable)",
    )


def _schema_reading(parser: argparse.ArgumentParser) -> None:
    """How schemas are read (`core.schema.options.SchemaOptions`): the same for fuzz, run and
    lint."""
    parser.add_argument(
        "--format-assertion",
        action=OnceSwitch,
        help="check `format` and mutate against it (2020-12 default: an annotation)",
    )
    parser.add_argument(
        "--default-draft",
        choices=DRAFTS,
        default=DRAFT_2020_12,
        action=Once,
        help="the draft of schemas without $schema (default 2020-12)",
    )


def split_tail(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Arguments before `--`, and the verbatim command after it."""
    items = list(argv)
    if "--" in items:
        index = items.index("--")
        return items[:index], items[index + 1 :]
    return items, []
