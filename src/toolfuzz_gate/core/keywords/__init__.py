"""The registry of supported JSON Schema keywords: one entry each (pure).

Adding a keyword is one new `Keyword` here, with its parse, narrow, check and
recipes together. The compiler refuses any keyword not in `KEYWORDS`.
"""

from __future__ import annotations

from toolfuzz_gate.core.keywords import (
    arrays,
    compose,
    formats,
    generic,
    keys,
    numeric,
    objects,
    pattern,
    text,
)
from toolfuzz_gate.core.keywords.base import (
    INAPPLICABLE,
    INVALID,
    Keyword,
    Maker,
    ParseContext,
    Recipe,
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
        text.MIN_LENGTH,
        text.MAX_LENGTH,
        pattern.PATTERN,
        formats.FORMAT,
        arrays.ITEMS,
        arrays.MIN_ITEMS,
        arrays.MAX_ITEMS,
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
        *(generic.annotation(name) for name in generic.ANNOTATIONS),
    )
}

FAMILIES: tuple[str, ...] = tuple(
    dict.fromkeys(k.family for k in KEYWORDS.values() if k.family is not None)
)
"""The hostile mutation families, in table order: the coverage ledger's rows."""

__all__ = [
    "FAMILIES",
    "INAPPLICABLE",
    "INVALID",
    "KEYWORDS",
    "Keyword",
    "Maker",
    "ParseContext",
    "Recipe",
]
