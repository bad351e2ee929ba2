"""Which items a generated array has: positional schemas, `uniqueItems` and
`contains` / `minContains` / `maxContains` (pure).

Each item is first drawn as the generator always draws it (so arrays without
these keywords come out of a seed exactly as before). A duplicate under
`uniqueItems` is redrawn with varied generators, then taken from the item
schema's finite value list when it has one. `contains` counts are then met by
swapping items (from the end) for ones that match, or do not, both the item's
own schema and `contains`, each check made with the engine's own validator.
"""

from __future__ import annotations

from collections.abc import Callable

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import equality_key, has_type
from toolfuzz_gate.core.schema.conjoin import conjoin, effective
from toolfuzz_gate.core.schema.keywords.items import item_node
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.validate import validate_node

Make = Callable[[Node, int], JSON]
"""make(schema, salt): salt 0 is the generator's own draw, others vary it."""

ATTEMPTS = 12
"""Redraws per item before settling on a finite list or giving up."""
MAX_FINITE = 64
"""A domain with more values than this is treated as unbounded."""
SCALAR_KEYWORDS = frozenset(
    {"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"multipleOf", "minLength", "maxLength"}
)


def finite_values(node: Node | None) -> tuple[JSON, ...] | None:
    """Every value `node` admits, when they are few and the node is simple enough to list.

    It reads `node`'s own keywords and never follows a `$ref` (a node with one is not
    simple enough), so the compiler may ask before references are linked."""
    if node is None:
        return None
    if node.never:
        return ()
    if any(name not in SCALAR_KEYWORDS for name, _ in node.keywords):
        return None
    d = node.domain
    if d.enum is not None:
        candidates: list[JSON] = list(d.enum)
    else:
        if not d.types <= {"null", "boolean", "integer", "string"}:
            return None
        if "string" in d.types and d.max_length != 0:
            return None
        candidates = [None, False, True, ""]
        if "integer" in d.types:
            if d.lo is None or d.hi is None or d.hi - d.lo > MAX_FINITE:
                return None
            low, high = int(-(-d.lo // 1)), int(d.hi // 1)
            candidates.extend(range(low, high + 1))
    kept: list[JSON] = []
    for value in candidates:  # stops past MAX_FINITE: bounded work whatever the enum's length
        if has_type(value, d.types) and validate_node(node, value):
            kept.append(value)
            if len(kept) > MAX_FINITE:
                return None
    return tuple(kept)


def count_range(domain: Domain, cap: int) -> tuple[int, int]:
    """The fewest and most items a valid array may have, the most capped at `cap`."""
    d = domain
    lo = max(d.min_items, d.min_contains if d.contains is not None else 0)
    hi = cap
    for index, schema in enumerate(d.prefix_items):
        if effective(schema).never:
            hi = min(hi, index)
            break
    if d.items is not None and effective(d.items).never:
        hi = min(hi, len(d.prefix_items))
    if d.unique_items and not d.prefix_items:
        values = finite_values(d.items)
        if values is not None:
            hi = min(hi, len(values))
    return lo, max(lo, hi)


class ItemPlan:
    """Builds one array's items, position by position; `make` draws a value for a schema."""

    def __init__(self, domain: Domain, pointer: str, make: Make) -> None:
        self.domain = domain
        self.any = Node(pointer + "/items")
        self.make = make
        self.items: list[JSON] = []

    def governing(self, index: int) -> Node:
        return item_node(self.domain, index) or self.any

    def fill(self, count: int, cap: int) -> list[JSON]:
        for index in range(count):
            schema = self.governing(index)
            value = self.make(schema, 0)
            if self.domain.unique_items and not self._fresh(value, index):
                found = self._distinct(schema, index)
                if found is None:
                    break
                value = found[0]
            self.items.append(value)
        if self.domain.contains is not None:
            self._count_matches(self.domain.contains, cap)
        return self.items

    def _fresh(self, value: JSON, index: int) -> bool:
        if not self.domain.unique_items:
            return True
        key = equality_key(value)
        return all(equality_key(v) != key for i, v in enumerate(self.items) if i != index)

    def _distinct(self, schema: Node, index: int) -> tuple[JSON] | None:
        for attempt in range(1, ATTEMPTS + 1):
            value = self.make(schema, index * ATTEMPTS + attempt)
            if self._fresh(value, index):
                return (value,)
        for value in finite_values(schema) or ():
            if self._fresh(value, index):
                return (value,)
        return None

    def _filler(self, index: int) -> tuple[JSON] | None:
        schema = self.governing(index)
        value = self.make(schema, 0)
        return (value,) if self._fresh(value, index) else self._distinct(schema, index)

    def _candidate(self, index: int, contains: Node, matching: bool) -> tuple[JSON] | None:
        """A value for position `index` that its schema admits and that does (or does not)
        match `contains`: drawn from `contains`, from the item's schema, and from both at once
        (when neither alone lands in the other, say integers 0..30 and a 10..20 `contains`
        without a type)."""
        schema = self.governing(index)
        sources = (contains, schema, conjoin(schema, contains)) if matching else (schema,)
        for attempt in range(1, ATTEMPTS + 1):
            for source in sources:
                value = self.make(source, (index + 1) * 7919 + attempt)
                if (
                    validate_node(schema, value)
                    and validate_node(contains, value) == matching
                    and self._fresh(value, index)
                ):
                    return (value,)
        return None

    def _count_matches(self, contains: Node, cap: int) -> None:
        d = self.domain
        items = self.items
        matches = [validate_node(contains, v) for v in items]
        for index in reversed(range(len(items))):
            if sum(matches) >= d.min_contains:
                break
            if not matches[index] and (found := self._candidate(index, contains, True)):
                items[index], matches[index] = found[0], True
        while sum(matches) < d.min_contains and len(items) < cap:
            # a position that cannot match (say an integer one) gets an ordinary item
            found = self._candidate(len(items), contains, True) or self._filler(len(items))
            if found is None:
                break
            items.append(found[0])
            matches.append(validate_node(contains, found[0]))
        most = d.max_contains
        for index in reversed(range(len(items))):
            if most is None or sum(matches) <= most:
                break
            if matches[index]:
                if found := self._candidate(index, contains, False):
                    items[index], matches[index] = found[0], False
                elif index == len(items) - 1 and len(items) > d.min_items:
                    items.pop()
                    matches.pop()
