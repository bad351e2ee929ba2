"""Which members a generated object has: `required`, optional properties,
`dependentRequired`, `minProperties` / `maxProperties`, keys drawn from `patternProperties`
and extra keys (pure).

Members are decided in property order, each value made as soon as its name is
chosen (so schemas without these keywords draw from the seed exactly as before).
A name comes with every name it depends on, or not at all; optional names are
only taken while the names still owed to `required` fit under `maxProperties`;
extra keys (governed by `additionalProperties`) make up a `minProperties` the
declared properties cannot reach.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.object_keys import admits_nothing, allowed_name, governing

EXTRA_KEY = "extra"
SPARE_KEY_TRIES = 4


@lru_cache(maxsize=8192)
def member_schema(node: Node, name: str) -> Node | None:
    """The schema a member `name` of `node`'s objects must satisfy, or None when it cannot be
    present (memoized: nodes are compared by identity, and generation asks for the same
    members of the same objects case after case).

    A name `properties` defines or a `patternProperties` pattern matches gets every such
    schema merged (`core.schema.object_keys`); any other name is `additionalProperties`'.
    """
    d = node.domain
    if not allowed_name(d, name):
        return None
    child = governing(d, name, d.property_node(name))
    if child is None:
        if not d.additional:
            return None
        child = d.additional_values[0] if d.additional_values else None
        if child is None:
            return Node(node.pointer + "/additionalProperties")
    return None if admits_nothing(child) else child


PlainMember = tuple[str, Node | None, bool]
"""(name, the schema its value is made for or None when it cannot be present, required)."""


@lru_cache(maxsize=4096)
def plain_members(node: Node) -> tuple[PlainMember, ...] | None:
    """The members `MemberPlan.fill` considers for `node`, in its order, when no keyword ties
    one member to another; None when one does (then the plan is needed).

    Without `dependentRequired`, `minProperties`, `maxProperties`, `patternProperties`,
    `propertyNames` or a schema-valued `additionalProperties`, filling an object is a
    fixed walk: each non-`false` property in order (an optional one present when the
    generator says so), then any required name not yet a member. Precomputed because
    generation fills the same objects case after case. Optional names that cannot be
    present stay in the table: the generator still decides on them, drawing as before.
    """
    d = node.domain
    tied = d.dependent_required or d.pattern_properties or d.property_names
    if tied or d.min_properties or d.max_properties is not None or d.additional_values:
        return None
    names = [name for name, _ in d.properties]
    if len(set(names)) != len(names):
        return None
    table: list[PlainMember] = []
    present: set[str] = set()
    for name, child in d.properties:
        if effective(child).never:
            continue
        schema = member_schema(node, name)
        required = name in d.required
        if required and schema is None:
            continue  # never a member, and no decision is drawn for it
        table.append((name, schema, required))
        if required:
            present.add(name)
    for name in dict.fromkeys(d.required):
        schema = None if name in present else member_schema(node, name)
        if schema is not None:
            table.append((name, schema, True))
    return tuple(table)


class MemberPlan:
    """Builds one object's members; `make` generates a value for a member's schema."""

    def __init__(
        self,
        node: Node,
        make: Callable[[Node], JSON],
        draw_key: Callable[[set[str]], str | None] | None = None,
    ) -> None:
        """`node` is the (merged) object schema; `draw_key` offers a fresh key outside a taken
        set (from `patternProperties` or `propertyNames`) when the plain extra names cannot
        be used."""
        self.node = node
        self.domain = node.domain
        self.make = make
        self.draw_key = draw_key
        self.members: dict[str, JSON] = {}
        required = self.domain.required
        closed = required if not self.domain.dependent_required else self._closure(required)
        self.owed = set(closed or required)

    def node_for(self, name: str) -> Node | None:
        return member_schema(self.node, name)

    def _closure(self, names: tuple[str, ...] | list[str]) -> list[str] | None:
        """`names` and all they depend on that are not members yet, or None if one cannot be."""
        group: list[str] = []
        pending = list(names)
        while pending:
            name = pending.pop(0)
            if name in self.members or name in group:
                continue
            if self.node_for(name) is None:
                return None
            group.append(name)
            pending.extend(
                dep for key, deps in self.domain.dependent_required if key == name for dep in deps
            )
        return group

    def add(self, name: str, forced: bool = False) -> bool:
        """Make `name` a member with its dependencies, if they fit; True when it is one."""
        if not self.domain.dependent_required:  # the common case: a name needs nothing else
            return name in self.members or self._add_alone(name, forced)
        group = self._closure([name])
        if group is None:
            return False
        cap = self.domain.max_properties
        if not forced and cap is not None:
            if len(set(self.members) | set(group) | self.owed) > cap:
                return False
        for member in group:
            node = self.node_for(member)
            assert node is not None
            self.members[member] = self.make(node)
        return True

    def _add_alone(self, name: str, forced: bool) -> bool:
        node = self.node_for(name)
        if node is None:
            return False
        cap = self.domain.max_properties
        if not forced and cap is not None and len(set(self.members) | {name} | self.owed) > cap:
            return False
        self.members[name] = self.make(node)
        return True

    def fill(
        self, include: Callable[[], bool], extra: bool, keyed: Iterable[str] = ()
    ) -> dict[str, JSON]:
        """`keyed` are optional names drawn from `patternProperties` patterns."""
        d = self.domain
        for name, child in d.properties:
            if name in self.members or effective(child).never:
                continue
            if name in d.required:
                self.add(name, forced=True)
            elif include():
                self.add(name)
        for name in d.required:
            if name not in self.members:
                self.add(name, forced=True)
        for name in keyed:
            if name not in self.members:
                self.add(name)
        for name, child in d.properties:
            if len(self.members) >= d.min_properties:
                break
            if name not in self.members and not effective(child).never:
                self.add(name)
        if extra and d.additional_values:
            self.add_extra()
        while len(self.members) < d.min_properties and self.add_extra():
            pass
        return self.members

    def add_extra(self) -> bool:
        """One more member outside `properties`, when the object admits one."""
        d = self.domain
        taken = {name for name, _ in d.properties} | {key for key, _ in d.dependent_required}
        taken |= set(self.members)
        if d.additional:
            key, n = EXTRA_KEY, 1
            while key in taken:
                n += 1
                key = f"{EXTRA_KEY}{n}"
            if self.add(key):
                return True
        for _ in range(SPARE_KEY_TRIES if self.draw_key is not None else 0):
            assert self.draw_key is not None
            drawn = self.draw_key(taken)
            if drawn is not None and drawn not in taken and self.add(drawn):
                return True
        return False
