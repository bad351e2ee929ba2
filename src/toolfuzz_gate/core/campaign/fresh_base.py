"""Fresh bases for near-misses: valid case 0 with new names (pure).

A handler with state may reject a call for a business rule before it looks at the
argument a near-miss breaks: once valid case 0 has created the note it names, every
near-miss built on case 0 is refused as "already exists". A fresh base is case 0 with
every identity-like member given a value no earlier call of the campaign used, so the
same near-miss can be tried again where that rule no longer masks it.

Identity-like, by rule: a string member of case 0 (in objects at any depth, not inside
arrays) whose schema lists no values (`enum`, `const`) and fixes no meaning (`format`: a
date or an address is a value, not a name), that is not a fixed argument, and that no
`anyOf`/`oneOf` on the way to it governs. Names, ids, paths, slugs and titles are such
members. A fresh value is as simple as case 0's: letters and digits (where its `pattern`
allows them), as long as case 0's value (one character where that is empty), and one
character longer when values of that length run out. Everything else keeps case 0's value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from random import Random
from typing import cast

from toolfuzz_gate.core.engine.object_members import member_schema
from toolfuzz_gate.core.engine.scalars import random_text
from toolfuzz_gate.core.engine.seeds import stable_int
from toolfuzz_gate.core.engine.sizes import string_cap
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.draw_modes import MIXED
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.regex import sample_all
from toolfuzz_gate.core.schema.validate import validate_node

LETTERS_AND_DIGITS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
ATTEMPTS = 16
"""Draws for one fresh value before the member keeps case 0's value."""
GROW_EVERY = 4
"""Draws at one length before a fresh value gets one character longer."""


def identity_members(root: Node, base: JSON, fixed: frozenset[str]) -> list[tuple[str, Node]]:
    """The identity-like members of `base` (by the rule above): their JSON Pointers and
    schemas; `fixed`: the pointers of the tool's fixed arguments."""
    return list(_walk(root, base, "", fixed))


def _walk(node: Node, value: JSON, at: str, fixed: frozenset[str]) -> Iterator[tuple[str, Node]]:
    merged = effective(node)
    if merged.domain.choices or not isinstance(value, dict):
        return
    members: JSONObject = value
    for name, item in members.items():
        child = member_schema(merged, name)
        if child is None:
            continue
        where = jp.join(at, name)
        schema = effective(child)
        if isinstance(item, dict):
            yield from _walk(child, item, where, fixed)
        elif _identity_like(schema, item) and where not in fixed:
            yield where, schema


def _identity_like(node: Node, value: JSON) -> bool:
    d = node.domain
    return isinstance(value, str) and d.enum is None and not d.formats and not d.choices


@dataclass
class FreshBases:
    """Makes fresh bases from valid case 0, each with values no earlier call used.

    `earlier`: the calls made before the first fresh base (the valid cases, case 0 first);
    their values at each identity-like member are read once, on the first fresh base, and
    every fresh value made is added, so no two fresh bases share one.
    """

    root: Node
    earlier: list[JSON]
    seed: int
    limits: Limits
    fixed: frozenset[str] = frozenset()
    made: int = 0
    _members: list[tuple[str, Node]] | None = None
    _used: dict[str, set[str]] = field(default_factory=dict)

    @property
    def base(self) -> JSON:
        """Valid case 0, the base every fresh one renames."""
        return self.earlier[0]

    def next(self) -> JSON | None:
        """Another fresh base, or None when case 0 has no member a fresh value fits."""
        if self._members is None:
            self._members = identity_members(self.root, self.base, self.fixed)
            self._used = {at: _values_at(self.earlier, at) for at, _ in self._members}
        self.made += 1
        rng = Random(stable_int("toolfuzz-fresh-base", self.seed, self.made))
        fresh, changed = self.base, False
        for at, node in self._members:
            used = self._used[at]
            simplest = jp.member_at(self.base, at)
            shortest = len(simplest) if isinstance(simplest, str) else 1
            value = fresh_string(node, rng, used, self.limits, shortest)
            if value is None:
                continue
            used.add(value)
            fresh, changed = cast(JSON, jp.with_member(fresh, at, value)), True
        return fresh if changed else None


def fresh_string(
    node: Node, rng: Random, used: set[str], limits: Limits, shortest: int = 1
) -> str | None:
    """A string valid for `node`, not in `used`, as plain as the rule says: letters and
    digits where its `pattern` allows them, `shortest` characters long (case 0's length,
    at least one), one more after every `GROW_EVERY` draws that were taken or invalid."""
    d = node.domain
    first, high = max(shortest, d.min_length, 1), string_cap(node, limits)
    for attempt in range(ATTEMPTS):
        length = first + attempt // GROW_EVERY
        if length > high:
            return None
        if d.patterns:
            # mixed draws pick a pattern's characters at random (ASCII letters and digits
            # first); the length is held, so the value stays as short as case 0's
            text = sample_all(d.patterns, rng, length, length, MIXED)
        else:
            text = random_text(rng, LETTERS_AND_DIGITS, length)
        if text is not None and text not in used and validate_node(node, text):
            return text
    return None


def _values_at(values: list[JSON], at: str) -> set[str]:
    found = (jp.member_at(value, at) for value in values)
    return {value for value in found if isinstance(value, str)}
