"""`summary.json` (`toolfuzz-summary/1`), one shape for every run: the verdict, its reasons,
the counts and each receipt; and the verdict of a run without a policy."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.policy import ANY_TOOL, GateRules
from toolfuzz_gate.core.gate.verdict import Verdict, decide
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.exitcodes import ExitCode


def gate_without_base(
    written: list[Written], directory: Path | None, out: TextIO, *, allow_unreached: bool
) -> ExitCode:
    """The verdict of a run without a policy (`fuzz`, `run` on the built-in contract)
    under the default gate rules: any counterexample fails, and so do any refusal (there
    is no base for a refusal to be old against) and a tool no valid call got past. Its
    `summary.json` goes into `directory` (None: none, as with `fuzz --receipt`)."""
    rules = GateRules(allow_unreached=(ANY_TOOL,) if allow_unreached else ())
    verdict = decide(rules, [item.receipt for item in written], None)
    if directory is not None:
        summary = build_summary(verdict, written)
        summary["regressions"] = []
        write_document(directory / "summary.json", summary)
    for reason in verdict.reasons:  # why it failed (a tool unreached, say), as `run` says
        print(f"  - {reason}", file=out)
    print(f"gate: {'FAILED' if verdict.failed else 'passed'}", file=out)
    return ExitCode.FAILED if verdict.failed else ExitCode.PASSED


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
