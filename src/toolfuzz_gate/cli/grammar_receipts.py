"""The grammar of the commands that read receipts: `diff`, `merge`, `promote` and `replay`
(no I/O)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolfuzz_gate.cli.flags import Once, add_fingerprint_flag


def add_diff_parser(commands: Any) -> None:
    compare = commands.add_parser(
        "diff",
        help="compare two receipt directories (base, head)",
        description="Counterexamples new / fixed / still failing (matched by fingerprint), "
        "unsupported keywords added / removed, coverage changes, flipped invariants, tools "
        "added or removed. Exit 0 when no counterexample, unsupported keyword or refusal is "
        "new and every base counterexample's tool ran on head, 1 otherwise, 2 when a "
        "directory or receipt cannot be read.",
    )
    compare.add_argument("base", type=Path, metavar="BASE_DIR")
    compare.add_argument("head", type=Path, metavar="HEAD_DIR")
    compare.add_argument("--format", choices=("json", "markdown"), default="json", action=Once)


def add_merge_parser(commands: Any) -> None:
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


def add_corpus_parsers(commands: Any) -> None:
    """`promote` and `replay`: the regression corpus."""
    promote = commands.add_parser(
        "promote",
        help="store a receipt's counterexamples as regression corpus cases",
        description="Writes CORPUS/<tool>/<fingerprint>.json per counterexample (all of them "
        "unless --fingerprint names some); re-promoting writes the same bytes. The corpus is "
        "the policy's `corpus:` directory (--policy) or --corpus DIR.",
    )
    promote.add_argument("receipt", type=Path, metavar="RECEIPT")
    add_fingerprint_flag(promote)
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
    add_fingerprint_flag(replay)
    replay.add_argument("--policy", type=Path, action=Once, metavar="FILE")
    replay.add_argument("--root", type=Path, action=Once, metavar="DIR")
