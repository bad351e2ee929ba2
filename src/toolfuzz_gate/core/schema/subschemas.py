"""Where a JSON Schema document holds subschemas, as the standard spells them (pure).

Read by the passes that look at every schema object without compiling it (dialect
rewriting, documentation lint). The keyword table says where each supported applicator
holds schemas (`Keyword.subschemas`); the standard applicators the compiler refuses are
listed here (`REFUSED`). It never looks inside values (`enum`, `const`, `default`,
`examples`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.schema.keywords import KEYWORDS
from toolfuzz_gate.core.schema.keywords.keyword import (
    SCHEMA,
    SCHEMA_LIST,
    SCHEMA_MAP,
    SCHEMA_OR_LIST,
)

REFUSED: dict[str, str] = {"unevaluatedProperties": SCHEMA, "unevaluatedItems": SCHEMA}
"""Standard applicators the compiler refuses, so not in the keyword table: walked all the same,
so that a dialect's rewrites and the lint reach inside them."""
FIRST = (
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "allOf",
    "anyOf",
    "oneOf",
    "prefixItems",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "items",
    "contains",
    "propertyNames",
    "not",
)
"""The order the walk visits these keywords' schemas in, as it always has (a receipt lists a
dialect's rewrites in walk order); every other applicator follows, in table order."""
APPLICATORS: tuple[tuple[str, str], ...] = tuple(
    sorted(
        {
            **REFUSED,
            **{n: k.subschemas for n, k in KEYWORDS.items() if k.subschemas is not None},
        }.items(),
        key=lambda entry: FIRST.index(entry[0]) if entry[0] in FIRST else len(FIRST),
    )
)
"""(keyword, how its argument holds schemas): `Keyword.subschemas`, and `REFUSED`."""
MAX_OBJECTS = 20_000
"""How many schema objects one walk visits at most: bounded work on untrusted files."""


def _children(node: dict[str, Any], where: str) -> Iterator[tuple[str, Any]]:
    for name, shape in APPLICATORS:
        child = node.get(name)
        if shape == SCHEMA_MAP and isinstance(child, dict):
            for key, member in child.items():
                yield jp.join(where, name, key), member
        elif shape in (SCHEMA_LIST, SCHEMA_OR_LIST) and isinstance(child, list):
            for index, member in enumerate(child):
                yield jp.join(where, name, index), member
        elif shape in (SCHEMA, SCHEMA_OR_LIST) and child is not None:
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
