"""Which schemas govern each key of an object: `properties`, `patternProperties`,
`propertyNames` (pure).

A key named in `properties` whose name also matches a `patternProperties`
pattern must satisfy both schemas; a key only a pattern matches must satisfy
every matching pattern's schema. The generator and the mutator both ask here,
so a value made for a key is made for the merge of all that govern it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import reduce
from random import Random

from toolfuzz_gate.core.schema.conjoin import conjoin, effective
from toolfuzz_gate.core.schema.draw_modes import LOW, MIXED
from toolfuzz_gate.core.schema.limits import UNSAFE_NAMES
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.regex import Pattern
from toolfuzz_gate.core.schema.validate import validate_node

KEY_LENGTH = (1, 12)
"""The code-point range of keys generated from a `patternProperties` pattern."""
KEY_SEED = 0x6B6579


def merge(nodes: list[Node]) -> Node:
    """One node admitting what every one of `nodes` admits, at the first one's pointer."""
    return reduce(conjoin, nodes[1:], nodes[0])


def governing(domain: Domain, name: str, child: Node | None) -> Node | None:
    """The merge of the property schema `child` and every pattern schema matching `name`;
    None when neither governs the key."""
    nodes = [] if child is None else [child]
    nodes.extend(node for pattern, node in domain.pattern_properties if pattern.matches(name))
    return merge(nodes) if nodes else None


def admits_nothing(node: Node) -> bool:
    """A merge whose types cancel out (an integer property matching a string-only pattern)."""
    merged = effective(node)
    return merged.never or not merged.domain.types


def allowed_name(domain: Domain, name: str) -> bool:
    """Whether `name` passes every `propertyNames` schema of the object."""
    return all(validate_node(node, name) for node in domain.property_names)


def pattern_key(domain: Domain, pattern: Pattern, rng: Random, mode: str) -> str | None:
    """A key `pattern` matches that no `properties` entry names and `propertyNames` allows."""
    for attempt in range(4):
        key = pattern.sample(rng, *KEY_LENGTH, mode if attempt == 0 else MIXED)
        if key is not None and usable_key(domain, key):
            return key
    return None


def usable_key(domain: Domain, key: str) -> bool:
    """Whether a generated key outside `properties` may be added: allowed by
    `propertyNames`, not a prototype-pollution name, and judged the same by both
    readings of every pattern (the reference runs each raw pattern with Python's `re`)."""
    return (
        domain.property_node(key) is None
        and key not in UNSAFE_NAMES
        and allowed_name(domain, key)
        and all(p.agreed_match(key) or p.agreed_miss(key) for p in _key_patterns(domain))
    )


def _key_patterns(domain: Domain) -> list[Pattern]:
    found = [pattern for pattern, _ in domain.pattern_properties]
    for names in domain.property_names:
        found.extend(names.domain.patterns)
    return found


def iter_pattern_members(
    domain: Domain, rng: Random, mode: str, taken: set[str]
) -> Iterator[tuple[str, Node]]:
    """One (key, governing node) per pattern, skipping keys already taken or admitting nothing."""
    for pattern, _ in domain.pattern_properties:
        key = pattern_key(domain, pattern, rng, mode)
        if key is None or key in taken:
            continue
        node = governing(domain, key, None)
        if node is not None and not admits_nothing(node):
            taken.add(key)
            yield key, node


def representative_members(domain: Domain) -> list[tuple[str, Node]]:
    """A fixed key per pattern (drawn at its simplest), for the mutator to reach into."""
    return list(iter_pattern_members(domain, Random(KEY_SEED), LOW, set()))
