"""Hostile near-misses: a valid case with exactly one keyword at one path broken (pure).

Operators are enumerated once from the compiled tree (each keyword's `recipes`,
placed at the instance location of its node; positional items are reached at
their index, the rest of an array's items at the first index after them,
`patternProperties` schemas through one fixed key their pattern matches).
`allOf` and `$ref` are walked merged (`core.schema.conjoin`), each schema reached once
per path so recursive schemas end. Inside an `anyOf`/`oneOf` the walk goes into
each branch: the near-miss breaks that branch's keyword, and the oracle must then
see the whole choice fail at the choice's own path (its `site`). Applying an
operator to a valid base case first makes sure the location exists (adding an
absent optional member, array items up to its index, taking the branch), then
replaces the value there. The oracle decides afterwards whether the mutant really
fails at the expected keyword and path; one that does not is discarded and counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cached_property

from toolfuzz_gate.core.engine.arguments import arguments_node
from toolfuzz_gate.core.engine.generate import Generator
from toolfuzz_gate.core.engine.scalars import NoValue
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import copy_json, has_type
from toolfuzz_gate.core.schema.conjoin import conjoin, effective, without
from toolfuzz_gate.core.schema.keywords import BRANCHING, INAPPLICABLE, KEYWORDS, Recipe
from toolfuzz_gate.core.schema.keywords.items import item_node
from toolfuzz_gate.core.schema.keywords.keys import PATTERN_FAMILY
from toolfuzz_gate.core.schema.keywords.objects import Additional
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import CompiledSchema, Node
from toolfuzz_gate.core.schema.object_keys import admits_nothing, governing, representative_members
from toolfuzz_gate.core.schema.recipe_context import TableRecipeContext
from toolfuzz_gate.core.schema.validate import validate_node


@dataclass(frozen=True)
class Branch:
    """A step that takes branch `index` of the `anyOf`/`oneOf` at the current location."""

    keyword: str
    index: int


Token = str | int | Branch
Steps = tuple[tuple[Token, Node], ...]
Site = tuple[str, str]


@dataclass(frozen=True)
class Operator:
    recipe: Recipe
    steps: Steps
    """The path from the root: each token with the (merged) node it leads to."""
    node: Node
    site: Site | None = None
    """(keyword, path) the oracle reports instead, for a near-miss inside a branch."""

    @cached_property
    def path(self) -> str:
        return jp.from_parts(token for token, _ in self.steps if not isinstance(token, Branch))

    @property
    def family(self) -> str:
        return self.recipe.family

    @property
    def keyword(self) -> str:
        return self.recipe.keyword

    @property
    def expected(self) -> Site:
        """Where the oracle must see the mutant fail, and nowhere else."""
        return self.site or (self.recipe.keyword, self.path)

    @property
    def label(self) -> str:
        taken = "".join(
            f"[{token.keyword}/{token.index}]"
            for token, _ in self.steps
            if isinstance(token, Branch)
        )
        return f"{self.recipe.keyword}:{self.recipe.variant}@{self.path or '/'}{taken}"


def iter_operators(schema: CompiledSchema, limits: Limits) -> Iterator[Operator]:
    yield from _walk(arguments_node(schema.root), (), limits, None, frozenset())


def _recipes(
    merged: Node, keywords: Iterable[tuple[str, object]], steps: Steps, limits: Limits
) -> Iterator[Recipe]:
    ctx = TableRecipeContext(limits)
    for name, argument in keywords:
        if name == "type" and not steps:
            continue  # tool arguments are an object by protocol; a wrong root is not a near-miss
        yield from KEYWORDS[name].recipes(merged, argument, ctx)


def _walk(
    node: Node,
    steps: Steps,
    limits: Limits,
    site: Site | None,
    seen: frozenset[str],
    family: str | None = None,
) -> Iterator[Operator]:
    """`family`, when given, claims this node's own near-misses (not its descendants')."""
    merged = effective(node)
    if merged.never:
        return
    base = without(merged, *BRANCHING) if merged.domain.choices else merged
    for recipe in _recipes(merged, merged.keywords, steps, limits):
        if family is not None:
            recipe = replace(recipe, family=family, variant=f"{recipe.keyword}:{recipe.variant}")
        yield Operator(recipe, steps, merged, site)
    yield from _children(base, base, steps, limits, site, seen)
    path = jp.from_parts(token for token, _ in steps if not isinstance(token, Branch))
    for choice in merged.domain.choices:
        if choice.keyword not in BRANCHING:
            continue  # a side of `if` or of a dependent schema: its keyword's own recipes
        for index, branch in enumerate(choice.branches):
            own = effective(branch)
            if own.never:
                continue
            candidate = conjoin(base, branch)
            inner = (*steps, (Branch(choice.keyword, index), candidate))
            inside = site or (choice.keyword, path)
            for recipe in _recipes(candidate, own.keywords, steps, limits):
                yield Operator(recipe, inner, candidate, inside)
            yield from _children(own, candidate, inner, limits, inside, seen)


def _children(
    own: Node, merged: Node, steps: Steps, limits: Limits, site: Site | None, seen: frozenset[str]
) -> Iterator[Operator]:
    """The members `own` constrains, walked with their schema in `merged`."""

    def walk(token: Token, child: Node, family: str | None = None) -> Iterator[Operator]:
        if child.pointer not in seen:
            into, grown = (*steps, (token, child)), seen | {child.pointer}
            yield from _walk(child, into, limits, site, grown, family)

    names = {name for name, _ in own.domain.properties}
    for name, child in merged.domain.properties:
        if name in names:
            governor = governing(merged.domain, name, child)
            assert governor is not None  # `child` itself governs at least
            if not admits_nothing(governor):  # else a valid value never holds this member
                yield from walk(name, governor)
    if own.domain.pattern_properties:
        for member, governor in representative_members(merged.domain):
            # A key a pattern matches, its value breaking the pattern's schema.
            yield from walk(member, governor, PATTERN_FAMILY)
    additional = own.argument("additionalProperties")
    if isinstance(additional, Additional) and isinstance(additional.allowed, Node):
        key = additional.free_key()
        if key is not None:
            yield from walk(key, additional.allowed)
    if own.domain.items is None and not own.domain.prefix_items:
        return
    d = merged.domain
    reachable = d.max_items if d.max_items is not None else len(d.prefix_items) + 1
    for index, child in enumerate(d.prefix_items[:reachable]):
        yield from walk(index, child)
    start = len(d.prefix_items)
    if d.items is not None and start < reachable:
        yield from walk(start, d.items)


def apply(operator: Operator, base: JSON, maker: Generator, root: Node) -> JSON | None:
    """The mutant, or None when the location cannot exist in a valid value."""
    try:
        mutant = _apply(operator, base, maker, root)
    except NoValue:
        return None
    # arguments that are not an object are no call (`core.engine.arguments`)
    return mutant if isinstance(mutant, dict) else None


def _apply(operator: Operator, base: JSON, maker: Generator, root: Node) -> JSON | None:
    document = copy_json(base)
    holder: list[JSON] = [document]
    container: dict[str, JSON] | list[JSON] = holder
    key: Token = 0
    parent = root
    for token, node in operator.steps:
        current = container[key]  # type: ignore[index]
        if isinstance(token, Branch):
            if not validate_node(node, current):
                container[key] = maker.valid(node)  # type: ignore[index]
            parent = node
            continue
        if isinstance(token, str):
            if not isinstance(current, dict):
                current = maker.value(parent, "object", 0)
                container[key] = current  # type: ignore[index]
            assert isinstance(current, dict)
            if token not in current:
                current[token] = maker.valid(node)
        else:
            if not isinstance(current, list):
                current = maker.value(parent, "array", 0)
                container[key] = current  # type: ignore[index]
            assert isinstance(current, list)
            while len(current) <= token:
                most = parent.domain.max_items
                if most is not None and len(current) >= most:
                    return None
                filler = item_node(parent.domain, len(current))
                current.append(maker.valid(filler if filler is not None else node))
        container, key, parent = current, token, effective(node)
    value = container[key]  # type: ignore[index]
    needs = operator.recipe.needs
    if needs is not None and not has_type(value, frozenset({needs})):
        if needs not in operator.node.domain.types:
            return None
        value = maker.value(operator.node, needs, 0)
    mutant = operator.recipe.make(value, maker)
    if mutant is INAPPLICABLE:
        return None
    container[key] = mutant  # type: ignore[index]
    return holder[0]
