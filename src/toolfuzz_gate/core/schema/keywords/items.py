"""Array items: `items`, `prefixItems` (2020-12), `additionalItems` (draft-07) (pure).

One `items` entry serves both drafts. In 2020-12 it is one schema for the items
after `prefixItems`; in draft-07 a list is the positional form (2020-12's
`prefixItems`) and `additionalItems` then governs the items after it, as
2020-12's `items` does. Both readings narrow the same two `Domain` fields:
`prefix_items` (positional) and `items` (the rest).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.keyword import (
    ARRAYS,
    INVALID,
    SCHEMA,
    SCHEMA_LIST,
    SCHEMA_OR_LIST,
    Keyword,
    Merge,
    ParseContext,
    Recurse,
)
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.options import DRAFT_07, DRAFT_2020_12

Positional = tuple[Node, ...]


@dataclass(frozen=True)
class Rest:
    """One schema for every item from index `start` on (`items` after `prefixItems`)."""

    schema: Node
    start: int


def item_node(domain: Domain, index: int) -> Node | None:
    """The schema governing the item at `index`; None when any value may go there."""
    if index < len(domain.prefix_items):
        return domain.prefix_items[index]
    return domain.items


def _parse_positional(argument: list[Any], ctx: ParseContext, keyword: str) -> Any:
    if not argument:
        ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must not be empty")
        return INVALID
    if len(argument) > ctx.limits.max_items:
        ctx.problem(
            "schema.limit-items",
            keyword,
            f"{len(argument)} positional items; at most {ctx.limits.max_items} are supported",
        )
        return INVALID
    return tuple(ctx.subschema(sub, keyword, index) for index, sub in enumerate(argument))


def _parse_items(argument: Any, ctx: ParseContext) -> Any:
    if isinstance(argument, list):
        if ctx.draft == DRAFT_07:
            return _parse_positional(argument, ctx, "items")
        ctx.problem(
            "schema.invalid-keyword-value",
            "items",
            "in 2020-12 items is one schema; positional item schemas go in prefixItems",
        )
        return INVALID
    if not isinstance(argument, dict | bool):
        ctx.problem("schema.invalid-keyword-value", "items", "items must be a schema")
        return INVALID
    return ctx.subschema(argument, "items")


def _bind_items(argument: Node | Positional, siblings: Mapping[str, Any]) -> Rest | Positional:
    if isinstance(argument, tuple):
        return argument
    return Rest(argument, len(siblings.get("prefixItems", ())))


def _narrow_positional(domain: Domain, argument: Positional, merge: Merge) -> Domain:
    if not domain.prefix_items:
        return replace(domain, prefix_items=argument)
    ours, theirs = domain.prefix_items, argument
    merged = tuple(merge(a, b) for a, b in zip(ours, theirs, strict=False))
    longer = ours if len(ours) > len(theirs) else theirs
    return replace(domain, prefix_items=merged + longer[len(merged) :])


def _narrow_rest(domain: Domain, argument: Rest | None, merge: Merge) -> Domain:
    if argument is None:
        return domain
    if domain.items is None:
        return replace(domain, items=argument.schema)
    return replace(domain, items=merge(domain.items, argument.schema))


def _narrow_items(domain: Domain, argument: Rest | Positional, merge: Merge) -> Domain:
    if isinstance(argument, tuple):
        return _narrow_positional(domain, argument, merge)
    return _narrow_rest(domain, argument, merge)


def _check_positional(node: Node, argument: Positional, instance: JSON, recurse: Recurse) -> bool:
    if not isinstance(instance, list):
        return True
    return all(recurse(schema, item) for schema, item in zip(argument, instance, strict=False))


def _check_rest(node: Node, argument: Rest | None, instance: JSON, recurse: Recurse) -> bool:
    if argument is None or not isinstance(instance, list):
        return True
    return all(recurse(argument.schema, item) for item in instance[argument.start :])


def _check_items(node: Node, argument: Rest | Positional, instance: JSON, recurse: Recurse) -> bool:
    if isinstance(argument, tuple):
        return _check_positional(node, argument, instance, recurse)
    return _check_rest(node, argument, instance, recurse)


def _parse_prefix(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, list):
        ctx.problem("schema.invalid-keyword-value", "prefixItems", "prefixItems must be a list")
        return INVALID
    return _parse_positional(argument, ctx, "prefixItems")


def _parse_additional_items(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, dict | bool):
        ctx.problem(
            "schema.invalid-keyword-value", "additionalItems", "additionalItems must be a schema"
        )
        return INVALID
    return ctx.subschema(argument, "additionalItems")


def _bind_additional_items(argument: Node, siblings: Mapping[str, Any]) -> Rest | None:
    """Only the list form of `items` leaves items for `additionalItems` to govern."""
    positional = siblings.get("items")
    return Rest(argument, len(positional)) if isinstance(positional, tuple) else None


ITEMS = Keyword(
    "items",
    _parse_items,
    _narrow_items,
    _check_items,
    bind=_bind_items,
    instance_types=ARRAYS,
    subschemas=SCHEMA_OR_LIST,
)
PREFIX_ITEMS = Keyword(
    "prefixItems",
    _parse_prefix,
    _narrow_positional,
    _check_positional,
    drafts=frozenset({DRAFT_2020_12}),
    instance_types=ARRAYS,
    subschemas=SCHEMA_LIST,
)
ADDITIONAL_ITEMS = Keyword(
    "additionalItems",
    _parse_additional_items,
    _narrow_rest,
    _check_rest,
    bind=_bind_additional_items,
    drafts=frozenset({DRAFT_07}),
    instance_types=ARRAYS,
    subschemas=SCHEMA,
)
