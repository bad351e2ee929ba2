"""Seeded generation of schema-valid values that reach the edges (pure).

Each case has its own `random.Random`, seeded per case (`core.engine.seeds`). Case 0
puts every bound at its low end with optional members absent, case 1 at its high end
with all present; case 2 (and every `EMPTIEST_EVERY`th after it) gives every top-level
member, at its emptiest: `null` where admitted, else the low end (`""`, `[]`, `{}` where
allowed); later cases mix edges and interior values. Mixed strings sometimes come from
the dictionary of known-troublesome strings (`core.engine.dictionary`), mixed numbers from
the special floats (`core.engine.number_edges`). Enum members and booleans are cycled by
case index so every member appears within a few cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolfuzz_gate.core.engine.arguments import arguments_node
from toolfuzz_gate.core.engine.array_elements import ItemPlan, count_range
from toolfuzz_gate.core.engine.avoidance import NEGATION_ATTEMPTS, avoidance
from toolfuzz_gate.core.engine.choices import Choices
from toolfuzz_gate.core.engine.number_edges import within
from toolfuzz_gate.core.engine.number_range import NUMERIC, admits_numbers
from toolfuzz_gate.core.engine.object_members import MemberPlan, plain_members
from toolfuzz_gate.core.engine.scalars import NoValue, Scalars
from toolfuzz_gate.core.engine.seeds import (
    case_seed,
    is_emptiest,
    mode_for,
    pointer_salt,
    stable_int,
)
from toolfuzz_gate.core.engine.sizes import (
    ANY_DEPTH,
    HARD_REF_DEPTH,
    SOFT_REF_DEPTH,
    generated_types,
    items_cap,
)
from toolfuzz_gate.core.engine.steer import NO_STEER, Aim, Steer, combine
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.conjoin import (
    effective,
    expands_reference,
)
from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import CompiledSchema, Domain, Node
from toolfuzz_gate.core.schema.object_keys import (
    iter_pattern_members,
    merge,
    pattern_key,
    usable_key,
)
from toolfuzz_gate.core.schema.validate import validate_node

GENERATOR_NAME = "toolfuzz-gate/random"
GENERATOR_VERSION = "6"
"""Bump when the same seed would produce different cases."""

EXTRA_KEY_PROBABILITY = 0.25


@dataclass
class Generator(Scalars, Choices):
    """Produces valid values for nodes; also the `Maker` hostile recipes use.

    The scalar draws and the lazily made `Random` are in `core.engine.scalars.Scalars`, the
    choices in `core.engine.choices.Choices`; this class walks types, arrays and objects.
    """

    seed_material: int
    index: int
    mode: str
    limits: Limits
    _ref_depth: int = 0
    _attempt: int = 0
    """Which retry of an `anyOf`/`oneOf` this is: shifts the cycled choices."""
    emptiest: bool = False
    """Every top-level member present at its emptiest: `null` where admitted, else low."""
    integer_floats: bool = False
    """Mixed integers may be given as floats (`1.0`): the draft counts them as integers."""
    dictionary_used: list[str] = field(default_factory=list)
    """The ids of the dictionary entries this generator drew, in order."""
    _empty: dict[tuple[int, int], tuple[Node, str]] = field(default_factory=dict)
    """Merged conditional sides proven empty, by (identity, `$ref` depth): a recursive schema
    meets the same ones at every level, and retrying each multiplies the work per level."""
    aim: Aim | None = None
    """What an aimed case decides where (`core.engine.steer`); None: a plain case."""
    _carry: Steer | None = None
    """The steers of the branches just taken, for the merged node made of them."""

    def valid(self, node: Node) -> JSON:
        """A valid value for `node`; raises `NoValue` when none could be built."""
        return self.value(node, None, 0)

    def value(self, node: Node, force_type: str | None, depth: int) -> JSON:
        if not expands_reference(node):  # the hot path: one frame, no bookkeeping
            return self._value(effective(node), force_type, depth)
        return self._expanding(node, effective(node), force_type, depth, True)

    def _expanding(
        self, node: Node, merged: Node, force_type: str | None, depth: int, through_ref: bool
    ) -> JSON:
        """`merged`'s value, counting one more `$ref` expansion when `through_ref`."""
        if not through_ref:
            return self._value(merged, force_type, depth)
        saved = self.mode
        self._ref_depth += 1
        try:
            if self._ref_depth > HARD_REF_DEPTH:
                # Built at its simplest since SOFT_REF_DEPTH (required members only, the
                # way out first): a recursion that still goes on has no finite value.
                raise NoValue(
                    node.pointer,
                    f"the recursion through $ref finds no way out within {HARD_REF_DEPTH} levels",
                    proven=True,
                )
            if self._ref_depth > SOFT_REF_DEPTH:
                self.mode = LOW
            return self._value(merged, force_type, depth)
        finally:
            self._ref_depth -= 1
            self.mode = saved

    def _value(self, node: Node, force_type: str | None, depth: int) -> JSON:
        d = node.domain
        if node.never:
            raise NoValue(node.pointer, "the schema admits no value", proven=True)
        if not d.types:
            raise NoValue(node.pointer, "no type is admitted by every part", proven=True)
        if d.enum == ():  # merged enums and consts with no member in common
            raise NoValue(node.pointer, "no value is in every enum and const", proven=True)
        steer = NO_STEER if self.aim is None else self._steer(node)
        if steer.value is not None and force_type is None and validate_node(node, steer.value[0]):
            return steer.value[0]
        if d.negations:
            return self._avoiding(node, force_type, depth)
        if d.choices:
            return self._from_choices(node, force_type, depth, steer)
        if d.enum is not None and force_type is None:
            return self._cycle(node, d.enum)
        kind = force_type or self._pick_type(node, depth, steer.type)
        if self.emptiest and depth > 0 and "null" in d.types and force_type is None:
            kind = "null"
        if kind == "null":
            return None
        if kind == "boolean":
            return bool(self._cycle(node, [False, True]))
        if kind == "integer":
            return self._integer(node)
        if kind == "number":
            return self._number(node)
        if kind == "string":
            return self._string(node)
        if kind == "array":
            return self._array(node, depth, steer)
        return self._object(node, depth, steer.members)

    def _steer(self, node: Node) -> Steer:
        """The steer for `node`: its location's, with the branches' just taken."""
        assert self.aim is not None
        carried, self._carry = self._carry, None
        own = self.aim.get(node.pointer)
        if carried is None or own is None:
            return carried or own or NO_STEER
        return combine(carried, own) or carried

    def _avoiding(self, node: Node, force_type: str | None, depth: int) -> JSON:
        """A value of the node's other keywords (narrowed) that no `not` schema matches:
        built again, mixed and shifted, while one does (`core.engine.avoidance`)."""
        plan = avoidance(node)
        if plan.empty is not None:
            raise NoValue(node.pointer, plan.empty, proven=True)
        for attempt in range(NEGATION_ATTEMPTS):
            saved = self._attempt, self.mode, self.emptiest
            self._attempt += attempt
            if attempt:  # the edge (or `null`, at the emptiest) matched: try the interiors
                self.mode, self.emptiest = MIXED, False
            try:
                value = self._expanding(node, plan.base, force_type, depth, plan.through_ref)
            finally:
                self._attempt, self.mode, self.emptiest = saved
            if plan.admits(value):
                return value
        raise NoValue(
            node.pointer, f"each of {NEGATION_ATTEMPTS} values built matched the not schema"
        )

    def _cycle(self, node: Node, members: Sequence[JSON]) -> JSON:
        return members[(self.index + self._attempt + pointer_salt(node.pointer)) % len(members)]

    def _pick_type(self, node: Node, depth: int, aimed: str | None = None) -> str:
        names = generated_types(node.domain.types, depth >= ANY_DEPTH)
        if aimed in names:
            return aimed
        if len(names) == 1:
            return names[0]
        if NUMERIC & node.domain.types and not admits_numbers(node.domain, "number" not in names):
            names = tuple(name for name in names if name not in NUMERIC)  # bounds that cross
        return names[(self.index + self._attempt + pointer_salt(node.pointer)) % len(names)]

    def _array(self, node: Node, depth: int, steer: Steer = NO_STEER) -> list[JSON]:
        cap = items_cap(node, self.limits)
        lo, hi = count_range(node.domain, cap)
        if hi == 0:
            return []
        count = self._choose(within(lo, hi, (lo, hi, lo + 1)), lo, hi)
        if steer.count is not None and lo <= steer.count <= hi:
            count = steer.count
        count = max(count, min(steer.least, hi))
        d = node.domain
        if not (d.prefix_items or d.unique_items or d.contains is not None):
            # every item under one schema and nothing between them: what ItemPlan would do
            child = d.items if d.items is not None else Node(node.pointer + "/items")
            return [self.value(child, None, depth + 1) for _ in range(count)]
        return ItemPlan(d, node.pointer, self._item_maker(depth)).fill(count, hi)

    def _item_maker(self, depth: int) -> Callable[[Node, int], JSON]:
        def make(child: Node, salt: int) -> JSON:
            source = self if salt == 0 else self.variant(salt)
            return source.value(child, None, depth + 1)

        return make

    def variant(self, salt: int) -> Generator:
        """Another MIXED generator derived from this one: a redraw that differs from it. It
        starts as deep in a `$ref` recursion as this one is, so a redraw inside a recursive
        schema still meets the depth limits (it counted from 0 and could recurse forever)."""
        return Generator(
            stable_int("toolfuzz-variant", self.seed_material, salt),
            self.index + salt,
            MIXED,
            self.limits,
            self._ref_depth,
        )

    def _object(
        self, node: Node, depth: int, wanted: frozenset[str] = frozenset()
    ) -> dict[str, JSON]:
        table = plain_members(node)
        include = self._include_optional
        if self.emptiest and depth == 0:
            include = _always
        if table is not None:  # no member depends on another: the walk MemberPlan would do
            return {
                name: self.value(schema, None, depth + 1)
                for name, schema, required in table
                if (required or name in wanted or include()) and schema is not None
            }
        d = node.domain
        plan = MemberPlan(
            node,
            lambda child: self.value(child, None, depth + 1),
            self._spare_key(d) if d.pattern_properties or d.property_names else None,
        )
        # MIXED cases sometimes add a member a schema-valued `additionalProperties` governs.
        extra = self.mode == MIXED and bool(d.additional_values)
        keyed: list[str] = []
        if d.pattern_properties and self.mode != LOW:
            # HIGH and MIXED cases add keys the `patternProperties` patterns match.
            members = iter_pattern_members(d, self.rng, self.mode, set())
            keyed = [key for key, _ in members if self._include_optional()]
        keyed.extend(sorted(wanted))
        return plan.fill(include, extra and self.rng.random() < EXTRA_KEY_PROBABILITY, keyed)

    def _spare_key(self, d: Domain) -> Callable[[set[str]], str | None]:
        """Fresh keys for `minProperties` where `extra`, `extra2`, ... cannot go: drawn from
        a `patternProperties` pattern, else as a string `propertyNames` admits."""

        def draw(taken: set[str]) -> str | None:
            if d.pattern_properties:
                pattern = d.pattern_properties[self.rng.randrange(len(d.pattern_properties))][0]
                key = pattern_key(d, pattern, self.rng, MIXED)
            else:
                saved, self.mode = self.mode, MIXED  # LOW would offer the same name each time
                try:
                    name = self.value(merge(list(d.property_names)), "string", ANY_DEPTH)
                except NoValue:
                    return None
                finally:
                    self.mode = saved
                key = name if isinstance(name, str) and usable_key(d, name) else None
            return None if key in taken else key

        return draw

    def _include_optional(self) -> bool:
        if self.mode == LOW:
            return False
        if self.mode == HIGH:
            return True
        return self.rng.random() < 0.5


def _always() -> bool:
    return True


def generator_for(seed: int, index: int, limits: Limits, stream: str = "valid") -> Generator:
    return Generator(case_seed(seed, stream, index), index, mode_for(index), limits)


def generate(schema: CompiledSchema, seed: int, index: int, limits: Limits) -> JSON:
    """The valid case number `index` for `seed`."""
    return generate_traced(schema, seed, index, limits)[0]


def generate_traced(
    schema: CompiledSchema, seed: int, index: int, limits: Limits, aim: Aim | None = None
) -> tuple[JSON, list[str]]:
    """The valid case number `index` for `seed`, and the dictionary entries it drew; with an
    `aim` (`core.engine.ledger`), steered at the edges it names.

    Compiling tried every merged node (`core.engine.satisfiable`), so `NoValue` is rare here;
    when it happens the empty object stands in, and the oracle reports it as the
    engine's own failure (`oracle-disagreement`) rather than the run stopping. An emptiest
    case that cannot have every member (a conditional forbids one when another is present)
    is made as the ordinary case of its index instead, and so is an aimed case whose steers
    lead nowhere valid."""
    root = arguments_node(schema.root)
    if aim is not None:
        maker = generator_for(seed, index, limits)
        maker.aim, maker.integer_floats = aim, schema.draft != "draft-04"
        try:
            value = maker.valid(root)
        except NoValue:
            value = None
        if value is not None and validate_node(root, value):
            return value, maker.dictionary_used
    for emptiest in (True, False) if is_emptiest(index) else (False,):
        maker = generator_for(seed, index, limits)
        if emptiest:
            maker.mode, maker.emptiest = LOW, True
        maker.integer_floats = schema.draft != "draft-04"  # draft 4 counts 1.0 as a number only
        try:
            return maker.valid(root), maker.dictionary_used
        except NoValue:
            continue
    return {}, []
