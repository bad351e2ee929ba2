"""Objects by key: `patternProperties` and `propertyNames` (pure).

`patternProperties` maps ECMA-262 patterns to schemas; its parsed argument is a
tuple of (`Pattern`, `Node`) pairs, where `Pattern.matches(name)` is the engine's
reading (`additionalProperties` reads the pairs through `bind`). A key that a
pattern matches must satisfy that pattern's schema, whether or not `properties`
also names it. `propertyNames` is a schema every key, as a string, must satisfy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.keyword import (
    INAPPLICABLE,
    INVALID,
    OBJECTS,
    SCHEMA,
    SCHEMA_MAP,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    Recurse,
)
from toolfuzz_gate.core.schema.keywords.pattern import read_pattern
from toolfuzz_gate.core.schema.limits import UNSAFE_NAMES
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.regex import Pattern

PatternPairs = tuple[tuple[Pattern, Node], ...]
NAME_FAMILY = "propertyNames"
PATTERN_FAMILY = "patternProperties"
RENAME_TRIES = 4


def _parse_pattern_properties(argument: Any, ctx: ParseContext) -> Any:
    keyword = "patternProperties"
    if not isinstance(argument, dict):
        ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be an object")
        return INVALID
    if len(argument) > ctx.limits.max_properties:
        ctx.problem(
            "schema.limit-properties",
            keyword,
            f"{len(argument)} patterns; at most {ctx.limits.max_properties} are supported",
        )
        return INVALID
    if list(argument) == [""]:
        # python-jsonschema joins the patterns to find additional properties, and an
        # empty join reads as "no patterns": it would call every key additional.
        ctx.problem(
            "schema.unsupported-pattern",
            keyword,
            "a lone empty pattern is misread by the reference validator; use '.*' or '^'",
            "",
        )
        return INVALID
    pairs = []
    for source, subschema in argument.items():
        pattern = read_pattern(source, ctx, keyword, source)
        node = ctx.subschema(subschema, keyword, source)
        if pattern is not INVALID:
            pairs.append((pattern, node))
    return tuple(pairs)


def _narrow_pattern_properties(domain: Domain, argument: PatternPairs, merge: Merge) -> Domain:
    kept = tuple(pair for pair in argument if pair not in domain.pattern_properties)
    return replace(domain, pattern_properties=domain.pattern_properties + kept)


def _check_pattern_properties(
    node: Node, argument: PatternPairs, instance: JSON, recurse: Recurse
) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(
        recurse(child, value)
        for key, value in instance.items()
        for pattern, child in argument
        if pattern.matches(key)
    )


def _parse_property_names(argument: Any, ctx: ParseContext) -> Any:
    return ctx.subschema(argument, "propertyNames")


def _narrow_property_names(domain: Domain, argument: Node, merge: Merge) -> Domain:
    if argument in domain.property_names:
        return domain
    return replace(domain, property_names=(*domain.property_names, argument))


def _check_property_names(node: Node, argument: Node, instance: JSON, recurse: Recurse) -> bool:
    return not isinstance(instance, dict) or all(recurse(argument, key) for key in instance)


def _name_recipes(node: Node, argument: Node, ctx: RecipeContext) -> Iterable[Recipe]:
    """One near-miss per keyword of the names schema: a new key breaking that keyword.

    Both validators report a bad name at the inner keyword (`maxLength`, `pattern`)
    and at the object's own path, so each recipe is named for the inner keyword.
    """
    if argument.never or "string" not in argument.domain.types:
        return ()
    recipes = []
    for name, inner in argument.keywords:
        for recipe in ctx.keyword_recipes(argument, name, inner):
            if recipe.needs in (None, "string") and recipe.family != "type":
                variant = f"{recipe.keyword}:{recipe.variant}"
                recipes.append(
                    Recipe(
                        NAME_FAMILY,
                        recipe.keyword,
                        variant,
                        _renamer(node, argument, recipe, ctx),
                        "object",
                    )
                )
    return recipes


def _renamer(node: Node, names: Node, recipe: Recipe, ctx: RecipeContext) -> Any:
    def make(value: JSON, maker: Maker) -> JSON:
        assert isinstance(value, dict)
        for _ in range(RENAME_TRIES):
            valid = maker.valid(names)
            key = recipe.make(valid if isinstance(valid, str) else "", maker)
            if (
                not isinstance(key, str)
                or key in value
                or key in UNSAFE_NAMES
                or ctx.is_valid(names, key)
            ):
                continue
            d = node.domain
            governor = ctx.governing(d, key, d.property_node(key))
            if governor is None and d.additional_values:
                governor = d.additional_values[0]  # the key is additional: its schema applies
            if governor is not None and ctx.admits_nothing(governor):
                continue
            return {**value, key: None if governor is None else maker.valid(governor)}
        nothing: JSON = INAPPLICABLE  # no candidate breaks the names schema
        return nothing

    return make


PATTERN_PROPERTIES = Keyword(
    "patternProperties",
    _parse_pattern_properties,
    _narrow_pattern_properties,
    _check_pattern_properties,
    # The near-misses are the pattern schema's own, reached by the mutator through a key
    # the pattern matches (`core.engine.mutate`), and claimed for this family there.
    PATTERN_FAMILY,
    instance_types=OBJECTS,
    subschemas=SCHEMA_MAP,
    composes=True,  # a member's schemas are merged: its property's and every pattern's
)
PROPERTY_NAMES = Keyword(
    "propertyNames",
    _parse_property_names,
    _narrow_property_names,
    _check_property_names,
    NAME_FAMILY,
    _name_recipes,
    instance_types=OBJECTS,
    subschemas=SCHEMA,
    composes=True,  # keys are built from the merged names schemas
)
