"""Flags that may be given once, a parser that raises instead of exiting, and the flag groups
several commands share (no I/O)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from toolfuzz_gate.core.campaign.run_defaults import DEFAULT_SEED
from toolfuzz_gate.core.schema.dialects import DIALECTS
from toolfuzz_gate.core.schema.options import DRAFT_2020_12, DRAFTS
from toolfuzz_gate.errors import UsageError

ORACLE_CHOICES = ("auto", "jsonschema", "jsonschema-rs")
DIALECT_HELP = "read non-standard schemas: " + ", ".join(DIALECTS) + " (rewrites go in the receipt)"


class Parser(argparse.ArgumentParser):
    """Raises `UsageError` instead of printing and exiting, so `run` picks the exit code."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"see `{self.prog} --help`")


class Once(argparse.Action):
    """A flag that may be given at most once."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        if getattr(namespace, f"_seen_{self.dest}", False):
            raise UsageError(f"{option} was given twice", hint="give each flag once")
        setattr(namespace, f"_seen_{self.dest}", True)
        setattr(namespace, self.dest, values)


class OnceSwitch(Once):
    """An on/off switch that may be given at most once."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option: str | None = None) -> None:
        super().__call__(parser, namespace, True, option)


def add_campaign_flags(parser: argparse.ArgumentParser, runs: int) -> None:
    """How a campaign runs (seed, runs, cases log, oracle, schema reading, diagnostics): the
    same for `run` and `fuzz`, whose default `runs` differ."""
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, action=Once)
    parser.add_argument("--runs", type=int, default=runs, action=Once, help="valid cases per seed")
    parser.add_argument("--cases", type=Path, action=Once, help="write every case as JSON lines")
    parser.add_argument("--oracle", choices=ORACLE_CHOICES, default="auto", action=Once)
    add_schema_reading(parser)
    parser.add_argument(
        "--diagnostics",
        action="store_true",
        help="add durations and host to receipts (unhashed; makes files differ run to run)",
    )


def add_schema_reading(parser: argparse.ArgumentParser) -> None:
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


def add_fingerprint_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fingerprint",
        action="append",
        default=[],
        metavar="F",
        help="only this counterexample (repeatable)",
    )
