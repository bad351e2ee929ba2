"""Keywords that apply to every type: `type`, `enum`, and the annotations (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_compact
from toolfuzz_gate.core.jsonutil.values import (
    TYPE_NAMES,
    equality_key,
    has_type,
    intersect_types,
    is_number,
    json_equal,
    json_type,
)
from toolfuzz_gate.core.schema.keywords.keyword import (
    INVALID,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    parse_any,
)
from toolfuzz_gate.core.schema.node import Domain, Node

ANNOTATIONS = (
    "title",
    "description",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
)


def _parse_type(argument: Any, ctx: ParseContext) -> Any:
    names = [argument] if isinstance(argument, str) else argument
    if not isinstance(names, list) or not names:
        ctx.problem("schema.invalid-keyword-value", "type", "type must be a name or a list")
        return INVALID
    result: list[str] = []
    for index, name in enumerate(names):
        at = () if isinstance(argument, str) else (index,)
        if not isinstance(name, str) or name not in TYPE_NAMES:
            ctx.problem(
                "schema.unknown-type",
                "type",
                f"unknown type {canonical_compact(name)[:40]}; expected one of "
                + ", ".join(TYPE_NAMES)
                + ctx.type_hint(name),
                *at,
            )
            return INVALID
        if name in result:
            ctx.problem("schema.invalid-keyword-value", "type", f"type {name} is repeated", *at)
            return INVALID
        result.append(name)
    return frozenset(result)


def _narrow_type(domain: Domain, argument: frozenset[str], merge: Merge) -> Domain:
    return replace(domain, types=intersect_types(domain.types, argument))


def _check_type(node: Node, argument: frozenset[str], instance: JSON, recurse: object) -> bool:
    return has_type(instance, argument)


# The wrong types lax handlers wrongly accept: numeric strings, 4.5 for an integer, null, ...
def _type_recipes(node: Node, argument: frozenset[str], ctx: RecipeContext) -> Iterable[Recipe]:
    def numeric_string(value: JSON, maker: Maker) -> JSON:
        return str(value) if is_number(value) else "42"

    def non_integer(value: JSON, maker: Maker) -> JSON:
        # Beyond 2**52 a float has no room for a half: 2**53 - 1 + 0.5 rounds to an integer.
        if is_number(value) and abs(value) < 2**52:  # type: ignore[arg-type]
            return value + 0.5  # type: ignore[operator]
        return 0.5

    recipes: list[Recipe] = []
    numeric = "number" in argument or "integer" in argument
    if numeric and "string" not in argument:
        recipes.append(Recipe("type", "type", "numeric-string", numeric_string))
    if "integer" in argument and "number" not in argument:
        recipes.append(Recipe("type", "type", "non-integer", non_integer))
    if "null" not in argument:
        recipes.append(Recipe("type", "type", "null", lambda v, m: None))
    if "boolean" not in argument:
        recipes.append(Recipe("type", "type", "boolean", lambda v, m: True))
    if "boolean" in argument and "string" not in argument:
        recipes.append(Recipe("type", "type", "string-false", lambda v, m: "false"))
    if "array" in argument and "object" not in argument:
        recipes.append(Recipe("type", "type", "object", lambda v, m: {}))
    if "object" in argument and "array" not in argument:
        recipes.append(Recipe("type", "type", "array", lambda v, m: []))
    return recipes


class Members(tuple[JSON, ...]):
    """An `enum`'s (or `const`'s) distinct members, in order, with the key set that makes
    membership one lookup: checking, narrowing and reading an enum cost the same whatever
    its length (`equality_key` collides exactly when `json_equal` holds)."""

    keys: frozenset[Any]
    containers: bool
    """Whether a member is an array or an object (only then can a container be a member)."""

    def __new__(cls, members: Iterable[JSON]) -> Members:
        seen: set[Any] = set()
        distinct: list[JSON] = []
        for member in members:
            key = equality_key(member)
            if key not in seen:
                seen.add(key)
                distinct.append(member)
        self = super().__new__(cls, distinct)
        self.keys = frozenset(seen)
        self.containers = any(isinstance(m, list | dict) for m in distinct)
        return self

    def admits(self, instance: JSON) -> bool:
        if isinstance(instance, list | dict) and not self.containers:
            return False
        try:
            return equality_key(instance) in self.keys
        except (ValueError, OverflowError):  # NaN or an infinity: no JSON number
            return any(json_equal(instance, member) for member in self)


def _parse_enum(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, list):
        ctx.problem("schema.invalid-keyword-value", "enum", "enum must be a list")
        return INVALID
    if not argument:
        ctx.problem("schema.contradiction", "enum", "enum is empty: no value can be valid")
        return INVALID
    if len(argument) > ctx.limits.max_enum:
        ctx.problem(
            "schema.limit-enum",
            "enum",
            f"enum has {len(argument)} members; at most {ctx.limits.max_enum} are supported",
        )
        return INVALID
    return Members(argument)


def _narrow_enum(domain: Domain, argument: tuple[JSON, ...], merge: Merge) -> Domain:
    """Members allowed by every enum-like keyword seen so far (`const` is one too)."""
    if domain.enum is None:
        return replace(domain, enum=argument)
    seen = domain.enum if isinstance(domain.enum, Members) else Members(domain.enum)
    return replace(domain, enum=Members(m for m in argument if seen.admits(m)))


def _check_enum(node: Node, argument: tuple[JSON, ...], instance: JSON, recurse: object) -> bool:
    if isinstance(argument, Members):
        return argument.admits(instance)
    return any(json_equal(instance, member) for member in argument)


def _other_type(member: JSON) -> JSON:
    if isinstance(member, str):
        return len(member)
    if isinstance(member, bool) or member is None:
        return canonical_compact(member)
    if is_number(member):
        return canonical_compact(member)
    return canonical_compact(member)[:64]


def _enum_recipes(node: Node, argument: tuple[JSON, ...], ctx: RecipeContext) -> Iterable[Recipe]:
    strings = [m for m in argument if isinstance(m, str)]
    cased = [m for m in strings if m.swapcase() != m]
    recipes: list[Recipe] = []
    if cased:
        first = cased[0]
        recipes.append(Recipe("enum", "enum", "case-changed", lambda v, m: first.swapcase()))
    if strings:
        padded = f" {strings[0]} "
        recipes.append(Recipe("enum", "enum", "whitespace-padded", lambda v, m: padded))
    other = _other_type(argument[0])
    recipes.append(Recipe("enum", "enum", "other-type", lambda v, m: other))
    numbers = [m for m in argument if is_number(m)]
    outside: JSON
    if numbers and not strings:
        outside = max(numbers) + 1  # type: ignore[type-var,operator]
    else:
        outside = "toolfuzz-not-a-member"
    recipes.append(Recipe("enum", "enum", "outside", lambda v, m: outside))
    return recipes


def annotation(name: str) -> Keyword:
    return Keyword(name, parse_any)


def _parse_const(argument: Any, ctx: ParseContext) -> Any:
    return Members((argument,))  # a one-member enum: the same narrowing, check and near-misses


def _const_recipes(node: Node, argument: tuple[JSON, ...], ctx: RecipeContext) -> Iterable[Recipe]:
    return [
        Recipe("enum", "const", recipe.variant, recipe.make, recipe.needs)
        for recipe in _enum_recipes(node, argument, ctx)
    ]


TYPE = Keyword("type", _parse_type, _narrow_type, _check_type, "type", _type_recipes)
ENUM = Keyword("enum", _parse_enum, _narrow_enum, _check_enum, "enum", _enum_recipes)
CONST = Keyword("const", _parse_const, _narrow_enum, _check_enum, "enum", _const_recipes)

__all__ = ["ANNOTATIONS", "CONST", "ENUM", "TYPE", "annotation", "json_type"]
