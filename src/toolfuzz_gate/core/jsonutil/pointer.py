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


MISSING = object()
"""What `member_at` returns when nothing is at the pointer."""


def member_at(document: object, pointer: str) -> object:
    """The value at `pointer`, reading every token as an object member's name (`MISSING`
    when a member is absent or a value on the way is not an object)."""
    found = document
    for token in split(pointer):
        if not isinstance(found, dict) or token not in found:
            return MISSING
        found = found[token]
    return found


def with_member(document: object, pointer: str, value: object) -> object:
    """A copy of `document` with `value` at `pointer`, each token an object member's name;
    a member on the way that is absent, or not an object, becomes an object."""
    tokens = split(pointer)
    if not tokens:
        return value
    head, rest = tokens[0], join("", *tokens[1:])
    parent = dict(document) if isinstance(document, dict) else {}
    parent[head] = value if not rest else with_member(parent.get(head), rest, value)
    return parent
