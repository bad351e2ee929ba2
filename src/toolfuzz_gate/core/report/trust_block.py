"""The comment's "policy changed" block: what the pull request changed that the gate did
not take from it (its own rules, a cassette, the base's dependencies), first in the
comment, so a reviewer reads it before the verdict's details (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.report.untrusted import markdown_text

MAX_LINES = 20
HEADING = (
    "**Policy changed by this pull request.** The base's rules judge it: what it weakens "
    "takes effect once merged."
)


def render_trust_block(lines: Sequence[str]) -> list[str]:
    """The block's Markdown as one part (none without lines); each line is untrusted text
    (tool and check names come from the pull request)."""
    if not lines:
        return []
    shown = [f"- {markdown_text(line)}" for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        shown.append(f"- \u2026 {len(lines) - MAX_LINES} more")
    return [HEADING + "\n" + "\n".join(shown)]
