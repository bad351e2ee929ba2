"""What every check of the verdict shares: its inputs' and answers' shapes, and per-tool
counts as its reasons word them (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Receipts = Sequence[dict[str, Any]]
Outcome = tuple[list[str], list[str]]
"""(reasons the gate fails, notes)."""


def counted(label: str, per_tool: dict[str, int]) -> str:
    """`label: 3 in a (1), b (2)`."""
    total = sum(per_tool.values())
    tools = ", ".join(f"{tool} ({count})" for tool, count in sorted(per_tool.items()))
    return f"{label}: {total} in {tools}"


def tally(items: Sequence[tuple[str, int]]) -> dict[str, int]:
    """(tool, count) pairs summed per tool, tools with nothing left out."""
    per_tool: dict[str, int] = {}
    for tool, count in items:
        if count:
            per_tool[tool] = per_tool.get(tool, 0) + count
    return per_tool
