"""Objects: `properties`, `required`, `additionalProperties` (boolean form) (pure).

`additionalProperties` governs the keys neither `properties` names nor a
`patternProperties` pattern matches."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from toolfuzz_gate.core.canonical import JSON
from toolfuzz_gate.core.keywords.base import INVALID, Keyword, Maker, ParseContext, Recipe, Recurse
from toolfuzz_gate.core.limits import Limits
from toolfuzz_gate.core.node import Domain, Node

UNKNOWN_KEY = "unexpectedKey"
UNKNOWN_KEY_TRIES = 8


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


def _narrow_properties(domain: Domain, argument: tuple[tuple[str, Node], ...]) -> Domain:
    if not domain.properties:
        return replace(domain, properties=argument)
    from toolfuzz_gate.core.compose import conjoin

    merged = dict(domain.properties)
    for name, child in argument:
        merged[name] = conjoin(merged[name], child) if name in merged else child
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


def _narrow_required(domain: Domain, argument: tuple[str, ...]) -> Domain:
    return replace(domain, required=tuple(dict.fromkeys(domain.required + argument)))


def _check_required(node: Node, argument: tuple[str, ...], instance: JSON, recurse: object) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in argument)


def _required_recipes(node: Node, argument: tuple[str, ...], limits: Limits) -> Iterable[Recipe]:
    def remover(name: str) -> Recipe:
        def make(value: JSON, maker: Maker) -> JSON:
            assert isinstance(value, dict)
            return {k: v for k, v in value.items() if k != name}

        return Recipe("required", "required", f"missing:{name}", make, needs="object")

    return [remover(name) for name in argument]


def _parse_additional(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, bool):
        ctx.problem(
            "schema.unsupported-keyword",
            "additionalProperties",
            "additionalProperties as a schema is not supported yet; only true or false",
        )
        return INVALID
    return argument


@dataclass(frozen=True)
class Additional:
    """`additionalProperties` bound to its siblings: which names it does not govern."""

    allowed: bool
    known: frozenset[str]
    patterns: tuple[Matcher, ...] = ()

    def governs(self, key: str) -> bool:
        return key not in self.known and not any(p.matches(key) for p in self.patterns)


class Matcher(Protocol):
    def matches(self, name: str) -> bool: ...


def _bind_additional(argument: bool, siblings: Mapping[str, Any]) -> Additional:
    properties = siblings.get("properties", ())
    patterns = tuple(matcher for matcher, _ in siblings.get("patternProperties", ()))
    return Additional(argument, frozenset(name for name, _ in properties), patterns)


def _narrow_additional(domain: Domain, argument: Additional) -> Domain:
    return replace(domain, additional=domain.additional and argument.allowed)


def _check_additional(node: Node, argument: Additional, instance: JSON, recurse: object) -> bool:
    if argument.allowed or not isinstance(instance, dict):
        return True
    return not any(argument.governs(key) for key in instance)


def unknown_key(known: Iterable[str], patterns: Iterable[Matcher] = ()) -> str | None:
    """A key outside `known` that no pattern matches (None when every try is matched)."""
    taken = set(known)
    matchers = tuple(patterns)
    for n in range(1, UNKNOWN_KEY_TRIES + 1):
        for key in (f"{UNKNOWN_KEY}{n}" if n > 1 else UNKNOWN_KEY, f"~{n}", f"{n} {n}"):
            if key not in taken and not any(m.matches(key) for m in matchers):
                return key
    return None


def _additional_recipes(node: Node, argument: Additional, limits: Limits) -> Iterable[Recipe]:
    if argument.allowed:
        return ()
    key = unknown_key(argument.known, argument.patterns)
    if key is None:
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        assert isinstance(value, dict)
        return {**value, key: "x"}

    return (Recipe("additionalProperties", "additionalProperties", "unknown-key", make, "object"),)


PROPERTIES = Keyword("properties", _parse_properties, _narrow_properties, _check_properties)
REQUIRED = Keyword(
    "required", _parse_required, _narrow_required, _check_required, "required", _required_recipes
)
ADDITIONAL_PROPERTIES = Keyword(
    "additionalProperties",
    _parse_additional,
    _narrow_additional,
    _check_additional,
    "additionalProperties",
    _additional_recipes,
    _bind_additional,
)
