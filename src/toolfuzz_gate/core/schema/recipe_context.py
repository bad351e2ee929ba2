"""The `RecipeContext` the mutator hands each keyword's `recipes`: the operations on
compiled nodes that read the keyword table, bound to one run's limits (pure).

It lives outside `core.schema.keywords` so that the table never imports what reads it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.conjoin import conjoin, without
from toolfuzz_gate.core.schema.keywords import KEYWORDS, Recipe
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.object_keys import admits_nothing, governing
from toolfuzz_gate.core.schema.validate import validate_node


@dataclass(frozen=True)
class TableRecipeContext:
    """`core.schema.keywords.RecipeContext` over the keyword table and `limits`."""

    limits: Limits

    def is_valid(self, node: Node, instance: JSON) -> bool:
        return validate_node(node, instance)

    def conjoin(self, first: Node, second: Node) -> Node:
        return conjoin(first, second)

    def without(self, node: Node, *names: str) -> Node:
        return without(node, *names)

    def governing(self, domain: Domain, name: str, child: Node | None) -> Node | None:
        return governing(domain, name, child)

    def admits_nothing(self, node: Node) -> bool:
        return admits_nothing(node)

    def keyword_recipes(self, node: Node, name: str, argument: Any) -> Iterable[Recipe]:
        return KEYWORDS[name].recipes(node, argument, self)
