"""Hostile near-misses: a valid case with exactly one keyword at one path broken (pure).

Operators are enumerated once from the compiled tree (each keyword's `recipes`,
placed at the instance location of its node; positional items are reached at
their index, the rest of an array's items at the first index after them).
Applying one to a valid base case first makes sure the location exists (adding
an absent optional member, or array items up to its index), then replaces the
value there. The oracle decides afterwards whether the mutant really fails at
that keyword and path; one that does not is discarded and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from toolfuzz_gate.core import pointer as jp
from toolfuzz_gate.core.canonical import JSON
from toolfuzz_gate.core.generate import Generator
from toolfuzz_gate.core.jsonvalue import has_type
from toolfuzz_gate.core.keywords import KEYWORDS, Recipe
from toolfuzz_gate.core.keywords.items import item_node
from toolfuzz_gate.core.keywords.objects import Additional
from toolfuzz_gate.core.limits import Limits
from toolfuzz_gate.core.node import CompiledSchema, Node

Token = str | int


@dataclass(frozen=True)
class Operator:
    recipe: Recipe
    steps: tuple[tuple[Token, Node], ...]
    """The path from the root: each token with the node it leads to."""
    node: Node

    @cached_property
    def path(self) -> str:
        return jp.from_parts(token for token, _ in self.steps)

    @property
    def family(self) -> str:
        return self.recipe.family

    @property
    def keyword(self) -> str:
        return self.recipe.keyword

    @property
    def label(self) -> str:
        return f"{self.recipe.keyword}:{self.recipe.variant}@{self.path or '/'}"


def iter_operators(schema: CompiledSchema, limits: Limits) -> Iterator[Operator]:
    yield from _walk(schema.root, (), limits)


def _walk(node: Node, steps: tuple[tuple[Token, Node], ...], limits: Limits) -> Iterator[Operator]:
    if node.never:
        return
    for name, argument in node.keywords:
        if name == "type" and not steps:
            continue  # tool arguments are an object by protocol; a wrong root is not a near-miss
        for recipe in KEYWORDS[name].recipes(node, argument, limits):
            yield Operator(recipe, steps, node)
    for name, child in node.domain.properties:
        yield from _walk(child, (*steps, (name, child)), limits)
    additional = node.argument("additionalProperties")
    if isinstance(additional, Additional) and isinstance(additional.allowed, Node):
        key = additional.free_key()
        if key is not None:
            yield from _walk(additional.allowed, (*steps, (key, additional.allowed)), limits)
    d = node.domain
    reachable = d.max_items if d.max_items is not None else len(d.prefix_items) + 1
    for index, child in enumerate(d.prefix_items[:reachable]):
        yield from _walk(child, (*steps, (index, child)), limits)
    start = len(d.prefix_items)
    if d.items is not None and start < reachable:
        yield from _walk(d.items, (*steps, (start, d.items)), limits)


def copy_json(value: JSON) -> JSON:
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def apply(operator: Operator, base: JSON, maker: Generator, root: Node) -> JSON | None:
    """The mutant, or None when the location cannot exist in a valid value."""
    document = copy_json(base)
    holder: list[JSON] = [document]
    container: dict[str, JSON] | list[JSON] = holder
    key: Token = 0
    parent = root
    for token, node in operator.steps:
        current = container[key]  # type: ignore[index]
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
        container, key, parent = current, token, node
    value = container[key]  # type: ignore[index]
    needs = operator.recipe.needs
    if needs is not None and not has_type(value, frozenset({needs})):
        if needs not in operator.node.domain.types:
            return None
        value = maker.value(operator.node, needs, 0)
    container[key] = operator.recipe.make(value, maker)  # type: ignore[index]
    return holder[0]
