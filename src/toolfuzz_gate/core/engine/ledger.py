"""The boundary ledger: every edge of every reachable node, and whether a valid case hit it (pure).

Design note. Random valid cases reach most edges (`core.engine.boundaries`) by themselves,
but not all: an empty array inside an optional member inside one branch of an `anyOf` needs
the member present, that branch taken and the count drawn low, all in one case. So the ledger
walks the schema once, breadth first from the arguments' root, and records each edge with its
route: the steers (`core.engine.steer`) that lead from the root to its node (the branch that
holds it, the member that holds it, an item) and the one that makes the value on it. Each
valid case the oracle accepted is then walked against the schema (`observe`) and the edges it
is on are struck off. An aimed case (`aim`) steers at every edge still open whose route agrees
with the others taken: one case reaches many. An edge aimed at `MAX_TRIES` times and still
not hit is given up (the schema's other keywords keep its value out, or the generator cannot
build it there): it stays listed as unhit, but no longer keeps a stream going.

Nodes are told apart by schema location (JSON Pointer), as the generator sees them: a `$ref`'s
target is walked once, at the location of its first use, and a recursive schema is walked as
deep as it has distinct locations.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from toolfuzz_gate.core.engine.arguments import arguments_node
from toolfuzz_gate.core.engine.boundaries import EDGE_KINDS
from toolfuzz_gate.core.engine.sizes import generated_types
from toolfuzz_gate.core.engine.steer import Steer, add_steers
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.values import intersect_types
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.keywords import BRANCHING
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.validate import validate_node

MAX_TRIES = 2
"""Aimed cases an edge gets before it is given up."""
UNHIT_LISTED = 64
"""Unhit edges a receipt names at most (`unhit` counts them all)."""
BRANCH_DEPTH = 8
"""Branches inside branches followed at one value (a `$ref` loop through `anyOf` ends here)."""

AIM_FROM = 3
"""The first case that may be aimed (cases 0, 1 and 2 are the low, high and emptiest)."""
AIM_EVERY = 2
"""From `AIM_FROM`, one case in this many is aimed while an edge is left to aim at."""

Route = tuple[tuple[str, Steer], ...]
Key = tuple[str, str]


@dataclass(frozen=True)
class Edge:
    pointer: str
    label: str
    route: Route
    """The steers from the root to the edge's node, the edge's own last."""


class Ledger:
    """The edges of one schema's arguments, and which the valid cases have hit."""

    def __init__(self, root: Node, limits: Limits) -> None:
        self.root = arguments_node(root)
        self.edges: list[Edge] = []
        self._open: dict[Key, Edge] = {}
        """Edges not hit yet, in walk order."""
        self._labels: dict[str, set[str]] = {}
        """The labels not hit yet, by node location."""
        self._tries: dict[Key, int] = {}
        self._pending = 0
        """Edges not hit with tries left."""
        self._walk(limits)

    def _walk(self, limits: Limits) -> None:
        queue: deque[tuple[Node, Route]] = deque([(self.root, ())])
        seen: set[str] = set()
        while queue:
            raw, route = queue.popleft()
            node = effective(raw)
            where = node.pointer
            if node.never or where in seen:
                continue
            seen.add(where)
            for kind in EDGE_KINDS:
                for label, steer in kind.edges(node, limits):
                    self._add(Edge(where, label, (*route, (where, steer))))
            queue.extend((child, (*route, (where, step))) for child, step in _children(node))

    def _add(self, edge: Edge) -> None:
        key = (edge.pointer, edge.label)
        if key in self._open:
            return
        self.edges.append(edge)
        self._open[key] = edge
        self._labels.setdefault(edge.pointer, set()).add(edge.label)
        self._tries[key] = 0
        self._pending += 1

    def pending(self) -> bool:
        """Is an edge still unhit that an aimed case may yet reach?"""
        return self._pending > 0

    def aim(self) -> dict[str, Steer] | None:
        """Steers at every open edge with tries left whose route agrees with the others
        taken, in walk order; each counts as a try. None when no edge is left to aim at."""
        aim: dict[str, Steer] = {}
        if not self._pending:
            return None
        for key, edge in self._open.items():
            tries = self._tries[key]
            if tries < MAX_TRIES and add_steers(aim, edge.route):
                self._tries[key] = tries + 1
                self._pending -= tries + 1 == MAX_TRIES
        return aim or None

    def observe(self, value: JSON) -> None:
        """Strike off the edges a valid case is on."""
        if self._open:
            self._see(self.root, value, 0)

    def _see(self, raw: Node, value: JSON, depth: int) -> None:
        node = effective(raw)
        d = node.domain
        labels = self._labels.get(node.pointer)
        if labels:
            for kind in EDGE_KINDS:
                for label in kind.hits(node, value):
                    if label in labels:
                        self._hit(node.pointer, label)
        if depth < BRANCH_DEPTH:
            for choice in d.choices:
                if choice.keyword not in BRANCHING:
                    continue
                for index, branch in enumerate(choice.branches):
                    if validate_node(branch, value):
                        if labels and f"{choice.keyword}/{index}" in labels:
                            self._hit(node.pointer, f"{choice.keyword}/{index}")
                        self._see(branch, value, depth + 1)
        if isinstance(value, dict):
            for name, child in d.properties:
                if name in value:
                    self._see(child, value[name], 0)
        elif isinstance(value, list):
            for item, child in zip(value, d.prefix_items, strict=False):
                self._see(child, item, 0)
            if d.items is not None:
                for item in value[len(d.prefix_items) :]:
                    self._see(d.items, item, 0)

    def _hit(self, pointer: str, label: str) -> None:
        key = (pointer, label)
        if self._open.pop(key, None) is not None:
            self._labels[pointer].discard(label)
            self._pending -= self._tries[key] < MAX_TRIES

    def unhit(self) -> list[Edge]:
        return list(self._open.values())

    def as_json(self) -> JSONObject:
        """The receipt's `boundaries`: how many edges, how many hit, and the first
        `UNHIT_LISTED` unhit ones (location and label)."""
        listed: list[JSON] = [
            {"pointer": edge.pointer, "edge": edge.label}
            for edge in list(self._open.values())[:UNHIT_LISTED]
        ]
        return {
            "edges": len(self.edges),
            "hit": len(self.edges) - len(self._open),
            "unhit": len(self._open),
            "unhitEdges": listed,
        }


def aims_at(index: int) -> bool:
    """Is valid case `index` aimed at the open edges (when any are left)?"""
    return index >= AIM_FROM and (index - AIM_FROM) % AIM_EVERY == 0


def _children(node: Node) -> list[tuple[Node, Steer]]:
    """Where a value of `node` holds other values, with the steer that puts one there."""
    d = node.domain
    found: list[tuple[Node, Steer]] = []
    for choice in d.choices:
        if choice.keyword in BRANCHING:
            for index, branch in enumerate(choice.branches):
                # a branch of no type the node admits holds no reachable edge (its own
                # stays listed: no value takes it)
                if intersect_types(d.types, effective(branch).domain.types):
                    found.append((branch, Steer(branches=((choice.keyword, index),))))
    union = len(generated_types(d.types, False)) > 1
    for name, child in d.properties:
        found.append((child, Steer("object" if union else None, members=frozenset({name}))))
    kind = "array" if union else None
    for index, child in enumerate(d.prefix_items):
        found.append((child, Steer(kind, least=index + 1)))
    if d.items is not None:
        found.append((d.items, Steer(kind, least=len(d.prefix_items) + 1)))
    return found
