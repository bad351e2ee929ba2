"""How large generated values get (pure): the generator's caps, and the bound they put on
the size of any value it makes for a node.

The caps say which types the generator makes at a depth, how long a string and how many
items it makes at most, and how deep it follows a `$ref` recursion; `core.engine.generate`
draws within them. `estimate_bytes` follows the same caps, so that the compiler can refuse a
schema whose values could outgrow `Limits.max_value_bytes` before anything is generated.
"""

from __future__ import annotations

from functools import lru_cache

from toolfuzz_gate.core.engine.array_elements import count_range
from toolfuzz_gate.core.engine.object_members import EXTRA_KEY
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact
from toolfuzz_gate.core.jsonutil.values import TYPE_NAMES
from toolfuzz_gate.core.schema.conjoin import conjoin, effective, expands_reference, without_choices
from toolfuzz_gate.core.schema.formats import longest as longest_format
from toolfuzz_gate.core.schema.keywords.pattern import open_high
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.object_keys import KEY_LENGTH

UNBOUNDED_EXTRA_LENGTH = 24
UNBOUNDED_EXTRA_ITEMS = 4
ANY_DEPTH = 2
"""From this depth an untyped value is made a scalar (no more nesting)."""
SOFT_REF_DEPTH = 2
"""Past this many `$ref` expansions on one path, values are built at their simplest."""
HARD_REF_DEPTH = SOFT_REF_DEPTH + 6
"""Past this many, the branch being built is given up (a recursion with no way out)."""


@lru_cache(maxsize=256)
def generated_types(types: frozenset[str], scalars_only: bool) -> tuple[str, ...]:
    """Which types to generate for a node, in a fixed order; `integer` is within `number`."""
    names = [t for t in TYPE_NAMES if t in types and not (t == "integer" and "number" in types)]
    if scalars_only and len(names) > 1:
        names = [t for t in names if t not in ("array", "object")] or names
    return tuple(names)


def string_cap(node: Node, limits: Limits) -> int:
    d = node.domain
    hi = d.max_length if d.max_length is not None else open_high(d, UNBOUNDED_EXTRA_LENGTH)
    return min(hi, limits.max_string_bytes)


def items_cap(node: Node, limits: Limits) -> int:
    d = node.domain
    fewest = max(d.min_items, len(d.prefix_items), d.min_contains)
    hi = d.max_items if d.max_items is not None else fewest + UNBOUNDED_EXTRA_ITEMS
    return min(hi, limits.max_items)


@lru_cache(maxsize=4096)
def estimate_bytes(node: Node, limits: Limits, depth: int = 0, refs: int = 0) -> int:
    """An upper bound on the UTF-8 size of any value `Generator` makes for `node`.

    It follows the generator's own caps (unbounded strings and arrays get a few more
    than their minimum; untyped values stop nesting at `ANY_DEPTH`; past
    `SOFT_REF_DEPTH` expansions of `$ref` values are built at their simplest).
    """
    refs += expands_reference(node)
    if refs > HARD_REF_DEPTH:
        return 0
    node = effective(node)
    d = node.domain
    if node.never:
        return 0
    if d.choices:
        base = without_choices(node)
        return max(
            estimate_bytes(conjoin(base, branch), limits, depth, refs + expands_reference(branch))
            for choice in d.choices
            for branch in choice.branches
        )
    if d.enum is not None:
        # an empty enum (merged enums without a common member) admits nothing, as `never`
        return max((len(canonical_compact(m)) for m in d.enum), default=0)
    simplest = refs > SOFT_REF_DEPTH
    types = generated_types(d.types, depth >= ANY_DEPTH)
    sizes = [8]
    if "string" in types:
        length = d.min_length if simplest else string_cap(node, limits)
        sizes.append(min(length * 4, limits.max_string_bytes) + 2)
        if d.formats:  # format values are ASCII, but may run past the plain-string cap
            sizes.append(
                longest_format(d.formats, d.min_length, d.max_length, limits.max_string_bytes) + 2
            )
    if "number" in types or "integer" in types:
        sizes.append(32)
    if "array" in types:
        items = d.items if d.items is not None else Node(node.pointer + "/items")
        schemas = (*d.prefix_items, items, *((d.contains,) if d.contains is not None else ()))
        item = max(estimate_bytes(schema, limits, depth + 1, refs) for schema in schemas)
        count = count_range(d, items_cap(node, limits))[0] if simplest else items_cap(node, limits)
        sizes.append(2 + count * (item + 1))
    if "object" in types:
        members = (
            len(k) * 6 + 4 + estimate_bytes(c, limits, depth + 1, refs)
            for k, c in d.properties
            if not simplest or k in d.required
        )
        keyed = (
            KEY_LENGTH[1] * 12 + 4 + estimate_bytes(c, limits, depth + 1, refs)
            for _, c in d.pattern_properties
            if not simplest
        )
        sizes.append(
            2 + sum(members) + sum(keyed) + _extra_members_bytes(node, limits, depth, refs)
        )
    return max(sizes)


def _extra_members_bytes(node: Node, limits: Limits, depth: int, refs: int) -> int:
    """The members `core.engine.object_members` may add beyond `properties`: extra keys (`extra`,
    `extra2`, ...) and undeclared names that are required or depended on."""
    d = node.domain
    declared = {name for name, _ in d.properties}
    named = {*d.required, *(dep for _, deps in d.dependent_required for dep in deps)} - declared
    count = max(d.min_properties - len(d.properties), 0) + bool(d.additional_values)
    if not count and not named:
        return 0
    schema = d.additional_values[0] if d.additional_values else Node(node.pointer + "/extra")
    value = estimate_bytes(schema, limits, depth + 1, refs)
    names = sum(len(name) * 6 for name in named) + count * (len(EXTRA_KEY) + 2)
    return names + (count + len(named)) * (value + 6)
