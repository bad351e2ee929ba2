"""Object member counts and dependencies: `minProperties`, `maxProperties`,
`dependentRequired` (2020-12) and `dependencies` (draft-07) (pure).

A `dependencies` entry may list names or give a schema; the schema form is read as
`dependentSchemas` is (`core.schema.keywords.conditional`), the lists as `dependentRequired`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.conditional import (
    Dependent,
    check_dependents,
    dependent_in_place,
    dependent_recipes,
    dependent_schema,
    narrow_dependents,
)
from toolfuzz_gate.core.schema.keywords.keyword import (
    INVALID,
    OBJECTS,
    CountBound,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
    Recurse,
)
from toolfuzz_gate.core.schema.keywords.objects import unknown_key
from toolfuzz_gate.core.schema.limits import UNSAFE_NAMES
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.options import DRAFT_07, DRAFT_2020_12

SIZE = "object-size"
DEPENDENCY = "dependentRequired"

MIN = CountBound("minProperties", dict, "min_properties", lower=True)
MAX = CountBound("maxProperties", dict, "max_properties", lower=False)


def _parse_min(argument: Any, ctx: ParseContext) -> Any:
    return MIN.parse_within(argument, ctx, ctx.limits.max_properties, "schema.limit-properties")


def _removable(node: Node, value: dict[str, JSON]) -> list[str]:
    """Members a near-miss may drop without breaking `required` or a dependency."""
    d = node.domain
    needed = {dep for key, deps in d.dependent_required if key in value for dep in deps}
    keep = set(d.required) | needed
    return [key for key in reversed(list(value)) if key not in keep]


def _min_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    if argument < 1 or argument - 1 < len(node.domain.required):
        return ()

    def make(value: JSON, maker: Maker) -> JSON:
        assert isinstance(value, dict)
        smaller = dict(value)
        for key in _removable(node, value):
            if len(smaller) < argument:
                break
            del smaller[key]
        return smaller

    return (Recipe(SIZE, "minProperties", "below-minProperties", make, needs="object"),)


def _max_recipes(node: Node, argument: int, ctx: RecipeContext) -> Iterable[Recipe]:
    d = node.domain
    if argument + 1 > 2 * ctx.limits.max_properties:
        return ()
    triggers = {key for key, deps in d.dependent_required if deps}

    def make(value: JSON, maker: Maker) -> JSON:
        assert isinstance(value, dict)
        grown = dict(value)
        for name, child in d.properties:
            if len(grown) > argument:
                return grown
            if name not in grown and name not in triggers and not child.never:
                grown[name] = maker.valid(child)
        extra = d.additional_values[0] if d.additional_values else None
        while len(grown) <= argument:
            key = unknown_key([*grown, *triggers])
            grown[key] = maker.valid(extra) if extra is not None else "x"
        return grown

    return (Recipe(SIZE, "maxProperties", "above-maxProperties", make, needs="object"),)


def _parse_dependents(keyword: str) -> Any:
    def parse(argument: Any, ctx: ParseContext) -> Any:
        if not isinstance(argument, dict):
            ctx.problem("schema.invalid-keyword-value", keyword, f"{keyword} must be an object")
            return INVALID
        pairs: list[tuple[str, Any]] = []
        for name, names in argument.items():
            if keyword == "dependencies" and isinstance(names, dict | bool):
                schema = ctx.subschema(names, keyword, name)
                pairs.append((name, dependent_schema(name, schema, ctx.pointer)))
                continue
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                ctx.problem(
                    "schema.invalid-keyword-value", keyword, f"{keyword} must list names", name
                )
                return INVALID
            if len(set(names)) != len(names):
                ctx.problem(
                    "schema.invalid-keyword-value", keyword, f"{keyword} repeats a name", name
                )
                return INVALID
            for index, dependent in enumerate(names):
                if dependent in UNSAFE_NAMES:
                    ctx.problem(
                        "schema.unsafe-key",
                        keyword,
                        f"the name {dependent!r} is not allowed",
                        name,
                        index,
                    )
                    return INVALID
            pairs.append((name, tuple(names)))
        return tuple(pairs)

    return parse


def _narrow_dependents(
    domain: Domain, argument: tuple[tuple[str, tuple[str, ...]], ...], merge: Merge
) -> Domain:
    return replace(domain, dependent_required=(*domain.dependent_required, *argument))


def _check_dependents(
    node: Node, argument: tuple[tuple[str, tuple[str, ...]], ...], instance: JSON, recurse: object
) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(all(dep in instance for dep in deps) for name, deps in argument if name in instance)


def _dependent_recipes(keyword: str) -> Any:
    def recipes(
        node: Node, argument: tuple[tuple[str, tuple[str, ...]], ...], ctx: RecipeContext
    ) -> Iterable[Recipe]:
        d = node.domain

        def dropper(trigger: str, dependent: str) -> Recipe:
            def make(value: JSON, maker: Maker) -> JSON:
                assert isinstance(value, dict)
                present = dict(value)
                for name in (trigger, *dict(argument)[trigger]):
                    if name not in present:
                        child = d.property_node(name)
                        present[name] = maker.valid(child) if child is not None else "x"
                del present[dependent]
                return present

            return Recipe(
                DEPENDENCY, keyword, f"missing:{trigger}->{dependent}", make, needs="object"
            )

        return [
            dropper(trigger, dependent)
            for trigger, dependents in argument
            for dependent in dependents
            if dependent not in d.required and dependent != trigger
        ]

    return recipes


MIN_PROPERTIES = Keyword(
    "minProperties", _parse_min, MIN.narrow, MIN.check, SIZE, _min_recipes, instance_types=OBJECTS
)
MAX_PROPERTIES = Keyword(
    "maxProperties", MAX.parse, MAX.narrow, MAX.check, SIZE, _max_recipes, instance_types=OBJECTS
)
DEPENDENT_REQUIRED = Keyword(
    "dependentRequired",
    _parse_dependents("dependentRequired"),
    _narrow_dependents,
    _check_dependents,
    DEPENDENCY,
    _dependent_recipes("dependentRequired"),
    drafts=frozenset({DRAFT_2020_12}),
    instance_types=OBJECTS,
)
Entries = tuple[tuple[str, "tuple[str, ...] | Dependent"], ...]
"""The draft-07 `dependencies` argument: each name with the names or the schema it needs."""


def _names(argument: Entries) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((name, needs) for name, needs in argument if isinstance(needs, tuple))


def _schemas(argument: Entries) -> list[Dependent]:
    return [needs for _, needs in argument if isinstance(needs, Dependent)]


def _narrow_dependencies(domain: Domain, argument: Entries, merge: Merge) -> Domain:
    named = _narrow_dependents(domain, _names(argument), merge)
    return narrow_dependents(named, _schemas(argument), "dependencies")


def _check_dependencies(node: Node, argument: Entries, instance: JSON, recurse: Recurse) -> bool:
    return _check_dependents(node, _names(argument), instance, recurse) and check_dependents(
        _schemas(argument), instance, recurse
    )


_named_recipes = _dependent_recipes("dependencies")


def _dependencies_recipes(node: Node, argument: Entries, ctx: RecipeContext) -> Iterable[Recipe]:
    names = _names(argument)
    entries = [
        (d, tuple(pair for pair in argument if pair[1] is not d) or INVALID)
        for d in _schemas(argument)
    ]
    # The names' near-misses read the names only, but `dependencies` is the keyword they break.
    return [
        *_named_recipes(node, names, ctx),
        *dependent_recipes(node, argument, entries, ctx),
    ]


def _names_only(argument: Entries) -> Any:
    """What remains of `dependencies` beside the choices its schemas make (the lists)."""
    names = _names(argument)
    if len(names) == len(argument):
        return argument
    return names or INVALID


def _dependencies_in_place(argument: Entries) -> Iterable[Node]:
    return dependent_in_place(_schemas(argument))


DEPENDENCIES = Keyword(
    "dependencies",
    _parse_dependents("dependencies"),
    _narrow_dependencies,
    _check_dependencies,
    DEPENDENCY,
    _dependencies_recipes,
    drafts=frozenset({DRAFT_07}),
    instance_types=OBJECTS,
    unchosen=_names_only,
    # Its schemas are not walked in documents (`subschemas`): walking them would change what
    # dialect rewriting and lint report on draft-07 schemas.
    in_place=_dependencies_in_place,
)
