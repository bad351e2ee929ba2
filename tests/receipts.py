"""Receipts for tests: hand-made documents completed and sealed, and read back as typed
`Receipt`s through the one reader (`core.campaign.receipt_read`).

A test states only the members it is about; `complete` fills the rest with empty values of
the right shape (and each counterexample's too), so what a test leaves out cannot change
its outcome.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.campaign.receipt import FORMAT, Receipt, receipt_hash
from toolfuzz_gate.core.campaign.receipt_read import read_receipt
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

TOP: JSONObject = {
    "tool": "t",
    "seed": 41,
    "runs": 24,
    "schemaDigest": "d0",
    "handler": {"spec": "builtin:renderPoster"},
    "engine": {"name": "toolfuzz-gate", "version": "0.0.0"},
    "limits": {},
    "coverage": {},
    "mutationCounts": {},
    "invariants": {},
    "unsupported": [],
    "counterexamples": [],
    "underSpecified": [],
    "replayCommand": "toolfuzz-gate run",
}
COUNTEREXAMPLE: JSONObject = {
    "failure": "crash",
    "cause": "",
    "path": "",
    "mutation": "valid",
    "keyword": "",
    "inputKind": "valid",
    "operator": "valid",
    "input": {},
    "originalInput": {},
    "sizes": [],
    "error": {},
    "flaky": False,
    "suggestion": None,
    "replay": {"seed": 41, "runs": 24, "stream": "valid", "case": 0},
}


def fingerprint_of(label: str) -> str:
    """A fingerprint of the engine's form (24 hex digits) for a short test label."""
    return hashlib.sha256(label.encode()).hexdigest()[:24]


REACH: JSONObject = {
    "valid": dict.fromkeys(
        ("calls", "reached", "rejected", "errorAnswers", "crashed", "timedOut"), 0
    ),
    "hostile": dict.fromkeys(
        ("calls", "rejected", "accepted", "errorAnswers", "rejectedForSchema", "answeredAsValid"),
        0,
    ),
    "commonest": None,
    "errorAnswer": None,
}
"""A reach ledger of no calls."""
CAMPAIGN: JSONObject = {
    "schemaReading": {
        "draft": "2020-12",
        "formatAssertion": False,
        "recursive": False,
        "recursionDepth": None,
    },
    "reach": REACH,
    "saturation": {"window": 0},
    "replaySample": {},
    "casesDigest": "",
    "boundaries": None,
    "probes": [],
    "dictionary": {},
}
"""A campaign's members, filled in when a test states one of them."""


def complete(partial: Mapping[str, Any]) -> dict[str, Any]:
    """`partial` with every member it leaves out, and each counterexample completed."""
    document: dict[str, Any] = {**TOP, **partial}
    if CAMPAIGN.keys() & partial.keys():
        document = {**CAMPAIGN, **document}
    for member in ("counterexamples", "underSpecified"):
        listed = document[member]
        if isinstance(listed, list) and all(isinstance(cx, dict) for cx in listed):
            document[member] = [{**COUNTEREXAMPLE, **cx} for cx in listed]
    return document


def sealed(body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` as a receipt file holds it: with its format and its hash."""
    document: dict[str, Any] = {"format": FORMAT, **body}
    document["receiptHash"] = receipt_hash(document)
    return document


def typed(partial: Mapping[str, Any]) -> Receipt:
    """The `Receipt` a completed `partial` reads as."""
    return read_receipt(sealed(complete(partial)))
