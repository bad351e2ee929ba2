"""Objects: `properties`, `required`, `additionalProperties` (a boolean or a schema) (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.keyword import (
    INVALID,
    OBJECTS,
    SCHEMA,
    SCHEMA_MAP,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    Recurse,
)
from toolfuzz_gate.core.schema.node import Domain, Node

UNKNOWN_KEY = "unexpectedKey"
FREE_KEY_BASES = (UNKNOWN_KEY, "x-unknown", "_", "0")


def _parse_properties(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, dict):
        ctx.problem("schema.invalid-keyword-value", "properties", "properties must be an object")
        return INVALID
    if len(argument) > ctx.limits.max_properties:
        ctx.problem(
            "schema.limit-properties",
            "properties",
            f"{len(argument)} properties; at most {ctx.limits.max_properties} are supported",
        )
        return INVALID
    return tuple((name, ctx.subschema(sub, "properties", name)) for name, sub in argument.items())


def _narrow_properties(
    domain: Domain, argument: tuple[tuple[str, Node], ...], merge: Merge
) -> Domain:
    if not domain.properties:
        return replace(domain, properties=argument)
    merged = dict(domain.properties)
    for name, child in argument:
        merged[name] = merge(merged[name], child) if name in merged else child
    return replace(domain, properties=tuple(merged.items()))


def _check_properties(
    node: Node, argument: tuple[tuple[str, Node], ...], instance: JSON, recurse: Recurse
) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(recurse(child, instance[name]) for name, child in argument if name in instance)


def _parse_required(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, list) or not all(isinstance(n, str) for n in argument):
        ctx.problem("schema.invalid-keyword-value", "required", "required must list strings")
        return INVALID
    if len(set(argument)) != len(argument):
        ctx.problem("schema.invalid-keyword-value", "required", "required repeats a name")
        return INVALID
    return tuple(argument)


def _narrow_required(domain: Domain, argument: tuple[str, ...], merge: Merge) -> Domain:
    return replace(domain, required=tuple(dict.fromkeys(domain.required + argument)))


def _check_required(node: Node, argument: tuple[str, ...], instance: JSON, recurse: object) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in argument)


def _required_recipes(
    node: Node, argument: tuple[str, ...], ctx: RecipeContext
) -> Iterable[Recipe]:
    def remover(name: str) -> Recipe:
        def make(value: JSON, maker: Maker) -> JSON:
            assert isinstance(value, dict)
            return {k: v for k, v in value.items() if k != name}

        return Recipe("required", "required", f"missing:{name}", make, needs="object")

    return [remover(name) for name in argument]


def _parse_additional(argument: Any, ctx: ParseContext) -> Any:
    if isinstance(argument, bool):
        return argument
    if not isinstance(argument, dict):
        ctx.problem(
            "schema.invalid-keyword-value",
            "additionalProperties",
            "additionalProperties must be a boolean or a schema",
        )
        return INVALID
    return ctx.subschema(argument, "additionalProperties")


@dataclass(frozen=True)
class Additional:
    """`additionalProperties` bound to its siblings: which names it does not govern.

    `allowed` is true, false, or the schema every governed member must satisfy;
    `patterns` are the `patternProperties` (matcher, schema) pairs, whose names it
    does not govern either.
    """

    allowed: bool | Node
    known: frozenset[str]
    patterns: tuple[tuple[Any, Node], ...] = ()

    def governs(self, name: str) -> bool:
        return name not in self.known and not any(m.matches(name) for m, _ in self.patterns)

    def free_key(self) -> str | None:
        """A member name this keyword governs (where an unknown key goes), or None when
        the patterns leave none among the few names tried (`.*` matches them all)."""
        for base in FREE_KEY_BASES:
            for n in range(1, 9):
                key = base if n == 1 else f"{base}{n}"
                if self.governs(key):
                    return key
        return None


def _bind_additional(argument: bool | Node, siblings: Mapping[str, Any]) -> Additional:
    properties = siblings.get("properties", ())
    patterns = tuple(siblings.get("patternProperties", ()))
    return Additional(argument, frozenset(name for name, _ in properties), patterns)


def _narrow_additional(domain: Domain, argument: Additional, merge: Merge) -> Domain:
    allowed = argument.allowed
    if isinstance(allowed, Node):
        if not allowed.never:
            return replace(domain, additional_values=(*domain.additional_values, allowed))
        allowed = False
    return replace(domain, additional=domain.additional and allowed)


def _check_additional(node: Node, argument: Additional, instance: JSON, recurse: Recurse) -> bool:
    allowed = argument.allowed
    if allowed is True or not isinstance(instance, dict):
        return True
    governed = (key for key in instance if argument.governs(key))
    if allowed is False:
        return not any(True for _ in governed)
    return all(recurse(allowed, instance[key]) for key in governed)


def unknown_key(known: Iterable[str]) -> str:
    taken = set(known)
    key, n = UNKNOWN_KEY, 1
    while key in taken:
        n += 1
        key = f"{UNKNOWN_KEY}{n}"
    return key


def _additional_recipes(node: Node, argument: Additional, ctx: RecipeContext) -> Iterable[Recipe]:
    # A schema-valued form is broken through its own keywords: `core.engine.mutate` walks into
    # it at `free_key()`, so the unknown member's value fails exactly there.
    key = argument.free_key()
    if argument.allowed is not False or key is None:
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        assert isinstance(value, dict)
        return {**value, key: "x"}

    return (Recipe("additionalProperties", "additionalProperties", "unknown-key", make, "object"),)


PROPERTIES = Keyword(
    "properties",
    _parse_properties,
    _narrow_properties,
    _check_properties,
    instance_types=OBJECTS,
    subschemas=SCHEMA_MAP,
)
REQUIRED = Keyword(
    "required",
    _parse_required,
    _narrow_required,
    _check_required,
    "required",
    _required_recipes,
    instance_types=OBJECTS,
)
ADDITIONAL_PROPERTIES = Keyword(
    "additionalProperties",
    _parse_additional,
    _narrow_additional,
    _check_additional,
    "additionalProperties",
    _additional_recipes,
    _bind_additional,
    instance_types=OBJECTS,
    subschemas=SCHEMA,
)
