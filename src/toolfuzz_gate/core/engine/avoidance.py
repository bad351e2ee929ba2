"""What the generator builds from for a node with `not`: the node's other keywords, narrowed
where a negated schema can be subtracted exactly, and the test a built value must pass (pure).

Subtracting is exact only for a few shapes: a negated schema of nothing but `type` removes
those types; one whose every keyword constrains only some types (`minimum`: numbers,
`Keyword.instance_types`) keeps only those types, since every other value matches it; a lone
bound becomes its opposite (`not: {"minLength": 3}` is `maxLength: 2`, `OPPOSITES`); one of
nothing but `required` leaves out one of its names (where the node does not require it
itself); `{"not": X}` negated is `X`, and `{"anyOf": [A, B]}` negated is `A` and `B` each
negated; an `enum`/`const` on the node loses the members a negated schema matches. Anything
else is left to rejection: the generator builds from the narrowed node and tries again while
a negated schema still matches (`core.engine.generate`).
A node is proven empty only when the subtraction leaves nothing; a rejection budget running
out proves nothing (`schema.unbuildable`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from toolfuzz_gate.core.engine.number_range import NUMERIC
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import intersect_types
from toolfuzz_gate.core.schema.conjoin import (
    CACHE_SIZE,
    conjoin,
    effective,
    expands_reference,
    without,
)
from toolfuzz_gate.core.schema.keywords import KEYWORDS
from toolfuzz_gate.core.schema.keywords.negation import admits_everything
from toolfuzz_gate.core.schema.node import Domain, Node
from toolfuzz_gate.core.schema.validate import validate_node

NEGATION_ATTEMPTS = 16
"""Values built per `not` node before the generator gives up (`NoValue`, not proven)."""


OPPOSITES: dict[str, tuple[str, int]] = {
    "minimum": ("exclusiveMaximum", 0),
    "maximum": ("exclusiveMinimum", 0),
    "exclusiveMinimum": ("maximum", 0),
    "exclusiveMaximum": ("minimum", 0),
    "minLength": ("maxLength", -1),
    "maxLength": ("minLength", 1),
    "minItems": ("maxItems", -1),
    "maxItems": ("minItems", 1),
    "minProperties": ("maxProperties", -1),
    "maxProperties": ("minProperties", 1),
}
"""A bound's complement within the types it constrains, as another bound keyword and what to
add to the argument (`not: {"minLength": 3}` is `maxLength: 2` on strings)."""


@dataclass(frozen=True)
class Avoidance:
    """`base` is the node to build from; a value is valid when no `negations` matches it.
    `empty` says why the node provably admits nothing (None: it may admit something)."""

    base: Node
    negations: tuple[Node, ...]
    empty: str | None = None
    through_ref: bool = False
    """Whether `base` follows a `$ref` (`{"not": {"not": {"$ref": ...}}}`): the generator
    counts it as one more expansion, as it does every other, so recursion stays bounded."""

    def admits(self, value: JSON) -> bool:
        return not any(validate_node(negated, value) for negated in self.negations)


@lru_cache(maxsize=CACHE_SIZE)
def avoidance(node: Node) -> Avoidance:
    """How to build values for the merged `node`, whose domain has `negations`."""
    base, negations, through_ref = _eliminate_double(without(node, "not"), node.domain.negations)
    domain = base.domain
    for negated in negations:
        domain = _subtract(domain, effective(negated))
    empty = None
    domain = _uncrossed(domain)
    if any(admits_everything(negated) for negated in negations):  # `{"not": {"$ref": ...}}`
        empty = "its not schema admits every value"
    elif not domain.types:
        empty = "every type the node admits is one its not schema matches"
    elif domain.enum is not None:
        # the members the rest of the node admits (merged enums are not narrowed by type)
        # and no negated schema matches
        kept = tuple(
            m
            for m in domain.enum
            if validate_node(base, m) and not any(validate_node(n, m) for n in negations)
        )
        domain = replace(domain, enum=kept)
        if not kept:
            empty = "no enum or const member is left once the not schema's matches are taken away"
    elif domain.types <= {"object"} and any(_required_all(domain, n) for n in negations):
        empty = "the node requires every name its not schema requires"
    narrowed = Node(base.pointer, base.keywords, domain, base.never)
    return Avoidance(narrowed, negations, empty, through_ref)


def _eliminate_double(base: Node, found: tuple[Node, ...]) -> tuple[Node, tuple[Node, ...], bool]:
    """`base` conjoined with `X` for every negated `{"not": X}` (a double negation is `X`),
    the negations left to avoid (a negated `anyOf` as its branches, each negated; a negated
    `false`, which constrains nothing, dropped), and whether some `X` follows a `$ref`."""
    work, kept, through_ref = list(found), [], False
    while work:
        negated = effective(work.pop(0))
        if negated.never:
            continue
        only = negated.keywords[0][0] if len(negated.keywords) == 1 else None
        if only == "not":
            through_ref = through_ref or expands_reference(negated.keywords[0][1])
            base = conjoin(base, negated.keywords[0][1])
            work.extend(base.domain.negations)  # what `X` itself negates
            base = without(base, "not")
        elif only == "anyOf":  # matching none of the branches: each negated on its own
            work.extend(negated.keywords[0][1])
        else:
            kept.append(negated)
    return base, tuple(kept), through_ref


def _uncrossed(domain: Domain) -> Domain:
    """`domain` without the types whose bounds cross once a negated bound is subtracted
    (`minLength: 1` beside `not: {"minLength": 1}` leaves no string)."""
    pairs = (
        (NUMERIC, domain.lo, domain.hi),
        (frozenset({"string"}), domain.min_length, domain.max_length),
        (frozenset({"array"}), domain.min_items, domain.max_items),
        (frozenset({"object"}), domain.min_properties, domain.max_properties),
    )
    for types, low, high in pairs:
        if low is not None and high is not None and low > high:
            domain = replace(domain, types=domain.types - types)
    return domain


def _only(negated: Node, keyword: str) -> bool:
    return bool(negated.keywords) and all(name == keyword for name, _ in negated.keywords)


def _constrained_types(negated: Node) -> frozenset[str] | None:
    """The types `negated`'s keywords constrain, when every one of them constrains only some
    (`{"minimum": 10}`: numbers); a value of any other type passes them all, so it matches
    `negated`. None when some keyword constrains every type."""
    found: frozenset[str] = frozenset()
    for name, _ in negated.keywords:
        types = KEYWORDS[name].instance_types
        if types is None:
            return None
        found |= types
    return found if negated.keywords else None


def _subtract(domain: Domain, negated: Node) -> Domain:
    """`domain` less what `negated` matches, where that is exact (or exactly a superset of
    the rest: values that are left may still match, and are rejected); else unchanged."""
    if _only(negated, "type"):
        gone = negated.domain.types
        kept = [t for t in domain.types if t not in gone]
        if "number" in gone:  # every integer is a number
            kept = [t for t in kept if t != "integer"]
        return replace(domain, types=frozenset(kept))
    constrained = _constrained_types(negated)
    if constrained is not None:
        domain = replace(domain, types=intersect_types(domain.types, constrained))
    if len(negated.keywords) == 1 and negated.keywords[0][0] in OPPOSITES:
        name, bound = negated.keywords[0]
        opposite, shift = OPPOSITES[name]
        if shift < 0 and bound == 0:  # `{"minLength": 0}` matches every string: none is left
            return replace(domain, types=domain.types - (KEYWORDS[name].instance_types or set()))
        return KEYWORDS[opposite].narrow(domain, bound + shift, conjoin)
    if _only(negated, "required") and "object" in domain.types:
        names = negated.domain.required
        free = [name for name in names if name not in domain.required]
        if names and free:  # an object without `free[0]` cannot have every name
            return replace(
                domain, properties=tuple(kv for kv in domain.properties if kv[0] != free[0])
            )
    return domain


def _required_all(domain: Domain, negated: Node) -> bool:
    """Whether every object of `domain` has every name `negated` requires, and `negated`
    requires nothing else."""
    names = effective(negated).domain.required
    return _only(effective(negated), "required") and all(n in domain.required for n in names)
