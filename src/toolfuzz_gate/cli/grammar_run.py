"""The grammar of `run`: the built-in contract, or every tool of a policy with its baseline,
shards, tool choice and jobs (no I/O)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolfuzz_gate.app.jobs import DEFAULT_MOST, MAX_JOBS
from toolfuzz_gate.cli.flags import Once, add_campaign_flags
from toolfuzz_gate.core.campaign.run_defaults import BUILTIN_RUNS, DEFAULT_OUT


def add_run_parser(commands: Any) -> None:
    run = commands.add_parser(
        "run",
        help="fuzz every tool of a policy (--policy), or the built-in renderPoster contract",
        description="With --policy FILE: every tool the policy names, one receipt per tool and "
        "seed plus summary.json in --out; --seed, --runs, --format-assertion and "
        "--default-draft given here override the policy's values.",
    )
    add_campaign_flags(run, BUILTIN_RUNS)
    run.add_argument("--out", type=Path, default=Path(DEFAULT_OUT), action=Once)
    run.add_argument("--policy", type=Path, action=Once, metavar="FILE", help="a YAML policy")
    run.add_argument(
        "--root",
        type=Path,
        action=Once,
        metavar="DIR",
        help="the repository root policy paths resolve against (default: the git top level "
        "above the policy, else its directory)",
    )
    _baseline_flags(run)
    _shard_flags(run)
    _tool_choice_flags(run)
    run.add_argument(
        "--jobs",
        type=int,
        action=Once,
        metavar="N",
        help="with --policy: fuzz up to N independent tools, and the base beside the head, "
        f"at the same time (1..{MAX_JOBS}; default: the CPUs, at most {DEFAULT_MOST}); "
        "receipts are the same whatever N",
    )


def _baseline_flags(run: Any) -> None:
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


def _shard_flags(run: Any) -> None:
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


def _tool_choice_flags(run: Any) -> None:
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
