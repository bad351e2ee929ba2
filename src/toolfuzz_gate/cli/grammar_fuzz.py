"""The grammar of `fuzz`: where the schema comes from, the handler and what its answers
mean, the tool's contract, the handler's limits and where receipts go (no I/O)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolfuzz_gate.cli.flags import DIALECT_HELP, Once, add_campaign_flags
from toolfuzz_gate.core.campaign.run_defaults import (
    DEFAULT_CPU_LIMIT_S,
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
    DEFAULT_RUNS,
    DEFAULT_TIMEOUT_MS,
)
from toolfuzz_gate.core.gate.handler_kinds import KINDS
from toolfuzz_gate.core.schema.dialects import DIALECTS

KIND_DESTS = {"--command": "stdio"}
"""Where a kind's flag goes when its own name is taken (`command` names the subcommand)."""


def add_fuzz_parser(commands: Any) -> None:
    one = commands.add_parser(
        "fuzz",
        help="fuzz one tool (or every tool of an MCP server)",
        description="Handler, one of: "
        + ", ".join(kind.flag + ("..." * kind.takes_command) for kind in KINDS if kind.in_policy)
        + ". The command after `--` is taken verbatim.",
    )
    add_campaign_flags(one, DEFAULT_RUNS)
    _schema_source(one)
    _handler(one)
    _tools_and_calls(one)
    _answers(one)
    _contract(one)
    _limits(one)
    one.add_argument("--receipt", type=Path, action=Once, help="the receipt (one tool)")
    one.add_argument("--out", type=Path, action=Once, help="receipts directory (many tools)")


def _schema_source(one: Any) -> None:
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


def _handler(one: Any) -> None:
    """The handler's kind and how it is started, and the reset run before each tool."""
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


def _kind_flags(one: Any) -> None:
    """One flag per kind of handler `fuzz` names (`core.gate.handler_kinds`; kinds that
    share a flag, as `--handler python:...` and `--handler builtin:...`, share it)."""
    for option in dict.fromkeys(kind.option for kind in KINDS if kind.flag):
        kind = next(kind for kind in KINDS if kind.option == option)
        dest = KIND_DESTS.get(option, option[2:])
        if kind.takes_command:
            one.add_argument(option, dest=dest, action="store_true", help=kind.help)
            continue
        value = kind.flag.partition(" ")[2]
        metavar = None if ":" in value else value
        one.add_argument(option, dest=dest, action=Once, metavar=metavar, help=kind.help)


def _tools_and_calls(one: Any) -> None:
    """Which of the listed tools run, and an argument every call carries."""
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


def _answers(one: Any) -> None:
    """What the handler's answers mean: its rejections, and where its effects are seen."""
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


def _contract(one: Any) -> None:
    """What the tool promises: its rejection codes, dry run, determinism, completeness."""
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


def _limits(one: Any) -> None:
    """Per call and per handler process."""
    one.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS, action=Once)
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
