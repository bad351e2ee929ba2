"""Canonical JSON: the one encoding used for digests and receipts (pure)."""

from __future__ import annotations

import hashlib
import json
from typing import Any, TypeAlias

from toolfuzz_gate.core.jsonutil.pointer import without_members

JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"
JSONObject: TypeAlias = "dict[str, JSON]"


# One encoder each, made once: `json.dumps` with options builds a new encoder per call,
# which costs more than encoding a small value. The hot encoders skip the circular-reference
# check: a JSON value is a tree, and the check costs about 7% of a small encoding.
_COMPACT = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), allow_nan=False, check_circular=False
)
_DOCUMENT = json.JSONEncoder(sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)


def canonical_compact(value: Any) -> str:
    """Sorted keys, no spaces, ASCII-escaped: stable across platforms, used for digests."""
    return _COMPACT.encode(value)


_ORDERED = json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False)


def ordered_compact(value: Any) -> str:
    """Compact and ASCII-escaped like `canonical_compact`, but in the value's own key
    order: for values whose order is itself deterministic, such as generated cases."""
    return _ORDERED.encode(value)


def canonical_document(value: Any) -> bytes:
    """The on-disk form of receipts: sorted keys, indented, UTF-8, trailing newline."""
    return (_DOCUMENT.encode(value) + "\n").encode("utf-8", errors="surrogatepass")


def digest(value: Any) -> str:
    """sha256 of the compact canonical encoding, hex."""
    return hashlib.sha256(canonical_compact(value).encode("ascii")).hexdigest()


def digest_and_size(value: Any, ignore: tuple[str, ...] = ()) -> tuple[str, int]:
    """`digest(value)` and the length of its encoding, encoding once. With `ignore` (JSON
    Pointers), the digest is of `value` without those members; the length is the whole's."""
    text = canonical_compact(value)
    if ignore:
        return digest(without_members(value, ignore)), len(text)
    return hashlib.sha256(text.encode("ascii")).hexdigest(), len(text)


def json_size(value: Any) -> int:
    """Length of the compact canonical encoding: the shrinker's size measure."""
    return len(canonical_compact(value))
