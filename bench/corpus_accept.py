"""The corpus report's handler for its tools-file runs: accepts every call (bench helper)."""

from __future__ import annotations

from typing import Any


def accept(**arguments: Any) -> dict[str, bool]:
    return {"ok": True}
