"""Numeric bounds: `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (pure).

An exclusive bound narrows the generation domain to the next float past it, so the
inclusive domain the generator reads stays one pair of numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import is_number
from toolfuzz_gate.core.schema.keywords.keyword import (
    INVALID,
    NUMBERS,
    Keyword,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
)
from toolfuzz_gate.core.schema.node import Domain, Node

FAMILY = "bounds"


def _parse_bound(keyword: str) -> Any:
    def parse(argument: Any, ctx: ParseContext) -> Any:
        if not is_number(argument) or not math.isfinite(argument):
            ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be a number")
            return INVALID
        return argument

    return parse


def _narrow_minimum(domain: Domain, argument: int | float, merge: Merge) -> Domain:
    lo = argument if domain.lo is None else max(domain.lo, argument)
    return replace(domain, lo=lo)


def _narrow_maximum(domain: Domain, argument: int | float, merge: Merge) -> Domain:
    hi = argument if domain.hi is None else min(domain.hi, argument)
    return replace(domain, hi=hi)


def _check_minimum(node: Node, argument: float, instance: JSON, recurse: object) -> bool:
    return not is_number(instance) or instance >= argument  # type: ignore[operator]


def _check_maximum(node: Node, argument: float, instance: JSON, recurse: object) -> bool:
    return not is_number(instance) or instance <= argument  # type: ignore[operator]


def step(bound: float) -> float:
    """A small step away from a non-integer bound, readable in a report."""
    return 1e-3 * max(1.0, abs(bound))


def _integer_only(node: Node) -> bool:
    types = node.domain.types
    return "integer" in types and "number" not in types


def _minimum_recipes(node: Node, argument: float, ctx: RecipeContext) -> Iterable[Recipe]:
    below: JSON = math.ceil(argument) - 1 if _integer_only(node) else argument - step(argument)
    return (Recipe(FAMILY, "minimum", "below-minimum", lambda v, m: below),)


def _maximum_recipes(node: Node, argument: float, ctx: RecipeContext) -> Iterable[Recipe]:
    above: JSON = math.floor(argument) + 1 if _integer_only(node) else argument + step(argument)
    return (Recipe(FAMILY, "maximum", "above-maximum", lambda v, m: above),)


MINIMUM = Keyword(
    "minimum",
    _parse_bound("minimum"),
    _narrow_minimum,
    _check_minimum,
    FAMILY,
    _minimum_recipes,
    instance_types=NUMBERS,
)
MAXIMUM = Keyword(
    "maximum",
    _parse_bound("maximum"),
    _narrow_maximum,
    _check_maximum,
    FAMILY,
    _maximum_recipes,
    instance_types=NUMBERS,
)


def _narrow_exclusive_minimum(domain: Domain, argument: int | float, merge: Merge) -> Domain:
    return _narrow_minimum(domain, math.nextafter(argument, math.inf), merge)


def _narrow_exclusive_maximum(domain: Domain, argument: int | float, merge: Merge) -> Domain:
    return _narrow_maximum(domain, math.nextafter(argument, -math.inf), merge)


def _check_exclusive_minimum(node: Node, argument: float, instance: JSON, recurse: object) -> bool:
    return not is_number(instance) or instance > argument  # type: ignore[operator]


def _check_exclusive_maximum(node: Node, argument: float, instance: JSON, recurse: object) -> bool:
    return not is_number(instance) or instance < argument  # type: ignore[operator]


def _exclusive_minimum_recipes(node: Node, argument: float, ctx: RecipeContext) -> Iterable[Recipe]:
    return (Recipe(FAMILY, "exclusiveMinimum", "at-exclusiveMinimum", lambda v, m: argument),)


def _exclusive_maximum_recipes(node: Node, argument: float, ctx: RecipeContext) -> Iterable[Recipe]:
    return (Recipe(FAMILY, "exclusiveMaximum", "at-exclusiveMaximum", lambda v, m: argument),)


EXCLUSIVE_MINIMUM = Keyword(
    "exclusiveMinimum",
    _parse_bound("exclusiveMinimum"),
    _narrow_exclusive_minimum,
    _check_exclusive_minimum,
    FAMILY,
    _exclusive_minimum_recipes,
    instance_types=NUMBERS,
)
EXCLUSIVE_MAXIMUM = Keyword(
    "exclusiveMaximum",
    _parse_bound("exclusiveMaximum"),
    _narrow_exclusive_maximum,
    _check_exclusive_maximum,
    FAMILY,
    _exclusive_maximum_recipes,
    instance_types=NUMBERS,
)
