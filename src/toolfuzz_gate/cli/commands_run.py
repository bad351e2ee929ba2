"""`run` and `fuzz` as requests: the parsed flags turned into `app.requests`, and the checks
that need nothing but the flags (which flags go together)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import replace

from toolfuzz_gate.app.front_doors import HANDLER_FLAGS
from toolfuzz_gate.app.jobs import MAX_JOBS
from toolfuzz_gate.app.requests import (
    BaselineRequest,
    BuiltinRunRequest,
    FuzzRequest,
    PolicyRunRequest,
    RunOverrides,
    ShardRequest,
)
from toolfuzz_gate.cli.grammar_fuzz import KIND_DESTS
from toolfuzz_gate.cli.parser import build_parser, split_tail
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig
from toolfuzz_gate.core.gate.sharding import parse_shard
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.errors import UsageError

RunRequest = BuiltinRunRequest | PolicyRunRequest | BaselineRequest | ShardRequest


def build_run_request(
    args: argparse.Namespace, argv: Sequence[str], environ: Mapping[str, str]
) -> RunRequest:
    """`run`: the built-in contract, or with `--policy` a policy run, with a base or a shard."""
    if args.policy is None:
        for flag, given in (
            ("--root", args.root),
            ("--baseline", args.baseline),
            ("--baseline-dir", args.baseline_dir),
            ("--shard", args.shard),
            ("--jobs", args.jobs),
            ("--shard-costs", args.shard_costs),
        ):
            if given is not None:
                raise UsageError(f"{flag} goes with --policy")
        for flag, names in (("--tool", args.tools), ("--exclude-tool", args.exclude_tools)):
            if names:
                raise UsageError(f"{flag} goes with --policy")
        return _builtin_run(args, argv)
    if args.cases is not None:
        raise UsageError("--cases goes with one tool (fuzz), not with --policy")
    if args.jobs is not None and not 1 <= args.jobs <= MAX_JOBS:
        raise UsageError(f"--jobs {args.jobs} is outside 1..{MAX_JOBS}")
    if args.baseline is not None and args.baseline_dir is not None:
        raise UsageError("--baseline and --baseline-dir conflict: name one base")
    shard = None if args.shard is None else parse_shard(args.shard)
    if shard is None and args.shard_costs is not None:
        raise UsageError("--shard-costs goes with --shard")
    if shard is not None and (args.baseline is not None or args.baseline_dir is not None):
        raise UsageError(
            "--shard runs part of the tools, so it cannot diff against a base",
            hint="give --baseline-dir DIR to `toolfuzz-gate merge` instead: it diffs the "
            "merged receipts",
        )
    run = replace(_policy_run(args, argv), environ=environ)
    if shard is not None:
        return ShardRequest(run, shard, args.shard_costs)
    if args.baseline is not None or args.baseline_dir is not None:
        return BaselineRequest(run, args.baseline, args.baseline_dir)
    return run


def _policy_run(args: argparse.Namespace, argv: Sequence[str]) -> PolicyRunRequest:
    return PolicyRunRequest(
        policy=args.policy,
        out=args.out,
        root=args.root,
        overrides=RunOverrides(
            seed=args.seed if getattr(args, "_seen_seed", False) else None,
            runs=args.runs if getattr(args, "_seen_runs", False) else None,
            format_assertion=args.format_assertion,
            default_draft=(
                args.default_draft if getattr(args, "_seen_default_draft", False) else None
            ),
            tools=tuple(args.tools),
            exclude_tools=tuple(args.exclude_tools),
        ),
        oracle=args.oracle,
        diagnostics=args.diagnostics,
        argv=tuple(argv),
        jobs=args.jobs,
    )


def _builtin_run(args: argparse.Namespace, argv: Sequence[str]) -> BuiltinRunRequest:
    return BuiltinRunRequest(
        config=_fuzz_config(args),
        out=args.out,
        cases=args.cases,
        diagnostics=args.diagnostics,
        argv=tuple(argv),
    )


def build_fuzz_request(
    args: argparse.Namespace, argv: Sequence[str], tail: Sequence[str]
) -> FuzzRequest:
    """`fuzz`; `tail` is the command after `--`."""
    given = {
        flag: getattr(args, KIND_DESTS.get(flag, flag[2:].replace("-", "_")))
        for flag in HANDLER_FLAGS
    }
    return FuzzRequest(
        config=FuzzConfig(
            args.seed,
            args.runs,
            oracle=args.oracle,
            options=schema_options(args),
            dialect=args.dialect,
        ),
        handler={
            flag: value
            for flag, value in given.items()
            if value is not None and value is not False and value != []
        },
        command=tuple(tail),
        timeout_ms=args.timeout_ms,
        schema=args.schema,
        tools=args.tools,
        model=args.model,
        tool=args.tool,
        expected_rejections=tuple(args.expected_rejection),
        error_codes=args.error_codes,
        rejection_code=args.rejection_code,
        dry_run=args.dry_run,
        exclude_tools=tuple(args.exclude_tools),
        fixed_arguments=tuple(args.fixed_arguments),
        deterministic=args.deterministic,
        strict=args.strict,
        allow_unreached=args.allow_unreached,
        receipt=args.receipt,
        out=args.out,
        cases=args.cases,
        diagnostics=args.diagnostics,
        argv=tuple(argv),
    )


def _fuzz_config(args: argparse.Namespace) -> FuzzConfig:
    return FuzzConfig(args.seed, args.runs, oracle=args.oracle, options=schema_options(args))


def schema_options(args: argparse.Namespace) -> SchemaOptions:
    return SchemaOptions(default_draft=args.default_draft, format_assertion=args.format_assertion)


def read_command(words: Sequence[str]) -> PolicyRunRequest | BuiltinRunRequest | FuzzRequest | None:
    """A receipt's replayCommand (the words after `toolfuzz-gate`) read back: the run or
    fuzz request it made, None for a command that fuzzes nothing. Only the grammar is
    applied, not which flags go together: replay wants the handler the words name."""
    head, tail = split_tail(words)
    args = build_parser().parse_args(head)
    if args.command == "run":
        return _builtin_run(args, words) if args.policy is None else _policy_run(args, words)
    if args.command == "fuzz":
        return build_fuzz_request(args, words, tail)
    return None
