"""Arrays: `items` (one schema), `minItems` and `maxItems` (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.canonical import JSON
from toolfuzz_gate.core.keywords.base import (
    INVALID,
    CountBound,
    Keyword,
    Maker,
    ParseContext,
    Recipe,
    Recurse,
)
from toolfuzz_gate.core.limits import Limits
from toolfuzz_gate.core.node import Domain, Node

FAMILY = "array-size"


def _parse_items(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, dict | bool):
        ctx.problem(
            "schema.unsupported-keyword",
            "items",
            "items as a list (draft-07 tuple form) is not supported; use one schema",
        )
        return INVALID
    return ctx.subschema(argument, "items")


def _narrow_items(domain: Domain, argument: Node) -> Domain:
    if domain.items is None:
        return replace(domain, items=argument)
    from toolfuzz_gate.core.compose import conjoin

    return replace(domain, items=conjoin(domain.items, argument))


def _check_items(node: Node, argument: Node, instance: JSON, recurse: Recurse) -> bool:
    return not isinstance(instance, list) or all(recurse(argument, item) for item in instance)


MIN = CountBound("minItems", list, "min_items", lower=True)
MAX = CountBound("maxItems", list, "max_items", lower=False)


def _parse_min(argument: Any, ctx: ParseContext) -> Any:
    count = MIN.parse(argument, ctx)
    if count is not INVALID and count > ctx.limits.max_items:
        ctx.problem(
            "schema.limit-items",
            "minItems",
            f"minItems {count} exceeds the {ctx.limits.max_items} generated items supported",
        )
        return INVALID
    return count


def _min_recipes(node: Node, argument: int, limits: Limits) -> Iterable[Recipe]:
    if argument < 1:
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        return list(value[: argument - 1]) if isinstance(value, list) else []

    return (Recipe(FAMILY, "minItems", "below-minItems", make, needs="array"),)


def _max_recipes(node: Node, argument: int, limits: Limits) -> Iterable[Recipe]:
    if argument + 1 > 2 * limits.max_items:
        return ()
    items = node.domain.items

    def make(value: JSON, maker: Maker) -> JSON:
        grown = list(value) if isinstance(value, list) else []
        while len(grown) < argument + 1:
            grown.append(maker.valid(items) if items is not None else None)
        return grown[: argument + 1]

    return (Recipe(FAMILY, "maxItems", "above-maxItems", make, needs="array"),)


ITEMS = Keyword("items", _parse_items, _narrow_items, _check_items)
MIN_ITEMS = Keyword("minItems", _parse_min, MIN.narrow, MIN.check, FAMILY, _min_recipes)
MAX_ITEMS = Keyword("maxItems", MAX.parse, MAX.narrow, MAX.check, FAMILY, _max_recipes)
