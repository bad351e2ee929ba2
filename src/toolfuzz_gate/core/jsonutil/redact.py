"""Make recorded values safe and small for receipts people share (pure).

Credential-looking substrings are masked; a string longer than the display
limit is kept as its length, digest and a short head (the receipt's `replay`
member says how to regenerate it exactly); lone surrogates, which cannot be
written as UTF-8, become U+FFFD.
"""

from __future__ import annotations

import hashlib
import re

from toolfuzz_gate.core.jsonutil.canonical import JSON

DISPLAY_LIMIT = 256
HEAD = 32
MASK = "***"
ELIDED = "$elided"

SECRET = re.compile(
    r"(?:gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|sk-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}=*)"
)
SURROGATE = re.compile("[\ud800-\udfff]")
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def mask_text(text: str) -> str:
    return SECRET.sub(MASK, SURROGATE.sub("\ufffd", text))


def bounded_message(text: str, limit: int = 300) -> str:
    """A handler's message as recorded: masked, memory addresses folded, capped."""
    cleaned = ADDRESS.sub("0x…", mask_text(text))
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def present(value: JSON, limit: int = DISPLAY_LIMIT) -> JSON:
    """`value` as a receipt records it."""
    if isinstance(value, str):
        masked = mask_text(value)
        if len(masked) <= limit:
            return masked
        raw = value.encode("utf-8", errors="surrogatepass")
        return {
            ELIDED: {
                "length": len(value),
                "sha256": hashlib.sha256(raw).hexdigest(),
                "head": masked[:HEAD],
            }
        }
    if isinstance(value, dict):
        return {mask_text(k)[:limit]: present(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [present(v, limit) for v in value]
    return value


def is_complete(value: JSON) -> bool:
    """True when `present` elided nothing. (A masked credential still changes the value:
    compare `present(v) == v` to know whether a recorded value is the original.)"""
    if isinstance(value, dict):
        if set(value) == {ELIDED}:
            return False
        return all(is_complete(v) for v in value.values())
    if isinstance(value, list):
        return all(is_complete(v) for v in value)
    return True
