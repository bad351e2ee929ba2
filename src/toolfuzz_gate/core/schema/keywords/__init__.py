"""The registry of supported JSON Schema keywords: one entry each (pure).

Adding a keyword is one new `Keyword` here, with its parse, narrow, check and
recipes together, and, for an applicator, where it holds subschemas and how they
apply (`Keyword.subschemas`, `in_place`, `merged`, `branches`, `composes`): the
sets below are derived from those. The compiler refuses any keyword not in `KEYWORDS`. Nothing here
imports what reads this table (`conjoin`, `validate`, `object_keys`, the engine):
they hand each keyword what it needs (`keyword.Recurse`, `Merge`, `RecipeContext`).
"""

from __future__ import annotations

from toolfuzz_gate.core.schema.keywords import (
    arrays,
    compose,
    conditional,
    contains,
    formats,
    generic,
    items,
    keys,
    members,
    multiple,
    negation,
    numeric,
    objects,
    pattern,
    text,
    unique,
)
from toolfuzz_gate.core.schema.keywords.keyword import (
    INAPPLICABLE,
    INVALID,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    Recurse,
)

KEYWORDS: dict[str, Keyword] = {
    keyword.name: keyword
    for keyword in (
        generic.TYPE,
        generic.ENUM,
        generic.CONST,
        numeric.MINIMUM,
        numeric.MAXIMUM,
        numeric.EXCLUSIVE_MINIMUM,
        numeric.EXCLUSIVE_MAXIMUM,
        multiple.MULTIPLE_OF,
        text.MIN_LENGTH,
        text.MAX_LENGTH,
        pattern.PATTERN,
        formats.FORMAT,
        items.ITEMS,
        items.PREFIX_ITEMS,
        items.ADDITIONAL_ITEMS,
        arrays.MIN_ITEMS,
        arrays.MAX_ITEMS,
        unique.UNIQUE_ITEMS,
        contains.CONTAINS,
        contains.MIN_CONTAINS,
        contains.MAX_CONTAINS,
        objects.PROPERTIES,
        objects.REQUIRED,
        objects.ADDITIONAL_PROPERTIES,
        keys.PATTERN_PROPERTIES,
        keys.PROPERTY_NAMES,
        compose.ALL_OF,
        compose.ANY_OF,
        compose.ONE_OF,
        compose.REF,
        compose.DEFS,
        compose.DEFINITIONS,
        conditional.IF,
        conditional.THEN,
        conditional.ELSE,
        negation.NOT,
        members.MIN_PROPERTIES,
        members.MAX_PROPERTIES,
        members.DEPENDENT_REQUIRED,
        members.DEPENDENCIES,
        conditional.DEPENDENT_SCHEMAS,
        *(generic.annotation(name) for name in generic.ANNOTATIONS),
    )
}

FAMILIES: tuple[str, ...] = tuple(
    dict.fromkeys(k.family for k in KEYWORDS.values() if k.family is not None)
)
"""The hostile mutation families, in table order: the coverage ledger's rows."""

MERGED: frozenset[str] = frozenset(n for n, k in KEYWORDS.items() if k.merged)
"""Keywords whose schemas are merged into their node (`allOf`, `$ref`)."""
BRANCHING: tuple[str, ...] = tuple(n for n, k in KEYWORDS.items() if k.branches)
"""Keywords whose `Choice` is alternatives walked one by one (`anyOf`, `oneOf`)."""
COMPOSED: frozenset[str] = frozenset(
    n for n, k in KEYWORDS.items() if k.merged or k.branches or k.composes
)
"""Keywords whose generation merges schemas or rejects values: the compiler tries building
values for every node with one (`core.engine.satisfiable`)."""
IN_PLACE: frozenset[str] = frozenset(n for n, k in KEYWORDS.items() if k.in_place is not None)
"""Keywords applying schemas to their node's own instance (`allOf`, `not`, `if`, ...)."""

__all__ = [
    "BRANCHING",
    "COMPOSED",
    "FAMILIES",
    "INAPPLICABLE",
    "INVALID",
    "IN_PLACE",
    "KEYWORDS",
    "MERGED",
    "Keyword",
    "Maker",
    "Merge",
    "ParseContext",
    "Recipe",
    "RecipeContext",
    "Recurse",
]
