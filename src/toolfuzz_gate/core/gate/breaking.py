"""`fail_on: [breaking-change]`: the verdict on the diff's interface changes (pure).

Off by default (a breaking change is often intended); when listed, each breaking entry of
the diff's `interface` fails the gate, but those of the tools an `allow-breaking` item
names, which are noted instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

BREAKING_CHANGE = "breaking-change"


def breaking_changes(
    allowed: Sequence[str], diff: dict[str, Any] | None
) -> tuple[list[str], list[str]]:
    """(reasons the gate fails, notes) for the diff's breaking interface changes."""
    if diff is None:
        return [], [f"{BREAKING_CHANGE}: no baseline, no interface compared"]
    entries = [e for e in diff.get("interface", []) if e.get("breaking") is True]
    failing: dict[str, list[str]] = {}
    accepted: dict[str, list[str]] = {}
    for entry in entries:
        tool = str(entry["tool"])
        held = accepted if tool in allowed else failing
        held.setdefault(tool, []).append(str(entry["change"]))
    failed = []
    if failing:
        count = sum(len(codes) for codes in failing.values())
        failed.append(
            f"{BREAKING_CHANGE}: {count} breaking interface change(s): {_listed(failing)}"
        )
    notes = []
    if accepted:
        notes.append(f"{BREAKING_CHANGE}: accepted by allow-breaking: {_listed(accepted)}")
    return failed, notes


def allowed_breaking(fail_on: Sequence[Any]) -> tuple[str, ...]:
    """The tools the `allow-breaking` items of a policy's `fail_on` name, sorted."""
    return tuple(
        sorted(
            str(tool)
            for item in fail_on
            if isinstance(item, dict)
            for tool in item.get("allow-breaking", ())
        )
    )


def _listed(per_tool: dict[str, list[str]]) -> str:
    return "; ".join(f"{tool} ({', '.join(codes)})" for tool, codes in sorted(per_tool.items()))
