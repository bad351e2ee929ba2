"""Root causes on the console: one line per group, and the reach callouts (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.core.report.groups import group_reason, groups_of

SHOWN = 20
"""Groups listed per kind; the receipts hold the rest."""


def _listed(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def render_causes(diff: Mapping[str, Any]) -> list[str]:
    """`root causes: N counterexamples in G groups`, a line per group (new ones first),
    then each tool no valid call got past and each server answering rejections as
    successes. Nothing for a run without counterexamples or callouts."""
    lines: list[str] = []
    for item in _listed(diff.get("unreached")):
        what = item.get("said") or item.get("cause") or item.get("outcome")
        lines.append(
            f"unreached: {item.get('tool')} never got past: {bounded_message(str(what), 160)}"
            f" ({item.get('count')} of {item.get('calls')} valid calls)"
        )
    for item in _listed(diff.get("answering")):
        tools = ", ".join(str(t) for t in item.get("tools", []))
        said = bounded_message(str(item.get("said") or ""), 160)
        lines.append(
            f"rejection-as-success: {item.get('server')} answers rejections as successes"
            f" ({tools}){': ' + said if said else ''}; declare rejection_answer to read them"
        )
    kinds = (("new", "new"), ("stillFailing", "still failing"))
    groups = [(label, kind, g) for kind, label in kinds for g in groups_of(diff, kind)]
    if groups:
        count = sum(int(g.get("count", 0)) for _, _, g in groups)
        lines.append(f"root causes: {count} counterexample(s) in {len(groups)} group(s)")
    for label, kind, group in groups[:SHOWN]:
        names = [str(t) for t in group.get("tools", [])]
        where = ", ".join(names[:4]) + (f" +{len(names) - 4}" if len(names) > 4 else "")
        reason = bounded_message(group_reason(diff, kind, group), 160)
        lines.append(
            f"  [{label}] {group.get('failure')} x{group.get('count')} in {where}: {reason}"
        )
    if len(groups) > SHOWN:
        lines.append(f"  ... and {len(groups) - SHOWN} more groups in diff and receipts")
    return lines
