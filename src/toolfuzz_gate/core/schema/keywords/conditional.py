"""Conditional applicators: `if`/`then`/`else` and `dependentSchemas`, with the schema form
of draft-07 `dependencies` (`core.schema.keywords.members` reads its lists of names) (pure).

Each is a choice between two sides, so each becomes a `Choice` in the domain and the
generator takes one side at a time, conjoined with the node's other keywords, re-checking
the result against the whole node (`core.engine.generate`). `if`/`then`/`else`: `if` and
`then` together, or `else` alone; "not `if`" cannot be written as a schema, so a value built
from `else` that happens to match `if` is only kept when it satisfies `then` too, and the
generator otherwise tries again or takes the other side. A dependent schema: the trigger
present (`required`) with its schema, or the trigger absent (`properties: {name: false}`).
`then` and `else` without `if`, and `if` alone, constrain nothing.

The near-misses break one keyword of the side that applies: a value matching `if` that
breaks one keyword of `then`, one not matching `if` that breaks one of `else`, an object with
a trigger present that breaks one keyword of its dependent schema. Both validators report
such an error at the inner keyword, so each recipe is named for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import has_type
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
    none_left,
)
from toolfuzz_gate.core.schema.node import Choice, Domain, Node
from toolfuzz_gate.core.schema.options import DRAFT_2020_12

FAMILY = "conditional"
DEPENDENT_FAMILY = "dependentSchemas"
ELSE_TRIES = 4
"""Values built from `else` until one does not match `if` (a near-miss needs one)."""


@dataclass(frozen=True, eq=False)
class Conditional:
    """`if` with its `then` and `else` (None when absent), and the choice's two sides."""

    condition: Node
    then: Node | None
    otherwise: Node | None
    sides: tuple[Node, Node]


@dataclass(frozen=True, eq=False)
class Dependent:
    """One dependent schema: `schema` applies when `name` is a member (`trigger`); `present`
    and `absent` are the choice's sides."""

    name: str
    schema: Node
    trigger: Node
    present: Node
    absent: Node


def _parse_schema(keyword: str) -> Any:
    def parse(argument: Any, ctx: ParseContext) -> Any:
        return ctx.subschema(argument, keyword)

    return parse


def _annotation(node: Node, argument: Node, instance: JSON, recurse: object) -> bool:
    """`then` and `else` are read by `if` (through `bind`); on their own they assert nothing."""
    return True


def _bind_if(argument: Node, siblings: Mapping[str, Any]) -> Conditional:
    then, otherwise = siblings.get("then"), siblings.get("else")
    parent = argument.pointer.rsplit("/", 1)[0]
    matched = argument if then is None else Node(argument.pointer, (("allOf", (argument, then)),))
    unmatched = otherwise if otherwise is not None else Node(jp.join(parent, "else"))
    return Conditional(argument, then, otherwise, (matched, unmatched))


def _narrow_if(domain: Domain, argument: Conditional, merge: Merge) -> Domain:
    if argument.then is None and argument.otherwise is None:
        return domain  # `if` alone constrains nothing
    chosen = Choice("if", argument.sides, argument.condition)
    return replace(domain, choices=(*domain.choices, chosen))


def _check_if(node: Node, argument: Conditional, instance: JSON, recurse: Recurse) -> bool:
    applies = argument.then if recurse(argument.condition, instance) else argument.otherwise
    return applies is None or recurse(applies, instance)


def dependent_schema(name: str, schema: Node, pointer: str) -> Dependent:
    """The reading of one dependent schema of the object schema at `pointer`."""
    required = Domain(required=(name,))
    trigger = Node(pointer, (("required", (name,)),), required)
    present = Node(pointer, (("required", (name,)), ("allOf", (schema,))), required)
    missing = ((name, Node(jp.join(schema.pointer, "absent"), never=True)),)
    absent = Node(pointer, (("properties", missing),), Domain(properties=missing))
    return Dependent(name, schema, trigger, present, absent)


def _parse_dependent_schemas(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, dict):
        ctx.problem(
            "schema.invalid-keyword-value", "dependentSchemas", "dependentSchemas must be an object"
        )
        return INVALID
    return tuple(
        dependent_schema(name, ctx.subschema(sub, "dependentSchemas", name), ctx.pointer)
        for name, sub in argument.items()
    )


def narrow_dependents(domain: Domain, dependents: Iterable[Dependent], keyword: str) -> Domain:
    chosen = tuple(Choice(keyword, (d.present, d.absent), d.trigger) for d in dependents)
    return replace(domain, choices=(*domain.choices, *chosen)) if chosen else domain


def check_dependents(dependents: Iterable[Dependent], instance: JSON, recurse: Recurse) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(recurse(d.schema, instance) for d in dependents if d.name in instance)


def _narrow_dependent_schemas(
    domain: Domain, argument: tuple[Dependent, ...], merge: Merge
) -> Domain:
    return narrow_dependents(domain, argument, "dependentSchemas")


def _check_dependent_schemas(
    node: Node, argument: tuple[Dependent, ...], instance: JSON, recurse: Recurse
) -> bool:
    return check_dependents(argument, instance, recurse)


def _if_in_place(argument: Conditional) -> Iterable[Node]:
    yield argument.condition
    yield from (n for n in (argument.then, argument.otherwise) if n is not None)


def dependent_in_place(dependents: Iterable[Dependent]) -> Iterable[Node]:
    """The dependent schemas: each applies to the object itself when its name is present."""
    return [d.schema for d in dependents]


def _others(node: Node, argument: Any, rest: Any = INVALID) -> Node:
    """`node` without the keyword whose argument is `argument` (kept as `rest` if given);
    the domain is not read by checks, so it is left empty."""
    keywords = []
    for name, value in node.keywords:
        if value is not argument:
            keywords.append((name, value))
        elif rest is not INVALID:
            keywords.append((name, rest))
    return Node(node.pointer, tuple(keywords), never=node.never)


Holds = Callable[[JSON], bool]
"""Whether a candidate near-miss keeps to everything but the one keyword it breaks."""


def _breakers(
    family: str,
    label: str,
    node: Node,
    inner: Node,
    ctx: RecipeContext,
    start: Callable[[JSON, Maker], JSON],
    holds: Holds,
) -> Iterator[Recipe]:
    """For each near-miss of `inner`'s own keywords: a recipe that applies it to a value
    `start` gives, kept only when `inner` then fails at that keyword alone and `holds`. The
    near-misses are made for `node` and `inner` merged, so that they keep to the node's other
    keywords (`maxProperties` grows an object with the node's own properties, say)."""
    merged, context = ctx.without(inner), ctx.conjoin(node, inner)
    for name, argument in merged.keywords:
        for recipe in ctx.keyword_recipes(context, name, argument):
            yield Recipe(
                family,
                recipe.keyword,
                f"{label}:{recipe.variant}",
                _breaker(recipe, merged, ctx, start, holds),
                recipe.needs,
            )


def _breaker(
    recipe: Recipe,
    inner: Node,
    ctx: RecipeContext,
    start: Callable[[JSON, Maker], JSON],
    holds: Holds,
) -> Any:
    rest = ctx.without(inner, recipe.keyword)

    def make(value: JSON, maker: Maker) -> JSON:
        nothing: JSON = INAPPLICABLE
        base = start(value, maker)
        if base is INAPPLICABLE or (
            recipe.needs is not None and not has_type(base, frozenset({recipe.needs}))
        ):
            return nothing
        mutant = recipe.make(base, maker)
        if mutant is INAPPLICABLE or ctx.is_valid(inner, mutant):
            return nothing
        return mutant if ctx.is_valid(rest, mutant) and holds(mutant) else nothing

    return make


def _if_recipes(node: Node, argument: Conditional, ctx: RecipeContext) -> Iterable[Recipe]:
    others = _others(node, argument)
    condition = argument.condition

    def matching(value: JSON, maker: Maker) -> JSON:
        if ctx.is_valid(condition, value) and ctx.is_valid(node, value):
            return value
        return maker.valid(ctx.conjoin(node, argument.sides[0]))

    def unmatched(value: JSON, maker: Maker) -> JSON:
        for _ in range(ELSE_TRIES):
            if not ctx.is_valid(condition, value) and ctx.is_valid(node, value):
                return value
            value = maker.valid(ctx.conjoin(node, argument.sides[1]))
        nothing: JSON = INAPPLICABLE
        return nothing

    def still_matching(mutant: JSON) -> bool:
        return ctx.is_valid(condition, mutant) and ctx.is_valid(others, mutant)

    def still_unmatched(mutant: JSON) -> bool:
        return not ctx.is_valid(condition, mutant) and ctx.is_valid(others, mutant)

    recipes: list[Recipe] = []
    if argument.then is not None:
        then = argument.then
        recipes.extend(_breakers(FAMILY, "then", node, then, ctx, matching, still_matching))
    if argument.otherwise is not None:
        otherwise = argument.otherwise
        recipes.extend(_breakers(FAMILY, "else", node, otherwise, ctx, unmatched, still_unmatched))
    return recipes


def dependent_recipes(
    node: Node, argument: Any, entries: Iterable[tuple[Dependent, Any]], ctx: RecipeContext
) -> Iterable[Recipe]:
    """For each dependent schema, with the keyword's argument without it (`rest`): an object
    with the trigger present that breaks one keyword of that schema."""
    recipes: list[Recipe] = []
    for entry, rest in entries:
        others = _others(node, argument, rest)

        def start(value: JSON, maker: Maker, entry: Dependent = entry) -> JSON:
            if isinstance(value, dict) and entry.name in value and ctx.is_valid(node, value):
                return value
            return maker.valid(ctx.conjoin(node, entry.present))

        def holds(mutant: JSON, entry: Dependent = entry, others: Node = others) -> bool:
            return (
                isinstance(mutant, dict) and entry.name in mutant and ctx.is_valid(others, mutant)
            )

        schema = entry.schema
        recipes.extend(_breakers(DEPENDENT_FAMILY, entry.name, node, schema, ctx, start, holds))
    return recipes


def _dependent_schema_recipes(
    node: Node, argument: tuple[Dependent, ...], ctx: RecipeContext
) -> Iterable[Recipe]:
    entries = [(d, tuple(o for o in argument if o is not d) or INVALID) for d in argument]
    return dependent_recipes(node, argument, entries, ctx)


IF = Keyword(
    "if",
    _parse_schema("if"),
    _narrow_if,
    _check_if,
    FAMILY,
    _if_recipes,
    _bind_if,
    unchosen=none_left,
    subschemas=SCHEMA,
    in_place=_if_in_place,
)
# `then` and `else` apply through `if` (its `in_place`); alone they apply nothing.
THEN = Keyword("then", _parse_schema("then"), check=_annotation, subschemas=SCHEMA)
ELSE = Keyword("else", _parse_schema("else"), check=_annotation, subschemas=SCHEMA)
DEPENDENT_SCHEMAS = Keyword(
    "dependentSchemas",
    _parse_dependent_schemas,
    _narrow_dependent_schemas,
    _check_dependent_schemas,
    DEPENDENT_FAMILY,
    _dependent_schema_recipes,
    drafts=frozenset({DRAFT_2020_12}),
    instance_types=OBJECTS,
    unchosen=none_left,
    subschemas=SCHEMA_MAP,
    in_place=dependent_in_place,
)
