"""Canonical JSON: the one encoding used for digests and receipts (pure)."""

from __future__ import annotations

import hashlib
import json
from typing import Any, TypeAlias

JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"
JSONObject: TypeAlias = "dict[str, JSON]"


def canonical_compact(value: Any) -> str:
    """Sorted keys, no spaces, ASCII-escaped: stable across platforms, used for digests."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical_document(value: Any) -> bytes:
    """The on-disk form of receipts: sorted keys, indented, UTF-8, trailing newline."""
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8", errors="surrogatepass")


def digest(value: Any) -> str:
    """sha256 of the compact canonical encoding, hex."""
    return hashlib.sha256(canonical_compact(value).encode("ascii")).hexdigest()


def json_size(value: Any) -> int:
    """Length of the compact canonical encoding: the shrinker's size measure."""
    return len(canonical_compact(value))
