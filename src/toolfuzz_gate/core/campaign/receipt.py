"""The receipt: one canonical, hashed JSON document per tool and run (pure).

The hash covers everything but `receiptHash` itself and `diagnostics`
(durations, host), so the same seed, schema and engine version give the same
hash, and byte-identical files, whatever machine or moment produced them.
"""

from __future__ import annotations

import hashlib
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_document

FORMAT = "toolfuzz-receipt/1"
UNHASHED = ("receiptHash", "diagnostics")
REQUIRED = (
    "format",
    "tool",
    "seed",
    "runs",
    "schemaDigest",
    "handler",
    "engine",
    "limits",
    "coverage",
    "mutationCounts",
    "invariants",
    "unsupported",
    "counterexamples",
    "replayCommand",
    "receiptHash",
)


def receipt_hash(receipt: JSONObject) -> str:
    body = {k: v for k, v in receipt.items() if k not in UNHASHED}
    return hashlib.sha256(canonical_document(body)).hexdigest()


def seal(body: JSONObject, diagnostics: JSONObject | None = None) -> JSONObject:
    """`body` with its `receiptHash` (and the unhashed diagnostics) added."""
    sealed: dict[str, Any] = {"format": FORMAT, **body}
    sealed["receiptHash"] = receipt_hash(sealed)
    if diagnostics is not None:
        sealed["diagnostics"] = diagnostics
    return sealed


def problems(receipt: Any) -> list[str]:
    """What is wrong with a document claiming to be a receipt; empty when sound."""
    if not isinstance(receipt, dict):
        return ["a receipt is a JSON object"]
    found = [f"missing member {name!r}" for name in REQUIRED if name not in receipt]
    if receipt.get("format") != FORMAT:
        found.append(f"format is not {FORMAT!r}")
    if not found and receipt_hash(receipt) != receipt.get("receiptHash"):
        found.append("receiptHash does not match the content (edited or corrupted)")
    return found
