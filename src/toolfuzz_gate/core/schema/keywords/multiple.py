"""`multipleOf` for integers and numbers (pure).

A number is a multiple when the exact decimal reading (`core.schema.multiples`) and the
`jsonschema` library's float division both say so: the engine then never accepts
a value the reference validator rejects (`0.07` against `0.01`), which is what
generation and the re-checks of generated values need. The official test suite's
cases read the same either way. Near-misses fail under every reading."""

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
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
)
from toolfuzz_gate.core.schema.multiples import agrees, exact, is_multiple
from toolfuzz_gate.core.schema.node import Domain, Node

FAMILY = "multipleOf"


def _parse(argument: Any, ctx: ParseContext) -> Any:
    if not is_number(argument) or not math.isfinite(argument) or argument <= 0:
        ctx.problem("schema.invalid-keyword-value", "multipleOf", "multipleOf must be a number > 0")
        return INVALID
    return argument


def _narrow(domain: Domain, argument: int | float, merge: Merge) -> Domain:
    return replace(domain, multiples=(*domain.multiples, argument))


def _check(node: Node, argument: int | float, instance: JSON, recurse: object) -> bool:
    return not is_number(instance) or agrees(instance, (argument,))  # type: ignore[arg-type]


def _fails_everywhere(value: int | float, factor: int | float) -> bool:
    """Not a multiple under the exact reading nor under float division."""
    if is_multiple(value, factor):
        return False
    if isinstance(factor, float):
        quotient = value / factor
        return math.isfinite(quotient) and int(quotient) != quotient
    return bool(value % factor)


def between(value: JSON, node: Node, factor: int | float) -> JSON:
    """A number between two multiples, within the bounds, near `value` when floats allow
    (far from zero a float may have no room between two multiples)."""
    d = node.domain
    integer_only = "integer" in d.types and "number" not in d.types
    half = exact(factor) / 2
    offsets = (1, -1, 2, -2, 3, -3) if integer_only else (half, -half, half / 2, -half / 2)
    bases = [exact(value)] if is_number(value) else []  # type: ignore[arg-type]
    bases += [exact(b) for b in (0, d.lo, d.hi) if b is not None]
    for base in bases:
        for offset in offsets:
            candidate = base + offset
            number: int | float = (
                candidate.numerator if candidate.denominator == 1 else float(candidate)
            )
            inside = (d.lo is None or number >= d.lo) and (d.hi is None or number <= d.hi)
            if inside and _fails_everywhere(number, factor):
                return number
    return float(half)


def _recipes(node: Node, argument: int | float, ctx: RecipeContext) -> Iterable[Recipe]:
    d = node.domain
    integer_only = "integer" in d.types and "number" not in d.types
    if integer_only and is_multiple(1, argument):
        return ()  # every integer is a multiple: no integer lies between two

    def make(value: JSON, maker: Maker) -> JSON:
        return between(value, node, argument)

    needs = "integer" if integer_only else "number"
    return (Recipe(FAMILY, "multipleOf", "between-multiples", make, needs=needs),)


MULTIPLE_OF = Keyword(
    "multipleOf", _parse, _narrow, _check, FAMILY, _recipes, instance_types=NUMBERS
)
