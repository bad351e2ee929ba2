"""Where a SARIF result points: a repo-relative file as a URI reference and a line (pure)."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.report.context import Location
from toolfuzz_gate.core.report.untrusted import field

_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")


def uri(path: str) -> str:
    """A repo-relative path as a URI reference: unreserved bytes kept, the rest %-encoded."""
    relative = path[2:] if path.startswith("./") else path
    data = relative.lstrip("/").encode("utf-8", errors="replace")
    return "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in data)


def location(where: Location) -> list[dict[str, Any]]:
    return [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": uri(field(where.file, 1000))},
                "region": {"startLine": max(where.line, 1)},
            }
        }
    ]
