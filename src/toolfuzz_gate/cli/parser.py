"""The command line's grammar: every subcommand and flag, each flag at most once (no I/O).
Each command's flags are in a `grammar_*` module (`commands_agent` for `agent`); the flag
groups several commands share, and the defaults they show, in `flags`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolfuzz_gate import __version__
from toolfuzz_gate.cli.commands_agent import add_agent_parser
from toolfuzz_gate.cli.flags import DIALECT_HELP, Once, Parser, add_schema_reading
from toolfuzz_gate.cli.grammar_fuzz import add_fuzz_parser
from toolfuzz_gate.cli.grammar_receipts import add_corpus_parsers, add_diff_parser, add_merge_parser
from toolfuzz_gate.cli.grammar_run import add_run_parser
from toolfuzz_gate.core.schema.dialects import DIALECTS


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="toolfuzz-gate", description="Fuzz AI-agent tool handlers.")
    parser.add_argument("--version", action="version", version=f"toolfuzz-gate {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=Parser, required=True)
    add_run_parser(commands)
    add_fuzz_parser(commands)
    _add_lint_parser(commands)
    add_diff_parser(commands)
    add_merge_parser(commands)
    add_corpus_parsers(commands)
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


def _add_lint_parser(commands: Any) -> None:
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
    add_schema_reading(lint)


def split_tail(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Arguments before `--`, and the verbatim command after it."""
    items = list(argv)
    if "--" in items:
        index = items.index("--")
        return items[:index], items[index + 1 :]
    return items, []
