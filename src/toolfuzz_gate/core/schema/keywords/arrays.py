"""Array sizes: `minItems` and `maxItems` (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.items import item_node
from toolfuzz_gate.core.schema.keywords.keyword import (
    ARRAYS,
    CountBound,
    Keyword,
    Maker,
    ParseContext,
    Recipe,
    RecipeContext,
)
from toolfuzz_gate.core.schema.node import Node

FAMILY = "array-size"


MIN = CountBound("minItems", list, "min_items", lower=True)
MAX = CountBound("maxItems", list, "max_items", lower=False)


def _parse_min(argument: Any, ctx: ParseContext) -> Any:
    return MIN.parse_within(argument, ctx, ctx.limits.max_items, "schema.limit-items")


def _min_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    if argument < 1:
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        return list(value[: argument - 1]) if isinstance(value, list) else []

    return (Recipe(FAMILY, "minItems", "below-minItems", make, needs="array"),)


def _max_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    if argument + 1 > 2 * ctx.limits.max_items:
        return ()
    domain = node.domain
    closed = (item_node(domain, index) for index in range(argument + 1))
    if any(schema is not None and schema.never for schema in closed):
        return ()  # one item more would break `items` / `prefixItems` as well

    def make(value: JSON, maker: Maker) -> JSON:
        grown = list(value) if isinstance(value, list) else []
        while len(grown) < argument + 1:
            items = item_node(domain, len(grown))
            grown.append(maker.valid(items) if items is not None else None)
        return grown[: argument + 1]

    return (Recipe(FAMILY, "maxItems", "above-maxItems", make, needs="array"),)


MIN_ITEMS = Keyword(
    "minItems", _parse_min, MIN.narrow, MIN.check, FAMILY, _min_recipes, instance_types=ARRAYS
)
MAX_ITEMS = Keyword(
    "maxItems", MAX.parse, MAX.narrow, MAX.check, FAMILY, _max_recipes, instance_types=ARRAYS
)
