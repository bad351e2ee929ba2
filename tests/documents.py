"""Tests read receipts, reports and other JSON documents by key and index, and the assertions
that read them check their shape; `doc` tells the type checker so, in one place."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.campaign.receipt import Receipt


def doc(value: object) -> Any:
    """`value`, a JSON document, to be read by key and index (a `Receipt` as its file holds
    it: what the campaign wrote is what these tests check)."""
    return value.document() if isinstance(value, Receipt) else value
