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


def without_members(document: object, pointers: Iterable[str]) -> object:
    """A copy of `document` with the member at each pointer removed (object members by
    name, array items by index); a pointer that reaches nothing removes nothing."""
    for pointer in pointers:
        document = _without(document, split(pointer))
    return document


def _without(document: object, tokens: list[str]) -> object:
    if not tokens:
        return document
    head, rest = tokens[0], tokens[1:]
    if isinstance(document, dict):
        if head not in document:
            return document
        if not rest:
            return {key: value for key, value in document.items() if key != head}
        return {**document, head: _without(document[head], rest)}
    if isinstance(document, list) and head.isdigit() and int(head) < len(document):
        index = int(head)
        if not rest:
            return document[:index] + document[index + 1 :]
        return [*document[:index], _without(document[index], rest), *document[index + 1 :]]
    return document
