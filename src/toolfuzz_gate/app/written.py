"""What a run wrote: one receipt each and the file it went into, and `summary.json`
(`toolfuzz-summary/1`) over them, one shape for every run: the verdict, its reasons, the
counts and each receipt (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.verdict import Verdict
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
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


def build_summary(verdict: Verdict, written: Sequence[Written]) -> JSONObject:
    """`toolfuzz-summary/1`: the verdict, counts, and per receipt its coverage and findings."""
    ordered = sorted(written, key=lambda item: (item.receipt.tool, item.file))
    tools: list[JSON] = []
    for item in ordered:
        receipt = item.receipt
        findings: list[JSON] = [
            {"fingerprint": c.fingerprint, "failure": c.failure, "path": c.path}
            for c in receipt.counterexamples
        ]
        tools.append(
            {
                "tool": receipt.tool,
                "seed": receipt.seed,
                "receipt": item.file,
                "receiptHash": receipt.receipt_hash,
                "refused": item.refused,
                "counterexamples": len(findings),
                "underSpecified": len(receipt.under_specified),
                "coverage": dict[str, JSON](receipt.coverage),
                "findings": findings,
                "unsupported": [u.as_json() for u in receipt.unsupported],
                "refusal": [r.as_json() for r in receipt.reasons],
            }
        )
    counterexamples = sum(len(item.receipt.counterexamples) for item in written)
    unsupported = sum(len(item.receipt.unsupported) for item in written)
    return {
        "format": "toolfuzz-summary/1",
        "verdict": "failed" if verdict.failed else "passed",
        "reasons": list(verdict.reasons),
        "counts": {
            "tools": len({item.receipt.tool for item in written}),
            "receipts": len(written),
            "counterexamples": counterexamples,
            "underSpecified": sum(len(item.receipt.under_specified) for item in written),
            "refused": sum(1 for item in written if item.refused),
            "unsupported": unsupported,
        },
        "tools": tools,
    }
