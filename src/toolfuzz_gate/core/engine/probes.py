"""Seam probes: inputs at the seams beyond what the schema describes (pure).

Oversized Unicode strings, prototype-pollution keys, cross-field extremes,
duplicate array entries that differ only in case, deep nesting. A probe may be
valid or not under the schema (the oracle says which); either way the handler
must answer cleanly, and each probe's outcome is recorded in the receipt.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from toolfuzz_gate.core.engine.arguments import arguments_node
from toolfuzz_gate.core.engine.generate import Generator
from toolfuzz_gate.core.engine.mutate import Operator, Steps, apply
from toolfuzz_gate.core.engine.scalars import NoValue
from toolfuzz_gate.core.engine.seeds import case_seed
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.draw_modes import HIGH
from toolfuzz_gate.core.schema.keywords import Maker, Recipe
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import CompiledSchema, Node

STREAM = "seam"
MAX_SITES = 4
NESTING_DEPTH = 64
OVERSIZED_CHAR = "\U0001f600"


@dataclass(frozen=True)
class Probe:
    name: str
    path: str
    input: JSON


def _deep(depth: int) -> JSON:
    value: JSON = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"n": value}
    return value


def _oversized(limits: Limits) -> Recipe:
    count = limits.max_string_bytes // len(OVERSIZED_CHAR.encode())
    return Recipe("seam", "", "oversized-unicode", lambda v, m: OVERSIZED_CHAR * count)


def _with(key: str, extra: JSON) -> Recipe:
    def make(value: JSON, maker: Maker) -> JSON:
        assert isinstance(value, dict)
        return {**value, key: extra}

    return Recipe("seam", "", f"unsafe-key:{key}", make, needs="object")


def _duplicates(value: JSON, maker: Maker) -> JSON:
    assert isinstance(value, list)
    first = value[0] if value else "dup"
    twin = first.swapcase() if isinstance(first, str) else first
    return [first, twin]


RECIPES_BY_TYPE: dict[str, tuple[Recipe, ...]] = {
    "object": (
        _with("__proto__", {"polluted": True}),
        _with("constructor", {"prototype": {"polluted": True}}),
    ),
    "array": (Recipe("seam", "", "duplicate-items", _duplicates, needs="array"),),
}


def _sites(schema: CompiledSchema, limits: Limits) -> Iterator[Operator]:
    counts: dict[str, int] = {}

    def walk(node: Node, steps: Steps, seen: frozenset[str]) -> Iterator[Operator]:
        node = effective(node)
        if node.never:
            return
        recipes: list[Recipe] = []
        if "string" in node.domain.types and node.domain.enum is None:
            recipes.append(_oversized(limits))
        for kind, extra in RECIPES_BY_TYPE.items():
            if kind in node.domain.types:
                if kind == "array" and (node.domain.max_items or 2) < 2:
                    continue
                recipes.extend(extra)
        for recipe in recipes:
            if counts.get(recipe.variant, 0) < MAX_SITES:
                counts[recipe.variant] = counts.get(recipe.variant, 0) + 1
                yield Operator(recipe, steps, node)
        for name, child in node.domain.properties:
            if child.pointer not in seen:
                yield from walk(child, (*steps, (name, child)), seen | {child.pointer})
        items = node.domain.items
        if items is not None and node.domain.max_items != 0 and items.pointer not in seen:
            yield from walk(items, (*steps, (0, items)), seen | {items.pointer})

    yield from walk(arguments_node(schema.root), (), frozenset())


def iter_probes(schema: CompiledSchema, base: JSON, seed: int, limits: Limits) -> Iterator[Probe]:
    maker = Generator(case_seed(seed, STREAM, 0), 0, HIGH, limits)
    try:
        yield Probe("cross-field-extremes", "", maker.valid(arguments_node(schema.root)))
    except NoValue:
        pass  # no value at the high end: the valid cases have covered what there is
    for operator in _sites(schema, limits):
        mutant = apply(operator, base, maker, schema.root)
        if mutant is not None:
            yield Probe(operator.recipe.variant, operator.path, mutant)
    if isinstance(base, dict):
        yield Probe("deep-nesting", "", {**base, "nested": _deep(NESTING_DEPTH)})
