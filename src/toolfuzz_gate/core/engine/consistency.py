"""Contradictions a node's own keywords show: domains that are empty although each keyword
alone is satisfiable (pure).

`iter_local_problems` judges one compiled schema object before references are linked: its
bounds, formats and pattern, its required names against what defines them, its enum and
const members against its other keywords, and the object, array and multiple keywords
together (`iter_contradictions`: each reported only when the node admits no other type;
`{"minProperties": 3, "maxProperties": 1}` still admits every string).
`iter_linked_contradictions` judges again, once references are linked, what could not be
judged before; `prove_empty`, what the parts of a composed node prove together when the
engine could not build a value for it (`core.engine.satisfiable`). `core.engine.compile`
reports each as `schema.contradiction` at the keyword named.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import replace

from toolfuzz_gate.core.engine.array_elements import finite_values
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import ALL_TYPES, intersect_types
from toolfuzz_gate.core.schema.conjoin import effective, expands_reference
from toolfuzz_gate.core.schema.keywords import IN_PLACE, KEYWORDS
from toolfuzz_gate.core.schema.keywords.formats import contradictions as format_contradictions
from toolfuzz_gate.core.schema.keywords.pattern import length_contradiction, unbuildable
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.multiples import (
    SEARCH_STEPS,
    common_multiple,
    multiple_range,
    nearest_agreeing,
)
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.errors import SchemaProblem

Contradiction = tuple[str, str, tuple[str | int, ...]]
"""(keyword, message, pointer tokens below the keyword)."""
Problem = tuple[str, str, str, tuple[str | int, ...]]
"""(code, keyword, message, pointer tokens below the keyword)."""

LINKED = frozenset(name for name in IN_PLACE if KEYWORDS[name].instance_types is None)
"""Keywords applying schemas to any instance itself: one may hide a `$ref` not yet linked, so
members and names are not judged by it before linking. (The dependent schemas, which apply
only to objects, are: they are read like the object's other member keywords.)"""
NOT_LOCAL = LINKED | {"enum", "const"}


def _problem(code: str, keyword: str, message: str, *tokens: str | int) -> Problem:
    return code, keyword, message, tokens


def iter_local_problems(node: Node, limits: Limits, members_read: bool) -> Iterator[Problem]:
    """Every contradiction (and unbuildable pattern) `node`'s own keywords show before
    references are linked, in the order the compiler reports them. `members_read`: its
    `properties` and `patternProperties` compiled without problems (else which names the
    object defines is not known)."""
    d = node.domain
    if not d.types:
        yield _problem("schema.contradiction", "type", "no type remains possible")
    if d.lo is not None and d.hi is not None:
        if d.lo > d.hi:
            yield _problem("schema.contradiction", "minimum", f"minimum {d.lo} > maximum {d.hi}")
        elif d.types <= {"integer"} and math.ceil(d.lo) > math.floor(d.hi):
            yield _problem("schema.contradiction", "minimum", "no integer lies within the bounds")
    if d.max_length is not None and d.min_length > d.max_length:
        yield _problem(
            "schema.contradiction",
            "minLength",
            f"minLength {d.min_length} > maxLength {d.max_length}",
        )
    for message in format_contradictions(node, limits):
        yield _problem("schema.contradiction", "format", message)
    if d.min_length > limits.max_string_bytes:
        yield _problem(
            "schema.limit-string",
            "minLength",
            f"minLength {d.min_length} exceeds the {limits.max_string_bytes}-byte string limit",
        )
    if d.max_items is not None and d.min_items > d.max_items:
        yield _problem(
            "schema.contradiction", "minItems", f"minItems {d.min_items} > maxItems {d.max_items}"
        )
    if d.min_items > len(d.prefix_items) and d.items is not None and d.items.never:
        yield _problem("schema.contradiction", "minItems", "minItems > 0 but items admits nothing")
    pattern = node.argument("pattern")
    if pattern is not None and (reason := length_contradiction(pattern, d)) is not None:
        yield _problem("schema.contradiction", "pattern", reason)
    elif pattern is not None and (reason := unbuildable(pattern, d, limits)) is not None:
        yield _problem("schema.unbuildable", "pattern", reason)
    known = {name for name, _ in d.properties}
    # References are not linked yet: names and members are judged by local keywords only.
    names = [
        replace(n, keywords=tuple(kv for kv in n.keywords if kv[0] not in LINKED))
        for n in d.property_names
    ]
    for index, name in enumerate(d.required):
        child = d.property_node(name)
        patterned = [n for pattern, n in d.pattern_properties if pattern.matches(name)]
        if not all(validate_unlinked(n, name) for n in names):
            yield _problem(
                "schema.contradiction",
                "required",
                f"{name!r} is required but propertyNames forbids it",
                index,
            )
        elif not d.additional and name not in known and not patterned and members_read:
            yield _problem(
                "schema.contradiction",
                "required",
                f"{name!r} is required but the closed object does not define it",
                index,
            )
        elif _admits_no_value([child, *patterned] if child is not None else patterned):
            yield _problem(
                "schema.contradiction",
                "required",
                f"{name!r} is required but admits no value",
                index,
            )
    for keyword, message, tokens in iter_contradictions(node):
        yield _problem("schema.contradiction", keyword, message, *tokens)
    listed = node.argument("enum")
    constant = node.argument("const")
    # Members are judged against the object's own keywords: references are not linked yet.
    beyond = replace(node, keywords=tuple(kv for kv in node.keywords if kv[0] not in NOT_LOCAL))
    if listed is not None:
        for index, member in enumerate(listed):
            if not validate_unlinked(beyond, member):
                yield _problem(
                    "schema.contradiction",
                    "enum",
                    "this member violates the node's other keywords, so it can never be valid",
                    index,
                )
    if constant is not None:
        if not validate_unlinked(beyond, constant[0]):
            yield _problem("schema.contradiction", "const", "the constant violates other keywords")
        elif not d.enum:
            yield _problem("schema.contradiction", "const", "the constant is not among the enum")


def validate_unlinked(node: Node, instance: JSON) -> bool:
    """`validate_node` before references are linked: a `$ref`, at any depth, is taken as
    satisfied, so a member is refused only for what the compiled keywords prove."""
    if node.never:
        return False
    for name, argument in node.keywords:
        check = KEYWORDS[name].check
        if name != "$ref" and check is not None:
            if not check(node, argument, instance, validate_unlinked):
                return False
    return True


def _admits_no_value(nodes: list[Node]) -> bool:
    """Whether the schemas governing one key cancel out, judged before linking."""
    types = ALL_TYPES
    for node in nodes:
        if node.never:
            return True
        types = types & node.domain.types
    return bool(nodes) and not types


def iter_contradictions(node: Node) -> Iterator[Contradiction]:
    """The object, array and multiple keywords together."""
    yield from _object_sizes(node)
    yield from _dependencies(node)
    yield from _multiples(node)
    yield from _arrays(node)


def _possible_names(node: Node) -> int | None:
    """How many member names an object may have; None when unbounded."""
    d = node.domain
    if d.additional or node.argument("patternProperties") is not None:
        return None
    return sum(not child.never for _, child in d.properties)


def _object_sizes(node: Node) -> Iterator[Contradiction]:
    d = node.domain
    if not d.types <= {"object"}:
        return  # values of other types remain valid
    if d.max_properties is not None and d.min_properties > d.max_properties:
        yield (
            "minProperties",
            f"minProperties {d.min_properties} > maxProperties {d.max_properties}",
            (),
        )
    possible = _possible_names(node)
    if possible is not None and d.min_properties > possible:
        yield (
            "minProperties",
            f"minProperties {d.min_properties} but the closed object has only {possible} names",
            (),
        )
    if d.max_properties is not None and len(_owed(node)) > d.max_properties:
        yield (
            "maxProperties",
            f"{len(_owed(node))} names are required (with their dependencies) "
            f"but maxProperties is {d.max_properties}",
            (),
        )


def _owed(node: Node) -> set[str]:
    """The required names and every name they depend on."""
    owed: set[str] = set()
    pending = list(node.domain.required)
    while pending:
        name = pending.pop()
        if name not in owed:
            owed.add(name)
            pending.extend(
                dep for key, deps in node.domain.dependent_required if key == name for dep in deps
            )
    return owed


def _dependencies(node: Node) -> Iterator[Contradiction]:
    d = node.domain
    if not d.types <= {"object"}:
        return
    keyword = "dependentRequired" if node.argument("dependentRequired") else "dependencies"
    owed = _owed(node)
    for trigger, dependents in d.dependent_required:
        for dependent in dependents:
            child = d.property_node(dependent)
            impossible = child.never if child is not None else not d.additional
            if impossible and trigger in owed:
                yield (
                    keyword,
                    f"{trigger!r} is required and needs {dependent!r}, which admits no value",
                    (trigger,),
                )


def _multiples(node: Node) -> Iterator[Contradiction]:
    d = node.domain
    if not d.multiples or not d.types <= {"integer", "number"} or d.lo is None or d.hi is None:
        return
    integer = "number" not in d.types
    step = common_multiple(d.multiples, integer)
    if step is None:
        return
    low, high = multiple_range(d.lo, d.hi, step)
    if low > high:
        yield ("multipleOf", f"no multiple of {step} lies within [{d.lo}, {d.hi}]", ())
    elif high - low < 2 * SEARCH_STEPS and all(
        nearest_agreeing(start, (low, high), step, d.multiples, integer) is None
        for start in (low, high)
    ):
        # every candidate was tried: the few multiples there are all fail float division
        yield (
            "multipleOf",
            f"the multiples of {step} within [{d.lo}, {d.hi}] all fail the jsonschema "
            "library's floating-point division (it rejects 7 as a multiple of 0.07)",
            (),
        )


def _arrays(node: Node) -> Iterator[Contradiction]:
    d = node.domain
    if not d.types <= {"array"}:
        return  # values of other types remain valid
    positional = "prefixItems" if node.argument("prefixItems") is not None else "items"
    for index, schema in enumerate(d.prefix_items[: d.min_items]):
        if schema.never:
            yield (positional, f"item {index} is required by minItems but admits nothing", (index,))
    if d.unique_items and not d.prefix_items:
        values = finite_values(d.items)
        if values is not None and len(values) < d.min_items:
            yield (
                "uniqueItems",
                f"minItems {d.min_items} distinct items, but items admits only {len(values)}",
                (),
            )
    if d.contains is None:
        return
    room = _closed_length(node)
    if room is not None and d.min_contains > room:
        yield ("contains", f"{d.min_contains} items must match contains; at most {room} fit", ())
    if d.min_contains > 0 and not any(
        intersect_types(types, d.contains.domain.types) for types in _position_types(node)
    ):
        yield ("contains", "no item position admits a type that contains matches", ())
    if d.contains.never and d.min_contains > 0:
        yield ("contains", "contains admits nothing, so no item can match it", ())
    if d.max_contains is not None and d.min_contains > d.max_contains:
        yield (
            "minContains",
            f"minContains {d.min_contains} > maxContains {d.max_contains}",
            (),
        )
    if d.max_items is not None and d.min_contains > d.max_items:
        yield ("minContains", f"minContains {d.min_contains} > maxItems {d.max_items}", ())


def iter_linked_contradictions(nodes: Iterable[Node]) -> Iterator[SchemaProblem]:
    """What `_arrays` judges before linking, judged again through the `$ref` it could not
    follow then: `uniqueItems` over `items: {"$ref": ...}` (pydantic's `set[Color]`) whose
    target admits fewer distinct values than `minItems` asks for."""
    for node in nodes:
        d = node.domain
        if node.never or not d.unique_items or d.prefix_items or d.items is None:
            continue
        if d.types <= {"array"} and expands_reference(d.items):
            values = finite_values(effective(d.items))
            if values is not None and len(values) < d.min_items:
                yield SchemaProblem(
                    "schema.contradiction",
                    jp.join(node.pointer, "uniqueItems"),
                    f"minItems {d.min_items} distinct items, but items admits only {len(values)}",
                    "uniqueItems",
                )


def _closed_length(node: Node) -> int | None:
    """How many items the positional schemas leave room for; None when unbounded."""
    d = node.domain
    for index, schema in enumerate(d.prefix_items):
        if schema.never:
            return index
    if d.items is not None and d.items.never:
        return len(d.prefix_items)
    return None


def _position_types(node: Node) -> list[frozenset[str]]:
    """The types each item position admits (the last entry for all positions after)."""
    d = node.domain
    found = [schema.domain.types for schema in d.prefix_items if not schema.never]
    if d.items is None:
        found.append(ALL_TYPES)
    elif not d.items.never:
        found.append(d.items.domain.types)
    return found


def prove_empty(node: Node, merged: Node) -> SchemaProblem | None:
    """A contradiction the parts of a composed `node` prove (`merged` is its merged
    reading), or None: the cases merging alone cannot show."""
    # Every value is an object with each required name; a branch closed by
    # `additionalProperties: false` allows only the names it knows itself (merging branches
    # only widens what they know, so this never claims too much).
    for index, branch in enumerate(node.argument("allOf") or ()):
        closed = effective(branch).domain
        if closed.additional or not merged.domain.types <= {"object"}:
            continue
        for name in merged.domain.required:
            if closed.property_node(name) is None and not any(
                pattern.matches(name) for pattern, _ in closed.pattern_properties
            ):
                return SchemaProblem(
                    "schema.contradiction",
                    node.pointer,
                    f"{name!r} is required, but allOf/{index} is a closed object that does "
                    "not allow it",
                    "allOf",
                )
    branches = node.argument("oneOf") or ()
    if sum(1 for b in branches if not b.keywords and not b.never) >= 2:  # `true` twice
        return SchemaProblem(
            "schema.contradiction",
            node.pointer,
            "two oneOf branches admit every value, so no value satisfies exactly one",
            "oneOf",
        )
    return None
