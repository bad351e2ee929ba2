"""Merging schema objects: the effective node behind `allOf` and `$ref`, and conjunctions (pure).

Design note. The compiler keeps each schema object as written: a node with `allOf`
or `$ref` holds its parts as arguments, so checking stays a literal reading of the
schema and recursive `$ref`s need no unrolling. Generation and mutation want one
merged node instead. `effective(node)` flattens the merged applicators (`Keyword.merged`:
`allOf` branches and `$ref` targets, transitively) into one keyword list and folds
every keyword's `narrow` over it; because each `narrow` intersects, the merged
domain admits only what every part admits (or a little more, which the generator's
own re-check filters out). Children are merged lazily the same way (`conjoin`), so a
recursive schema is expanded exactly as deep as a generated value goes.

Nodes compare and hash by identity, so both functions memoize cheaply; the caches
are bounded and hold nothing that changes what a seed generates.

A recursive schema can meet itself while being merged: `{"allOf": [{"items": {"$ref":
"#"}}, {"items": {"$ref": "#"}}]}` conjoins its two `items`, each of which is the root
being merged. Such a conjunction is kept unmerged (a node holding `allOf` of the two),
merged when generation reaches it, when the root's merged form is known.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from toolfuzz_gate.core.schema.keywords import INVALID, KEYWORDS, MERGED
from toolfuzz_gate.core.schema.keywords.compose import Reference
from toolfuzz_gate.core.schema.node import Domain, Node

CACHE_SIZE = 8192


class _Reentered(Exception):
    """Merging a node needed that node's own merged form (a recursion through `$ref`)."""


_merging = threading.local()
"""Per thread: the nodes whose merged form is being computed (`effective`)."""


def _being_merged() -> set[Node]:
    nodes: set[Node] | None = getattr(_merging, "nodes", None)
    if nodes is None:
        nodes = _merging.nodes = set()
    return nodes


def _narrowed(keywords: Iterable[tuple[str, Any]]) -> Domain:
    domain = Domain()
    for name, argument in keywords:
        domain = KEYWORDS[name].narrow(domain, argument, conjoin)
    return domain


def _flat_keywords(node: Node) -> tuple[tuple[tuple[str, Any], ...], bool]:
    """`node`'s keywords with the merged ones (`allOf`, `$ref`) replaced by their parts'
    keywords, and whether any part is the `false` schema."""
    flat: list[tuple[str, Any]] = []
    never = node.never
    for name, argument in node.keywords:
        keyword = KEYWORDS[name]
        if not keyword.merged or keyword.in_place is None:
            flat.append((name, argument))
            continue
        for part in keyword.in_place(argument):
            merged = effective(part)
            never = never or merged.never
            flat.extend(merged.keywords)
    return tuple(flat), never


@lru_cache(maxsize=CACHE_SIZE)
def effective(node: Node) -> Node:
    """`node` with its `allOf` branches and `$ref` targets merged in (itself when none)."""
    if not any(name in MERGED for name, _ in node.keywords):
        return node
    busy = _being_merged()
    if node in busy:
        raise _Reentered
    busy.add(node)
    try:
        keywords, never = _flat_keywords(node)
        return Node(node.pointer, keywords, _narrowed(keywords), never)
    finally:
        busy.discard(node)


@lru_cache(maxsize=CACHE_SIZE)
def conjoin(first: Node, second: Node) -> Node:
    """One node admitting what both admit, located at `first`'s pointer."""
    try:
        a, b = effective(first), effective(second)
    except _Reentered:  # merged later, when reached (the design note)
        return Node(first.pointer, (("allOf", (first, second)),), Domain())
    if not b.keywords and not b.never:
        return a
    if not a.keywords and not a.never:
        return Node(a.pointer, b.keywords, b.domain, b.never)
    keywords = a.keywords + b.keywords
    return Node(a.pointer, keywords, _narrowed(keywords), a.never or b.never)


def without(node: Node, *names: str) -> Node:
    """`node` with the named keywords dropped (its merged form, re-narrowed)."""
    merged = effective(node)
    kept = tuple(kv for kv in merged.keywords if kv[0] not in names)
    if len(kept) == len(merged.keywords):
        return merged
    return Node(merged.pointer, kept, _narrowed(kept), merged.never)


@lru_cache(maxsize=CACHE_SIZE)
def without_choices(node: Node) -> Node:
    """`node` merged, without what its `Choice`s stand for (`anyOf`, `oneOf`, `if`, dependent
    schemas: each keyword's `unchosen`); itself when it has none."""
    merged = effective(node)
    kept: list[tuple[str, Any]] = []
    changed = False
    for name, argument in merged.keywords:
        unchosen = KEYWORDS[name].unchosen
        rest = argument if unchosen is None else unchosen(argument)
        changed = changed or rest is not argument
        if rest is not INVALID:
            kept.append((name, rest))
    if not changed:
        return merged
    return Node(merged.pointer, tuple(kept), _narrowed(kept), merged.never)


@lru_cache(maxsize=CACHE_SIZE)
def expands_reference(node: Node) -> bool:
    """Whether merging `node` follows a `$ref` (directly or through `allOf`): the step the
    generator counts to bound recursive schemas."""
    for name, argument in node.keywords:
        if isinstance(argument, Reference):
            return True
        in_place = KEYWORDS[name].in_place
        if name in MERGED and in_place is not None:
            if any(expands_reference(part) for part in in_place(argument)):
                return True
    return False
