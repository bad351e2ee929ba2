"""`summary.json` (`toolfuzz-summary/1`), one shape for every run: the verdict, its reasons,
the counts and each receipt."""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.verdict import Verdict
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject


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
