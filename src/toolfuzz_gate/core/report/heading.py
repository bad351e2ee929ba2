"""The PR comment's heading lines: which commits and seeds, and the totals (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.groups import is_grouped
from toolfuzz_gate.core.report.untrusted import markdown_text


def provenance(diff: Mapping[str, Any], context: ReportContext) -> str:
    def sha(value: str | None, side: str) -> str:
        if not value:
            found = diff.get(side)
            full = found.get("sha") if isinstance(found, Mapping) else None
            value = full[:7] if isinstance(full, str) else None
        return markdown_text(value, 40) if value else "unknown"

    seeds = ", ".join(str(s) for s in context.seeds) or "unknown"
    label = "seeds" if len(context.seeds) > 1 else "seed"
    base, head = sha(context.base_sha, "base"), sha(context.head_sha, "head")
    return f"**base** {base} \u00b7 **head** {head} \u00b7 **{label}** {seeds}"


def _count(diff: Mapping[str, Any], name: str) -> int:
    totals = diff.get("totals")
    value = totals.get(name) if isinstance(totals, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def totals_line(diff: Mapping[str, Any]) -> str:
    names = (
        ("new", "new"),
        ("fixed", "fixed"),
        ("stillFailing", "still failing"),
        ("unsupportedAdded", "unsupported keywords added"),
        ("unsupportedRemoved", "unsupported keywords removed"),
        ("toolsAdded", "tools added"),
        ("toolsRemoved", "tools removed"),
        ("coverageDrops", "coverage drops"),
        ("refusedNew", "tools newly refused"),
        ("notRunOnHead", "not run on head"),
    )
    shown = [f"{_count(diff, key)} {label}" for key, label in names if _count(diff, key)]
    if _count(diff, "new") and is_grouped(diff):
        groups = _count(diff, "newGroups")
        shown[0] += f" ({groups} root cause{'' if groups == 1 else 's'})"
    return " \u00b7 ".join(shown) or "no change against the base"
