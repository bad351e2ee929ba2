"""String lengths: `minLength` and `maxLength`, counted in code points (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.canonical import JSON
from toolfuzz_gate.core.keywords.base import Keyword, Maker, ParseContext, Recipe, parse_count
from toolfuzz_gate.core.limits import Limits
from toolfuzz_gate.core.node import Domain, Node

FAMILY = "length"


def resize(value: JSON, length: int) -> str:
    """`value` cut or padded (with its own last character) to `length` code points."""
    text = value if isinstance(value, str) else ""
    if len(text) >= length:
        return text[:length]
    pad = text[-1] if text else "a"
    return text + pad * (length - len(text))


def _parse_min(argument: Any, ctx: ParseContext) -> Any:
    return parse_count(argument, ctx, "minLength")


def _parse_max(argument: Any, ctx: ParseContext) -> Any:
    return parse_count(argument, ctx, "maxLength")


def _narrow_min(domain: Domain, argument: int) -> Domain:
    return replace(domain, min_length=max(domain.min_length, argument))


def _narrow_max(domain: Domain, argument: int) -> Domain:
    hi = argument if domain.max_length is None else min(domain.max_length, argument)
    return replace(domain, max_length=hi)


def _check_min(node: Node, argument: int, instance: JSON, recurse: object) -> bool:
    return not isinstance(instance, str) or len(instance) >= argument


def _check_max(node: Node, argument: int, instance: JSON, recurse: object) -> bool:
    return not isinstance(instance, str) or len(instance) <= argument


def _min_recipes(node: Node, argument: int, limits: Limits) -> Iterable[Recipe]:
    if argument < 1:
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        return resize(value, argument - 1)

    return (Recipe(FAMILY, "minLength", "below-minLength", make, needs="string"),)


def _max_recipes(node: Node, argument: int, limits: Limits) -> Iterable[Recipe]:
    if argument + 1 > limits.max_string_bytes:
        return ()  # the near-miss would itself break the string size limit

    def make(value: JSON, maker: Maker) -> JSON:
        # ASCII padding keeps the mutant inside the byte limit whatever the value held.
        return resize(value, argument).encode("ascii", "replace").decode() + "x"

    return (Recipe(FAMILY, "maxLength", "above-maxLength", make, needs="string"),)


MIN_LENGTH = Keyword("minLength", _parse_min, _narrow_min, _check_min, FAMILY, _min_recipes)
MAX_LENGTH = Keyword("maxLength", _parse_max, _narrow_max, _check_max, FAMILY, _max_recipes)
