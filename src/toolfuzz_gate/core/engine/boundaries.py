"""The table of boundary edges: what a node's valid values must reach, one entry per kind (pure).

An edge is one value class of one node that handler code treats specially: a length or count
at its bound, the empty string or array, each `enum` member, each `anyOf`/`oneOf` branch, each
type of a type union, each troublesome-character class of a free string, each traversal value
of a path-like string. Each `EdgeKind` says which edges a (merged) node has, with the `Steer`
that makes a value on it (`core.engine.steer`), and which of them a value hits; "an edge"
means exactly "an entry here yields it". The ledger (`core.engine.ledger`) walks the schema
with this table and keeps which edges the valid cases hit.

Lengths count code points, as JSON Schema does; the `maxLength` edges include a string of
astral characters (each two UTF-16 units, four UTF-8 bytes) and one of a letter with a stack
of combining marks (one grapheme), both at `maxLength` code points, for handlers that count
units, bytes or graphemes instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from toolfuzz_gate.core.engine.sizes import generated_types, items_cap
from toolfuzz_gate.core.engine.steer import Steer
from toolfuzz_gate.core.engine.trouble import (
    TRAVERSALS,
    TROUBLE_CLASSES,
    fitted,
    is_path_like,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import ALL_TYPES, json_equal, json_type
from toolfuzz_gate.core.schema.keywords import BRANCHING
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node

ENUM_EDGES = 32
"""An `enum` of more members than this gets no edge per member (the cycle reaches them)."""
ASTRAL = "\U0001f680"
COMBINING = "\u0301"
UNBOUNDED = 10**9


@dataclass(frozen=True)
class EdgeKind:
    name: str
    edges: Callable[[Node, Limits], Iterator[tuple[str, Steer]]]
    """The edges of a merged node: (label, the steer that makes a value on it)."""
    hits: Callable[[Node, JSON], Iterator[str]]
    """The labels of the edges `value` (valid for the node) is on."""


def _value(text: JSON) -> Steer:
    return Steer(value=(text,))


def _free_string(node: Node) -> bool:
    """A string nothing shapes but its length: any characters will do."""
    d = node.domain
    plain = not (d.patterns or d.formats or d.negations or d.choices)
    return plain and "string" in d.types and d.types != ALL_TYPES and d.enum is None


def _length_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    if not _free_string(node):
        return
    d = node.domain
    if d.min_length == 0:
        yield "empty-string", _value("")
    else:
        yield "minLength", _value("a" * d.min_length)
    top = d.max_length
    if top is None or top == 0:
        return
    if top <= limits.max_string_bytes:
        yield "maxLength", _value("a" * top)
    if top * 4 <= limits.max_string_bytes:
        yield "maxLength/astral", _value(ASTRAL * top)
    if top * 2 <= limits.max_string_bytes:
        yield "maxLength/combining", _value(("e" + COMBINING * (top - 1)) if top > 1 else COMBINING)


def _length_hits(node: Node, value: JSON) -> Iterator[str]:
    if not isinstance(value, str):
        return
    size, d = len(value), node.domain
    if size == 0:
        yield "empty-string"
    if size == d.min_length:
        yield "minLength"
    if size == d.max_length:
        yield "maxLength"
        heavy = max(1, size // 2)
        if sum(1 for c in value if ord(c) > 0xFFFF) >= heavy:
            yield "maxLength/astral"
        if sum(1 for c in value if "\u0300" <= c <= "\u036f") >= heavy:
            yield "maxLength/combining"


def _trouble_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    if not _free_string(node):
        return
    d = node.domain
    high = min(UNBOUNDED if d.max_length is None else d.max_length, limits.max_string_bytes // 4)
    for trouble in TROUBLE_CLASSES:
        text = fitted(trouble.sample, trouble.marker, d.min_length, high)
        if text is not None:
            yield f"trouble/{trouble.name}", _value(text)


def _trouble_hits(node: Node, value: JSON) -> Iterator[str]:
    if isinstance(value, str) and not (value.isascii() and value.isalnum()):
        for trouble in TROUBLE_CLASSES:
            if trouble.holds(value):
                yield f"trouble/{trouble.name}"


def _path_like(node: Node) -> bool:
    d = node.domain
    if "string" not in d.types or d.types == ALL_TYPES or d.enum is not None or d.choices:
        return False
    return is_path_like(node.pointer, d.formats) and not d.negations


def _path_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    if not _path_like(node):
        return
    d = node.domain
    high = UNBOUNDED if d.max_length is None else d.max_length
    for name, text in TRAVERSALS:
        if d.min_length <= len(text) <= high and all(p.agreed_match(text) for p in d.patterns):
            yield f"path/{name}", _value(text)


def _path_hits(node: Node, value: JSON) -> Iterator[str]:
    if isinstance(value, str):
        for name, text in TRAVERSALS:
            if value == text:
                yield f"path/{name}"


def _count_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    d = node.domain
    if "array" not in d.types or d.types == ALL_TYPES:
        return
    cap = items_cap(node, limits)
    fewest = max(d.min_items, len(d.prefix_items), d.min_contains)
    if fewest == 0:
        yield "empty-array", Steer(count=0)
    elif d.min_items == fewest and d.min_items <= cap:
        yield "minItems", Steer(count=d.min_items)
    if d.max_items is not None and fewest <= d.max_items <= cap and d.max_items > 0:
        yield "maxItems", Steer(count=d.max_items)


def _count_hits(node: Node, value: JSON) -> Iterator[str]:
    if isinstance(value, list):
        d = node.domain
        if not value:
            yield "empty-array"
        if len(value) == d.min_items:
            yield "minItems"
        if len(value) == d.max_items:
            yield "maxItems"


def _enum_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    members = node.domain.enum
    if members is not None and 1 < len(members) <= ENUM_EDGES and not node.domain.choices:
        for index, member in enumerate(members):
            yield f"enum/{index}", _value(member)


def _enum_hits(node: Node, value: JSON) -> Iterator[str]:
    for index, member in enumerate(node.domain.enum or ()):
        if json_equal(member, value):
            yield f"enum/{index}"


def _union(node: Node) -> tuple[str, ...]:
    d = node.domain
    if d.types == ALL_TYPES or d.enum is not None:
        return ()
    names = generated_types(d.types, False)
    return names if len(names) > 1 else ()


def _type_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    for name in _union(node):
        yield f"type/{name}", Steer(type=name)


def _type_hits(node: Node, value: JSON) -> Iterator[str]:
    names = _union(node)
    if names:
        yield f"type/{_kind(value, names)}"


def _kind(value: JSON, names: tuple[str, ...]) -> str:
    """`value`'s JSON type, an integral number counted `integer` only where `names` has it."""
    kind = json_type(value)
    return "number" if kind == "integer" and "integer" not in names else kind


def _branch_edges(node: Node, limits: Limits) -> Iterator[tuple[str, Steer]]:
    for choice in node.domain.choices:
        if choice.keyword in BRANCHING:
            for index, branch in enumerate(choice.branches):
                if not branch.never:
                    yield f"{choice.keyword}/{index}", Steer(branches=((choice.keyword, index),))


def _no_hits(node: Node, value: JSON) -> Iterator[str]:
    """Branches are judged by the ledger, which has the validator (`validate_node`)."""
    return iter(())


EDGE_KINDS: tuple[EdgeKind, ...] = (
    EdgeKind("path", _path_edges, _path_hits),
    EdgeKind("length", _length_edges, _length_hits),
    EdgeKind("trouble", _trouble_edges, _trouble_hits),
    EdgeKind("count", _count_edges, _count_hits),
    EdgeKind("enum", _enum_edges, _enum_hits),
    EdgeKind("branch", _branch_edges, _no_hits),
    EdgeKind("type", _type_edges, _type_hits),
)
"""The table: every edge a node has comes from exactly one entry. Its order is the order in
which one node's edges are aimed at (a case gives a string one value): with few runs, the
traversal values of a path come first, then the length bounds, then the character classes."""
