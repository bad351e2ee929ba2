"""JSON Pointer (RFC 6901) building and resolving (pure)."""

from __future__ import annotations

from collections.abc import Iterable


def escape(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def join(base: str, *tokens: str | int) -> str:
    """`join("/properties", "a/b")` is `"/properties/a~1b"`."""
    return base + "".join("/" + escape(t) for t in tokens)


def from_parts(parts: Iterable[str | int]) -> str:
    return join("", *parts)


def split(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {pointer!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]
