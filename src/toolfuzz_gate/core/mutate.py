"""Hostile near-misses: a valid case with exactly one keyword at one path broken (pure).

Operators are enumerated once from the compiled tree (each keyword's `recipes`,
placed at the instance location of its node; array items are reached through
index 0). Applying one to a valid base case first makes sure the location
exists (adding an absent optional member or a first array item), then replaces
the value there. The oracle decides afterwards whether the mutant really fails
at that keyword and path; one that does not is discarded and counted.
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
        yield from _walk(additional.allowed, (*steps, (key, additional.allowed)), limits)
    items = node.domain.items
    if items is not None and node.domain.max_items != 0:
        yield from _walk(items, (*steps, (0, items)), limits)


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
            if not current:
                if parent.domain.max_items == 0:
                    return None
                current.append(maker.valid(node))
        container, key, parent = current, token, node
    value = container[key]  # type: ignore[index]
    needs = operator.recipe.needs
    if needs is not None and not has_type(value, frozenset({needs})):
        if needs not in operator.node.domain.types:
            return None
        value = maker.value(operator.node, needs, 0)
    container[key] = operator.recipe.make(value, maker)  # type: ignore[index]
    return holder[0]
