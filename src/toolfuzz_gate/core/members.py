"""Which members a generated object has: `required`, optional properties,
`dependentRequired`, `minProperties` / `maxProperties` and extra keys (pure).

Members are decided in property order, each value made as soon as its name is
chosen (so schemas without these keywords draw from the seed exactly as before).
A name comes with every name it depends on, or not at all; optional names are
only taken while the names still owed to `required` fit under `maxProperties`;
extra keys (governed by `additionalProperties`) make up a `minProperties` the
declared properties cannot reach.
"""

from __future__ import annotations

from collections.abc import Callable

from toolfuzz_gate.core.canonical import JSON
from toolfuzz_gate.core.compose import effective
from toolfuzz_gate.core.node import Domain, Node

EXTRA_KEY = "extra"


class MemberPlan:
    """Builds one object's members; `make` generates a value for a member's schema."""

    def __init__(self, domain: Domain, pointer: str, make: Callable[[Node], JSON]) -> None:
        self.domain = domain
        self.pointer = pointer
        self.make = make
        self.members: dict[str, JSON] = {}
        self.owed = set(self._closure(domain.required) or domain.required)

    def node_for(self, name: str) -> Node | None:
        """The schema a member's value must satisfy, or None when it cannot be present."""
        d = self.domain
        child = d.property_node(name)
        if child is None:
            if not d.additional:
                return None
            child = d.additional_values[0] if d.additional_values else None
            if child is None:
                return Node(self.pointer + "/additionalProperties")
        return None if effective(child).never else child

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

    def fill(self, include: Callable[[], bool], extra: bool) -> dict[str, JSON]:
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
        if not d.additional:
            return False
        taken = {name for name, _ in d.properties} | {key for key, _ in d.dependent_required}
        taken |= set(self.members)
        key, n = EXTRA_KEY, 1
        while key in taken:
            n += 1
            key = f"{EXTRA_KEY}{n}"
        return self.add(key)
