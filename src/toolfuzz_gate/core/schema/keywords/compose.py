"""Applicators over the same instance: `allOf`, `anyOf`, `oneOf`, `$ref`, `$defs` (pure).

`allOf` and `$ref` are merged into their node for generation and mutation
(`core.schema.conjoin.effective`), so their entries only read and check. `anyOf` and
`oneOf` become a `Choice` in the domain: the generator takes one branch at a time
(merged with the node's other keywords), and the mutator reaches inside each
branch. `$defs` and `definitions` hold schemas that only `$ref` uses: each is
compiled where it stands, so its problems are reported with their own pointers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.keyword import (
    INVALID,
    SCHEMA_LIST,
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

FAMILY = "composition"


class Reference:
    """A `$ref`'s target, linked once the whole document is compiled (recursion allowed).

    `node` stays None only while compiling; `location` is where the `$ref` stands."""

    __slots__ = ("location", "node", "target")

    def __init__(self, target: str, location: str) -> None:
        self.target = target
        self.location = location
        self.node: Node | None = None

    def __repr__(self) -> str:
        return f"Reference({self.target!r})"


def _parse_branches(keyword: str) -> Any:
    def parse(argument: Any, ctx: ParseContext) -> Any:
        if not isinstance(argument, list) or not argument:
            ctx.problem(
                "schema.invalid-keyword-value", keyword, f"{keyword} must be a non-empty list"
            )
            return INVALID
        return tuple(ctx.subschema(sub, keyword, index) for index, sub in enumerate(argument))

    return parse


def _check_all(node: Node, branches: tuple[Node, ...], instance: JSON, recurse: Recurse) -> bool:
    return all(recurse(branch, instance) for branch in branches)


def _check_any(node: Node, branches: tuple[Node, ...], instance: JSON, recurse: Recurse) -> bool:
    return any(recurse(branch, instance) for branch in branches)


def _check_one(node: Node, branches: tuple[Node, ...], instance: JSON, recurse: Recurse) -> bool:
    matched = 0
    for branch in branches:
        if recurse(branch, instance):
            matched += 1
            if matched > 1:
                return False
    return matched == 1


def _narrow_choice(keyword: str) -> Any:
    def narrow(domain: Domain, branches: tuple[Node, ...], merge: Merge) -> Domain:
        return replace(domain, choices=(*domain.choices, Choice(keyword, branches)))

    return narrow


def _one_of_recipes(node: Node, branches: tuple[Node, ...], ctx: RecipeContext) -> Iterable[Recipe]:
    """A value two branches accept at once: `oneOf` must reject it."""
    base = ctx.without(node, "oneOf")

    def both(first: Node, second: Node) -> Recipe:
        def make(value: JSON, maker: Maker) -> JSON:
            return maker.valid(ctx.conjoin(ctx.conjoin(base, first), second))

        pair = f"{branches.index(first)},{branches.index(second)}"
        return Recipe(FAMILY, "oneOf", f"two-branches:{pair}", make)

    return [
        both(first, second)
        for i, first in enumerate(branches)
        for second in branches[i + 1 :]
        if not first.never and not second.never
    ]


def _parse_ref(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, str):
        ctx.problem("schema.invalid-keyword-value", "$ref", "$ref must be a string")
        return INVALID
    return ctx.reference(argument)


def _check_ref(node: Node, argument: Reference, instance: JSON, recurse: Recurse) -> bool:
    assert argument.node is not None, "references are linked when compiling ends"
    return recurse(argument.node, instance)


def _parse_definitions(keyword: str) -> Any:
    def parse(argument: Any, ctx: ParseContext) -> Any:
        if not isinstance(argument, dict):
            ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be an object")
            return INVALID
        for name, sub in argument.items():
            ctx.subschema(sub, keyword, name)
        return INVALID  # nothing to keep on the node: `$ref` links to the compiled schemas

    return parse


def _branches(argument: tuple[Node, ...]) -> Iterable[Node]:
    return argument


def _target(argument: Reference) -> Iterable[Node]:
    return () if argument.node is None else (argument.node,)


ALL_OF = Keyword(
    "allOf",
    _parse_branches("allOf"),
    check=_check_all,
    subschemas=SCHEMA_LIST,
    in_place=_branches,
    merged=True,
)
ANY_OF = Keyword(
    "anyOf",
    _parse_branches("anyOf"),
    _narrow_choice("anyOf"),
    _check_any,
    unchosen=none_left,
    subschemas=SCHEMA_LIST,
    in_place=_branches,
    branches=True,
)
ONE_OF = Keyword(
    "oneOf",
    _parse_branches("oneOf"),
    _narrow_choice("oneOf"),
    _check_one,
    FAMILY,
    _one_of_recipes,
    unchosen=none_left,
    subschemas=SCHEMA_LIST,
    in_place=_branches,
    branches=True,
)
REF = Keyword("$ref", _parse_ref, check=_check_ref, in_place=_target, merged=True)
DEFS = Keyword("$defs", _parse_definitions("$defs"), subschemas=SCHEMA_MAP)
DEFINITIONS = Keyword("definitions", _parse_definitions("definitions"), subschemas=SCHEMA_MAP)
