"""String lengths: `minLength` and `maxLength`, counted in code points (pure)."""

from __future__ import annotations

from collections.abc import Iterable

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.keyword import (
    STRINGS,
    CountBound,
    Keyword,
    Maker,
    Recipe,
    RecipeContext,
)
from toolfuzz_gate.core.schema.node import Node

FAMILY = "length"


def resize(value: JSON, length: int) -> str:
    """`value` cut or padded (with its own last character) to `length` code points."""
    text = value if isinstance(value, str) else ""
    if len(text) >= length:
        return text[:length]
    pad = text[-1] if text else "a"
    return text + pad * (length - len(text))


MIN = CountBound("minLength", str, "min_length", lower=True)
MAX = CountBound("maxLength", str, "max_length", lower=False)


def _min_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    if argument < 1:
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        return resize(value, argument - 1)

    return (Recipe(FAMILY, "minLength", "below-minLength", make, needs="string"),)


def _max_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    if argument + 1 > ctx.limits.max_string_bytes:
        return ()  # the near-miss would itself break the string size limit

    def make(value: JSON, maker: Maker) -> JSON:
        # ASCII padding keeps the mutant inside the byte limit whatever the value held.
        return resize(value, argument).encode("ascii", "replace").decode() + "x"

    return (Recipe(FAMILY, "maxLength", "above-maxLength", make, needs="string"),)


MIN_LENGTH = Keyword(
    "minLength", MIN.parse, MIN.narrow, MIN.check, FAMILY, _min_recipes, instance_types=STRINGS
)
MAX_LENGTH = Keyword(
    "maxLength", MAX.parse, MAX.narrow, MAX.check, FAMILY, _max_recipes, instance_types=STRINGS
)
