"""`contains` with `minContains` / `maxContains` (2020-12): how many items match a schema (pure).

`contains` does all the checking, bound to its two counting siblings, which on
their own only carry their near-misses (the validators name them when the count
is off). With no match left at all the `jsonschema` library names `contains` but
jsonschema-rs names `minContains` or `maxContains` when either is present, so
those near-misses keep at least one match, and `contains` has its own only alone."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.items import item_node
from toolfuzz_gate.core.schema.keywords.keyword import (
    ARRAYS,
    INVALID,
    SCHEMA,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    Recurse,
    parse_count,
)
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.options import DRAFT_2020_12

FAMILY = "contains"
TRIES = 8
"""Fresh values a near-miss tries for one more matching item."""


@dataclass(frozen=True)
class Contains:
    schema: Node
    minimum: int = 1
    maximum: int | None = None


def _parse(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, dict | bool):
        ctx.problem("schema.invalid-keyword-value", "contains", "contains must be a schema")
        return INVALID
    return ctx.subschema(argument, "contains")


def _bind(argument: Node, siblings: Mapping[str, Any]) -> Contains:
    return Contains(argument, siblings.get("minContains", 1), siblings.get("maxContains"))


def _narrow(domain: Domain, argument: Contains, merge: Merge) -> Domain:
    most = argument.maximum
    if domain.max_contains is not None:
        most = domain.max_contains if most is None else min(most, domain.max_contains)
    return replace(
        domain,
        contains=argument.schema,
        min_contains=max(domain.min_contains, argument.minimum),
        max_contains=most,
    )


def _check(node: Node, argument: Contains, instance: JSON, recurse: Recurse) -> bool:
    if not isinstance(instance, list):
        return True
    count = sum(recurse(argument.schema, item) for item in instance)
    most = argument.maximum
    return count >= argument.minimum and (most is None or count <= most)


def _too_few(node: Node, keyword: str, wanted: int, ctx: RecipeContext) -> Recipe:
    """Matching items removed (from the end) until only `wanted - 1` remain."""
    schema = node.domain.contains
    assert schema is not None

    def make(value: JSON, maker: Maker) -> JSON:
        items = list(value) if isinstance(value, list) else []
        count = sum(ctx.is_valid(schema, item) for item in items)
        for index in reversed(range(len(items))):
            if count < wanted:
                break
            if ctx.is_valid(schema, items[index]):
                del items[index]
                count -= 1
        return items

    return Recipe(FAMILY, keyword, f"below-{keyword}", make, needs="array")


def _too_many(node: Node, most: int, ctx: RecipeContext) -> Recipe:
    """Matching items appended until there are `most + 1`: copies of a match the value
    already holds, else fresh values that match both `contains` and their position."""
    d = node.domain
    schema = d.contains
    assert schema is not None

    def make(value: JSON, maker: Maker) -> JSON:
        items = list(value) if isinstance(value, list) else []
        held = [item for item in items if ctx.is_valid(schema, item)]
        count = len(held)
        for attempt in range(TRIES * (most + 1)):
            if count > most:
                break
            governing = item_node(d, len(items))
            fresh = maker.valid(schema if attempt % 2 else governing or schema)
            for candidate in (*held[:1], fresh):
                if ctx.is_valid(schema, candidate) and (
                    governing is None or ctx.is_valid(governing, candidate)
                ):
                    items.append(candidate)
                    count += 1
                    break
        return items

    return Recipe(FAMILY, "maxContains", "above-maxContains", make, needs="array")


def _contains_recipes(node: Node, argument: Contains, ctx: RecipeContext) -> Iterable[Recipe]:
    if node.argument("minContains") is not None or node.argument("maxContains") is not None:
        return ()  # jsonschema-rs then names a counting keyword even for no match at all
    return (_too_few(node, "contains", 1, ctx),)


def _min_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    # With no match left, the `jsonschema` library names `contains` and jsonschema-rs
    # `minContains`: a confirmable near-miss keeps at least one match.
    if argument < 2 or node.domain.contains is None:
        return ()
    return (_too_few(node, "minContains", argument, ctx),)


def _max_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    if node.domain.contains is None or argument + 1 > ctx.limits.max_items:
        return ()
    return (_too_many(node, argument, ctx),)


def _parse_min(argument: Any, ctx: ParseContext) -> Any:
    count = parse_count(argument, ctx, "minContains")
    if count is not INVALID and count > ctx.limits.max_items:
        ctx.problem(
            "schema.limit-items",
            "minContains",
            f"minContains {count} exceeds the {ctx.limits.max_items} generated items supported",
        )
        return INVALID
    return count


def _parse_max(argument: Any, ctx: ParseContext) -> Any:
    return parse_count(argument, ctx, "maxContains")


def _counted_by_contains(node: Node, argument: int, instance: JSON, recurse: object) -> bool:
    return True


CONTAINS = Keyword(
    "contains",
    _parse,
    _narrow,
    _check,
    FAMILY,
    _contains_recipes,
    _bind,
    instance_types=ARRAYS,
    subschemas=SCHEMA,
)
MIN_CONTAINS = Keyword(
    "minContains",
    _parse_min,
    check=_counted_by_contains,
    family=FAMILY,
    recipes=_min_recipes,
    drafts=frozenset({DRAFT_2020_12}),
    instance_types=ARRAYS,
)
MAX_CONTAINS = Keyword(
    "maxContains",
    _parse_max,
    check=_counted_by_contains,
    family=FAMILY,
    recipes=_max_recipes,
    drafts=frozenset({DRAFT_2020_12}),
    instance_types=ARRAYS,
)
