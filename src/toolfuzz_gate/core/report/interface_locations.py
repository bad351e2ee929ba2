"""Breaking interface changes where code scanning and the Actions log can point at them:
SARIF results and workflow annotations at the line of the schema or tools file that holds
the changed input schema (pure).

Only where the location is known: a tool whose schema the repository holds (a schema or
tools file; an MCP server's listing has no line), and a change inside its input schema.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from toolfuzz_gate.core.report.context import Location, ReportContext, refusal_location, text_of
from toolfuzz_gate.core.report.untrusted import field

BREAKING_RULE = "breaking-change"
BREAKING_TEXT = "A call valid for the base's interface can fail on head's."
INPUT = "/inputSchema"


def iter_located(
    diff: Mapping[str, Any], context: ReportContext
) -> Iterator[tuple[Location, str, str]]:
    """(location, message, fingerprint) of each breaking interface change whose line is
    known; the fingerprint is of the tool, pointer and change, never of values."""
    for entry in diff.get("interface", []):
        if not isinstance(entry, Mapping) or entry.get("breaking") is not True:
            continue
        tool, pointer = text_of(entry.get("tool")), text_of(entry.get("pointer"))
        if tool not in context.sources or not pointer.startswith(INPUT):
            continue
        inner = pointer[len(INPUT) :]
        where = refusal_location(context, {"tool": tool, "pointer": inner})
        identity = "\x1f".join(
            ("toolfuzz-interface/1", tool, pointer, text_of(entry.get("change")))
        )
        digest = hashlib.sha256(identity.encode("utf-8", errors="surrogatepass")).hexdigest()
        yield where, _message(entry), digest[:24]


def _message(entry: Mapping[str, Any]) -> str:
    tool, change = field(entry.get("tool", "")), field(entry.get("change", ""), 100)
    text = f"{tool}: {change} at {field(entry.get('pointer') or '(tool)')}"
    found = entry.get("evidence")
    if isinstance(found, Mapping) and found.get("refused"):
        refused, total = found.get("refused"), found.get("of")
        text += f"; head's schema refuses {refused} of the base's {total} valid calls"
    return text
