"""Two compiled schemas compared: what head's changes, and whether a value base accepts can
be one head refuses (pure).

Design note. The walk pairs base's and head's nodes from the root (properties by name,
items by position) over the compiled `Domain`s, so `$ref`s are already followed and `allOf`
already merged; a recursive schema's pair is walked once. Each difference is one `Change`
whose `breaking` is a sufficient condition read from the two domains: a lost type or enum
member, a lower maximum or higher minimum, a new required name, a closed object. Where
inclusion cannot be read off the domains the answer is conservative (breaking): an added
`pattern` (regular-language inclusion is not decided), an added `format` when head asserts
formats, an `anyOf` branch of base no branch of head covers, a `oneOf` that gains branches
(a value may then match two), a changed `if`/`then`/`else` or dependent schema, an added
`not`, `contains`, `propertyNames` or `patternProperties`. A property head adds is not
breaking (base's calls are taken not to carry names base did not declare); the evidence
replay (`core.gate.interface_evidence`) turns any change a real base call trips into a
breaking one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import json_equal
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.keywords import KEYWORDS, MERGED
from toolfuzz_gate.core.schema.node import Choice, Domain, Node


@dataclass(frozen=True)
class Change:
    """One difference: the schema pointer (head's, base's for what head lost), a stable
    code, whether it is breaking, the instance path it constrains (`*`: any array item)
    and the validation keywords that would refuse a base value for it."""

    pointer: str
    change: str
    breaking: bool
    instance: str
    keywords: tuple[str, ...]
    base: Any = None
    head: Any = None


@dataclass
class _Walk:
    head_asserts_formats: bool
    changes: list[Change] = field(default_factory=list)
    seen: set[tuple[int, int]] = field(default_factory=set)
    queue: deque[tuple[Node, Node, str]] = field(default_factory=deque)
    """Pairs still to walk, breadth first: a node a recursive schema reaches by several
    paths is reported at its shortest."""

    def run(self, base: Node, head: Node) -> list[Change]:
        self.pair(base, head, "")
        while self.queue:
            self.visit(*self.queue.popleft())
        return self.changes

    def add(
        self,
        pointer: str,
        change: str,
        breaking: bool,
        instance: str,
        keywords: tuple[str, ...],
        base: Any = None,
        head: Any = None,
    ) -> None:
        self.changes.append(Change(pointer, change, breaking, instance, keywords, base, head))

    def pair(self, base: Node, head: Node, instance: str) -> None:
        if (id(base), id(head)) not in self.seen:
            self.seen.add((id(base), id(head)))
            self.queue.append((base, head, instance))

    def visit(self, base: Node, head: Node, instance: str) -> None:
        base, head = effective(base), effective(head)
        if head.never and not base.never:
            self.add(head.pointer, "type-changed", True, instance, ("false",), None, False)
            return
        if base.never or head.never:
            return
        b, h = base.domain, head.domain
        self.types(b, h, head.pointer, instance)
        self.enum(b, h, head.pointer, instance)
        for low, high, keywords in _BOUNDS:
            self.bound(head, b, h, low, high, keywords, instance)
        self.multiples(b, h, head.pointer, instance)
        self.words(b, h, head.pointer, instance)
        self.objects(base, head, instance)
        self.arrays(base, head, instance)
        self.choices(b.choices, h.choices, head.pointer, instance)
        self.extras(b, h, head.pointer, instance)

    def types(self, b: Domain, h: Domain, at: str, instance: str) -> None:
        lost = {t for t in b.types - h.types if not (t == "integer" and "number" in h.types)}
        gained = {t for t in h.types - b.types if not (t == "integer" and "number" in b.types)}
        if lost or gained:
            self.add(
                jp.join(at, "type"),
                "type-changed",
                bool(lost),
                instance,
                ("type",),
                sorted(b.types),
                sorted(h.types),
            )

    def enum(self, b: Domain, h: Domain, at: str, instance: str) -> None:
        if b.enum == h.enum:
            return
        if h.enum is not None and (b.enum is None or any(not _member(v, h.enum) for v in b.enum)):
            base = None if b.enum is None else list(b.enum)
            self.add(
                jp.join(at, "enum"), "enum-narrowed", True, instance, _ENUM, base, list(h.enum)
            )
        elif b.enum is None or h.enum is None or any(not _member(v, b.enum) for v in h.enum):
            base = None if b.enum is None else list(b.enum)
            head = None if h.enum is None else list(h.enum)
            self.add(jp.join(at, "enum"), "enum-widened", False, instance, _ENUM, base, head)

    def bound(
        self,
        head: Node,
        b: Domain,
        h: Domain,
        low: str,
        high: str,
        keywords: tuple[str, str],
        instance: str,
    ) -> None:
        for name, keyword, lower_is_wider in ((low, keywords[0], True), (high, keywords[1], False)):
            was, now = getattr(b, name), getattr(h, name)
            if was == now or (name == low and not was and not now):
                continue
            narrowed = _narrower(was, now, lower_is_wider)
            code = "bound-narrowed" if narrowed else "bound-widened"
            fired = _BOUND_KEYWORDS[keyword]
            where = next((k for k in fired if head.argument(k) is not None), keyword)
            self.add(site(head, where), code, narrowed, instance, fired, was, now)

    def multiples(self, b: Domain, h: Domain, at: str, instance: str) -> None:
        if set(b.multiples) == set(h.multiples):
            return
        narrowed = any(not any(_divides(m, n) for n in b.multiples) for m in h.multiples)
        self.add(
            jp.join(at, "multipleOf"),
            "multiple-changed",
            narrowed,
            instance,
            ("multipleOf",),
            list(b.multiples),
            list(h.multiples),
        )

    def words(self, b: Domain, h: Domain, at: str, instance: str) -> None:
        base_patterns = {p.source for p in b.patterns}
        head_patterns = {p.source for p in h.patterns}
        if base_patterns != head_patterns:
            added = bool(head_patterns - base_patterns)
            self.add(
                jp.join(at, "pattern"),
                "pattern-changed",
                added,
                instance,
                ("pattern",),
                sorted(base_patterns),
                sorted(head_patterns),
            )
        if set(b.formats) != set(h.formats):
            added = bool(set(h.formats) - set(b.formats)) and self.head_asserts_formats
            self.add(
                jp.join(at, "format"),
                "format-changed",
                added,
                instance,
                ("format",),
                list(b.formats),
                list(h.formats),
            )
        if h.unique_items and not b.unique_items:
            self.add(jp.join(at, "uniqueItems"), "unique-items-added", True, instance, _UNIQUE)

    def objects(self, base: Node, head: Node, instance: str) -> None:
        b, h = base.domain, head.domain
        for name in sorted(set(h.required) - set(b.required)):
            where = jp.join(head.pointer, "required")
            self.add(where, "required-added", True, instance, ("required",), None, name)
        for name in sorted(set(b.required) - set(h.required)):
            where = jp.join(head.pointer, "required")
            self.add(where, "required-removed", False, instance, ("required",), name, None)
        base_names = dict(b.properties)
        head_names = dict(h.properties)
        closed = not h.additional or bool(h.additional_values) or bool(h.pattern_properties)
        for name in sorted(base_names.keys() - head_names.keys()):
            where = base_names[name].pointer
            fired = ("additionalProperties", "unevaluatedProperties", "false")
            self.add(where, "property-removed", closed, instance, fired, name, None)
        for name in sorted(head_names.keys() - base_names.keys()):
            where = head_names[name].pointer
            self.add(where, "property-added", False, jp.join(instance, name), _ANY, None, name)
        for name in sorted(base_names.keys() & head_names.keys()):
            self.pair(base_names[name], head_names[name], jp.join(instance, name))
        if b.additional and not h.additional:
            where = jp.join(head.pointer, "additionalProperties")
            fired = ("additionalProperties", "unevaluatedProperties", "false")
            self.add(where, "additional-properties-closed", True, instance, fired)
        elif h.additional and not b.additional:
            where = jp.join(head.pointer, "additionalProperties")
            self.add(where, "additional-properties-opened", False, instance, ())
        elif b.additional and h.additional:
            self.nodes(
                b.additional_values, h.additional_values, head.pointer, jp.join(instance, "*")
            )
        extra = {(s.source) for s, _ in h.pattern_properties} - {
            s.source for s, _ in b.pattern_properties
        }
        if extra:
            self.add(
                jp.join(head.pointer, "patternProperties"),
                "pattern-properties-added",
                True,
                instance,
                _ANY,
            )
        for name, needs in sorted(set(h.dependent_required) - set(b.dependent_required)):
            where = jp.join(head.pointer, "dependentRequired", name)
            self.add(
                where, "dependency-added", True, instance, ("dependentRequired",), None, list(needs)
            )

    def arrays(self, base: Node, head: Node, instance: str) -> None:
        b, h = base.domain, head.domain
        item = jp.join(instance, "*")
        for index, (one, other) in enumerate(zip(b.prefix_items, h.prefix_items, strict=False)):
            self.pair(one, other, jp.join(instance, index))
        if len(h.prefix_items) > len(b.prefix_items):
            where = jp.join(head.pointer, "prefixItems")
            self.add(where, "items-changed", True, instance, _ANY)
        if h.items is not None and b.items is not None:
            self.pair(b.items, h.items, item)
        elif h.items is not None:
            self.add(jp.join(head.pointer, "items"), "items-changed", True, item, _ANY)
        if h.contains is not None and b.contains is not None:
            self.pair(b.contains, h.contains, instance)
        elif h.contains is not None:
            where = jp.join(head.pointer, "contains")
            self.add(where, "contains-added", True, instance, ("contains", "minContains"))

    def nodes(self, base: tuple[Node, ...], head: tuple[Node, ...], at: str, instance: str) -> None:
        """Schemas every value must satisfy (all of them): head's extra ones narrow."""
        for one, other in zip(base, head, strict=False):
            self.pair(one, other, instance)
        if len(head) > len(base):
            self.add(at, "schema-added", True, instance, _ANY)

    def choices(
        self, base: tuple[Choice, ...], head: tuple[Choice, ...], at: str, instance: str
    ) -> None:
        for index, choice in enumerate(head):
            where = jp.join(at, choice.keyword)
            other = base[index] if index < len(base) else None
            if other is None or other.keyword != choice.keyword:
                self.add(where, "composition-changed", True, instance, _COMPOSED)
            elif not _covered(other, choice, self.head_asserts_formats):
                self.add(where, "composition-changed", True, instance, _COMPOSED)
            elif not _covered(choice, other, self.head_asserts_formats):
                self.add(where, "composition-changed", False, instance, _COMPOSED)
        for choice in base[len(head) :]:
            self.add(jp.join(at, choice.keyword), "composition-changed", False, instance, ())

    def extras(self, b: Domain, h: Domain, at: str, instance: str) -> None:
        """`not` (head's not-schemas must refuse no more than base's: walked reversed) and
        `propertyNames`."""
        if len(h.negations) > len(b.negations):
            self.add(jp.join(at, "not"), "not-added", True, instance, ("not",))
        for one, other in zip(b.negations, h.negations, strict=False):
            if not _subsumes(other, one, self.head_asserts_formats):
                self.add(jp.join(at, "not"), "not-changed", True, instance, ("not",))
        self.nodes(b.property_names, h.property_names, jp.join(at, "propertyNames"), instance)


_ENUM = ("enum", "const")
_UNIQUE = ("uniqueItems",)
_ANY = ("*",)
"""Any keyword refusing a value at (or under) the instance path."""
_COMPOSED = ("anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "allOf", "not")
_BOUNDS = (
    ("lo", "hi", ("minimum", "maximum")),
    ("min_length", "max_length", ("minLength", "maxLength")),
    ("min_items", "max_items", ("minItems", "maxItems")),
    ("min_properties", "max_properties", ("minProperties", "maxProperties")),
    ("min_contains", "max_contains", ("minContains", "maxContains")),
)
_BOUND_KEYWORDS = {
    "minimum": ("minimum", "exclusiveMinimum"),
    "maximum": ("maximum", "exclusiveMaximum"),
    "minLength": ("minLength",),
    "maxLength": ("maxLength",),
    "minItems": ("minItems",),
    "maxItems": ("maxItems",),
    "minProperties": ("minProperties",),
    "maxProperties": ("maxProperties",),
    "minContains": ("minContains", "contains"),
    "maxContains": ("maxContains", "contains"),
}


def compare(base: Node, head: Node, *, head_asserts_formats: bool = False) -> list[Change]:
    """Every difference from `base` to `head`, in walk order."""
    return _Walk(head_asserts_formats).run(base, head)


def site(node: Node, keyword: str) -> str:
    """The pointer of `keyword` where it is written: on `node`, or in the part of an
    `allOf` or `$ref` target that brought it in (`node`'s own pointer when nowhere)."""
    found = _written(node, keyword, set())
    return found if found is not None else jp.join(node.pointer, keyword)


def _written(node: Node, keyword: str, seen: set[int]) -> str | None:
    if id(node) in seen:
        return None
    seen.add(id(node))
    for name, _ in node.keywords:
        if name == keyword:
            return jp.join(node.pointer, keyword)
    for name, argument in node.keywords:
        in_place = KEYWORDS[name].in_place
        if name not in MERGED or in_place is None:
            continue
        for part in in_place(argument):
            found = _written(part, keyword, seen)
            if found is not None:
                return found
    return None


def iter_breaking(changes: list[Change]) -> Iterator[Change]:
    return (change for change in changes if change.breaking)


def _subsumes(base: Node, head: Node, formats: bool) -> bool:
    """Whether every value `base` admits, `head` admits too, as far as the walk reads."""
    return not any(iter_breaking(compare(base, head, head_asserts_formats=formats)))


def _covered(base: Choice, head: Choice, formats: bool) -> bool:
    """Whether head's choice admits every value base's does: each base branch within some
    head branch (`anyOf`); a `oneOf` that gains branches is not (a value may match two);
    a conditional's sides pairwise, with the same condition."""
    if base.keyword == "anyOf":
        return all(
            any(_subsumes(one, other, formats) for other in head.branches) for one in base.branches
        )
    if base.keyword == "oneOf":
        if len(head.branches) > len(base.branches):
            return False
        return all(
            any(_subsumes(one, other, formats) for other in head.branches) for one in base.branches
        )
    if len(base.branches) != len(head.branches):
        return False
    if (base.condition is None) != (head.condition is None):
        return False
    if base.condition is not None and head.condition is not None:
        same = _subsumes(base.condition, head.condition, formats) and _subsumes(
            head.condition, base.condition, formats
        )
        if not same:
            return False
    return all(
        _subsumes(one, other, formats)
        for one, other in zip(base.branches, head.branches, strict=True)
    )


def _member(value: JSON, values: tuple[JSON, ...]) -> bool:
    return any(json_equal(value, other) for other in values)


def _narrower(was: int | float | None, now: int | float | None, lower_is_wider: bool) -> bool:
    """Whether a bound moved inward: a minimum up, a maximum down (None: unbounded)."""
    if now is None:
        return False
    if was is None:
        return True
    return now > was if lower_is_wider else now < was


def _divides(step: int | float, multiple: int | float) -> bool:
    """Whether every multiple of `multiple` is a multiple of `step`."""
    if step == 0:
        return False
    ratio = multiple / step
    return ratio == int(ratio)
