"""The receipt's `replayCommand`: the words a run was started with, minus where its outputs go
(pure)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

OUTPUT_FLAGS = frozenset(
    {
        "--out",
        "--receipt",
        "--cases",
        "--baseline",
        "--baseline-dir",
        "--shard",
        "--shard-costs",
        "--jobs",
    }
)
"""Flags that say where results go, what they are compared with, or which CI job runs which
part (`--shard`, `--shard-costs`: a receipt is the same whichever shard wrote it; `--jobs`:
the same however many tools ran at once), not what is run."""


def build_replay_command(argv: Sequence[str]) -> str:
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
