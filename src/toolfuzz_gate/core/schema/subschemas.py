"""Where a JSON Schema document holds subschemas, as the standard spells them (pure).

Read by the passes that look at every schema object without compiling it (dialect
rewriting, documentation lint). It knows every standard applicator, supported by the
compiler or not, and never looks inside values (`enum`, `const`, `default`, `examples`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp

SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_SINGLES = (
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
MAX_OBJECTS = 20_000
"""How many schema objects one walk visits at most: bounded work on untrusted files."""


def _children(node: dict[str, Any], where: str) -> Iterator[tuple[str, Any]]:
    for name in SCHEMA_MAPS:
        members = node.get(name)
        if isinstance(members, dict):
            for key, child in members.items():
                yield jp.join(where, name, key), child
    for name in SCHEMA_LISTS:
        members = node.get(name)
        if isinstance(members, list):
            for index, child in enumerate(members):
                yield jp.join(where, name, index), child
    for name in SCHEMA_SINGLES:
        child = node.get(name)
        if isinstance(child, list) and name == "items":  # draft-07 tuple form
            for index, member in enumerate(child):
                yield jp.join(where, name, index), member
        elif child is not None:
            yield jp.join(where, name), child


def iter_schema_objects(document: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer, object) for every schema object, parents before children, in document order.

    A consumer may change the keys of the object it was just given before asking for the
    next one: children are read only after that (boolean schemas have no keys to visit).
    """
    stack: list[tuple[str, Any]] = [(where, document)]
    visited = 0
    while stack and visited < MAX_OBJECTS:
        here, node = stack.pop()
        if not isinstance(node, dict):
            continue
        visited += 1
        yield here, node
        stack.extend(reversed(list(_children(node, here))))
