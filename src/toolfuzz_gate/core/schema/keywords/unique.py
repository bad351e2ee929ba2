"""`uniqueItems`: no two items equal as JSON Schema compares them (1 == 1.0, true != 1) (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import equality_key
from toolfuzz_gate.core.schema.keywords.items import item_node
from toolfuzz_gate.core.schema.keywords.keyword import (
    ARRAYS,
    INVALID,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
)
from toolfuzz_gate.core.schema.node import Domain, Node

FAMILY = "uniqueItems"


def all_distinct(values: list[JSON]) -> bool:
    keys = {equality_key(v) for v in values}
    return len(keys) == len(values)


def _parse(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, bool):
        ctx.problem("schema.invalid-keyword-value", "uniqueItems", "uniqueItems must be a boolean")
        return INVALID
    return argument


def _narrow(domain: Domain, argument: bool, merge: Merge) -> Domain:
    return replace(domain, unique_items=domain.unique_items or argument)


def _check(node: Node, argument: bool, instance: JSON, recurse: object) -> bool:
    return not argument or not isinstance(instance, list) or all_distinct(instance)


def _recipes(node: Node, argument: bool, ctx: RecipeContext) -> Iterable[Recipe]:
    d = node.domain
    if not argument or (d.max_items is not None and d.max_items < 2):
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        items = list(value) if isinstance(value, list) else []
        last = len(items) - 1
        if last >= 1 and item_node(d, 0) is item_node(d, last):
            return [*items[:last], items[0]]
        if items and (d.max_items is None or len(items) < d.max_items):
            return [*items, items[-1]]
        first = item_node(d, 0)
        twin = maker.valid(first) if first is not None else None
        return [twin, twin]

    return (Recipe(FAMILY, "uniqueItems", "duplicate-item", make, needs="array"),)


UNIQUE_ITEMS = Keyword(
    "uniqueItems", _parse, _narrow, _check, FAMILY, _recipes, instance_types=ARRAYS
)
