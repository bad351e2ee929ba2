"""`not`: an instance is valid when it fails the negated schema (pure).

The negated schema is compiled where it stands and kept in the domain (`negations`); the
generator builds from the node's other keywords, narrowed where the negated schema is
simple enough to subtract exactly (`core.engine.avoidance`), and rejects what still
matches it. The near-miss is a value the node's other keywords accept and the negated
schema accepts too: `not` alone must reject it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import copy_json
from toolfuzz_gate.core.schema.keywords.keyword import (
    INAPPLICABLE,
    SCHEMA,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    Recurse,
)
from toolfuzz_gate.core.schema.node import Domain, Node

FAMILY = "not"


def _parse(argument: Any, ctx: ParseContext) -> Any:
    return ctx.subschema(argument, "not")


def _narrow(domain: Domain, negated: Node, merge: Merge) -> Domain:
    return replace(domain, negations=(*domain.negations, negated))


def _check(node: Node, negated: Node, instance: JSON, recurse: Recurse) -> bool:
    return not recurse(negated, instance)


def admits_everything(node: Node) -> bool:
    """Whether `node` provably admits every value: `{}`, `true`, or only `not`s of schemas
    that admit nothing (`{"not": false}`, `{"not": {"not": {}}}`)."""
    return not node.never and all(
        name == "not" and argument.never for name, argument in node.keywords
    )


def _negated(negated: Node) -> Iterable[Node]:
    return (negated,)


def _recipes(node: Node, negated: Node, ctx: RecipeContext) -> Iterable[Recipe]:
    """A value the rest of the node accepts that also matches the negated schema."""
    target = ctx.conjoin(ctx.without(node, "not"), negated)
    if ctx.admits_nothing(target):
        return ()
    # Merged enums are not narrowed by the other keywords: pick among the members that fit.
    members = target.domain.enum
    if members is not None:
        members = tuple(m for m in members if ctx.is_valid(target, m))
        if not members:
            return ()

    def make(value: JSON, maker: Maker) -> JSON:
        if members is not None:
            return copy_json(members[maker.rng.randrange(len(members))])
        built = maker.valid(target)
        return built if ctx.is_valid(target, built) else INAPPLICABLE

    # A node merged from several schemas may hold several `not`s: each has its own variant.
    negated_here = [argument for name, argument in node.keywords if name == "not"]
    index = next((i for i, other in enumerate(negated_here) if other is negated), 0)
    return (Recipe(FAMILY, "not", f"matches-negated:{index}", make),)


NOT = Keyword(
    "not",
    _parse,
    _narrow,
    _check,
    FAMILY,
    _recipes,
    subschemas=SCHEMA,
    in_place=_negated,
    composes=True,
    # `{"not": {}}` admits nothing: the compiler reads it as the `false` schema, as it reads
    # `properties: {"x": false}`.
    forbids=admits_everything,
)
