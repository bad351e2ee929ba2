"""What a run wrote: one receipt each, and the file it went into (pure data)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.report.context import SchemaSource


@dataclass(frozen=True)
class Written:
    receipt: Receipt
    file: str
    refused: bool
    source: SchemaSource | None = None
    """Where the tool's schema lives in the repository, for reports (None: a server's)."""
    first: str | None = None
    """A stateful campaign's receipt: the receipt file of its server's first tool's unit
    (the shard that runs that unit runs the campaign); None: a tool's receipt."""


def receipt_name(tool: str, seed: int | None = None) -> str:
    """`NAME.json`, or `NAME.seed-N.json` when a tool runs under several seeds."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", tool)[:100] or "tool"
    return f"{safe}.json" if seed is None else f"{safe}.seed-{seed}.json"
