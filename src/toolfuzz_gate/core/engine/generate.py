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

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolfuzz_gate.core.engine.arguments import arguments_node
from toolfuzz_gate.core.engine.array_elements import ItemPlan, count_range
from toolfuzz_gate.core.engine.avoidance import NEGATION_ATTEMPTS, avoidance
from toolfuzz_gate.core.engine.caps import (
    ANY_DEPTH,
    HARD_REF_DEPTH,
    SOFT_REF_DEPTH,
    generated_types,
    items_cap,
)
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
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import intersect_types
from toolfuzz_gate.core.schema.conjoin import (
    conjoin,
    effective,
    expands_reference,
    without_choices,
)
from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Choice, CompiledSchema, Domain, Node
from toolfuzz_gate.core.schema.object_keys import (
    iter_pattern_members,
    merge,
    pattern_key,
    usable_key,
)
from toolfuzz_gate.core.schema.validate import validate_node

GENERATOR_NAME = "toolfuzz-gate/random"
GENERATOR_VERSION = "5"
"""Bump when the same seed would produce different cases."""

EXTRA_KEY_PROBABILITY = 0.25
BRANCH_ATTEMPTS = 16
"""Tries per `anyOf`/`oneOf`; past the first round of branches the draws are mixed, and a
`oneOf` of overlapping branches (an integer or a non-negative number) may need several."""


@dataclass
class Generator(Scalars):
    """Produces valid values for nodes; also the `Maker` hostile recipes use.

    The scalar draws and the lazily made `Random` are in `core.engine.scalars.Scalars`;
    this class walks types, choices, arrays and objects.
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
        if d.negations:
            return self._avoiding(node, force_type, depth)
        if d.choices:
            return self._from_choices(node, force_type, depth)
        if d.enum is not None and force_type is None:
            return self._cycle(node, d.enum)
        kind = force_type or self._pick_type(node, depth)
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
            return self._array(node, depth)
        return self._object(node, depth)

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

    def _from_choices(self, node: Node, force_type: str | None, depth: int) -> JSON:
        """One branch of every choice (`anyOf`, `oneOf`, a side of an `if` or of a dependent
        schema) merged with the node's other keywords; the result is re-checked against the
        whole node, and other branches tried if it fails. A value that meets a choice's
        `condition` (matches `if`, has the trigger) on the other side is made again with that
        choice on its first side, before the next combination is tried."""
        base = without_choices(node)
        failure = "no branch could be satisfied"
        choices = node.domain.choices
        conditional = any(choice.condition is not None for choice in choices)
        # Proven empty only when every combination of branches was tried and proven empty.
        combinations = math.prod(len(c.branches) for c in choices)
        proven = combinations <= (BRANCH_ATTEMPTS // 2 if conditional else BRANCH_ATTEMPTS)
        for attempt in range(BRANCH_ATTEMPTS):
            forced: dict[int, Node] = {}
            drawn = attempt // 2 if conditional else attempt  # odd attempts: `_side`
            while True:
                candidate, stride, through_ref = base, 1, False
                picks: list[Node] = []
                for index, choice in enumerate(choices):  # attempts count through combinations
                    pick = (
                        forced.get(index)
                        or self._side(choice, attempt)
                        or self._branch(node, choice, force_type, drawn // stride, depth)
                    )
                    picks.append(pick)
                    candidate = conjoin(candidate, pick)
                    stride *= len(choice.branches)
                    through_ref = through_ref or expands_reference(pick)
                known = (id(candidate), self._ref_depth)
                if conditional and known in self._empty:
                    failure = self._empty[known][1]
                    break  # proven empty already: repeating it would only cost
                saved = self._attempt, self.mode
                self._attempt += attempt
                if attempt >= len(choices[0].branches):
                    self.mode = MIXED  # every branch failed at its edge: try the interiors
                try:
                    value = self._expanding(node, candidate, force_type, depth, through_ref)
                except NoValue as error:
                    failure, proven = error.why, proven and error.proven
                    if conditional and error.proven:
                        self._empty[known] = (candidate, error.why)  # held: its id stays its own
                    break
                finally:
                    self._attempt, self.mode = saved
                if validate_node(node, value):
                    return value
                proven = False
                owed = _owed_sides(choices, picks, value)
                if owed.keys() <= forced.keys():
                    break
                forced.update(owed)
        raise NoValue(node.pointer, failure, proven=proven)

    def _side(self, choice: Choice, attempt: int) -> Node | None:
        """On odd attempts a conditional starts on its other side (`else`, a trigger absent),
        moved to its first only when the value meets its condition: many `if`s over one member
        (one per `action`) rarely leave a value when their sides are drawn independently."""
        other = choice.branches[-1]
        if choice.condition is None or attempt % 2 == 0 or effective(other).never:
            return None
        return other

    def _branch(
        self, node: Node, choice: Choice, force_type: str | None, attempt: int, depth: int
    ) -> Node:
        branches = [b for b in choice.branches if not effective(b).never]
        if self.emptiest and depth > 0 and attempt == 0 and force_type is None:
            # an `Optional` written as a choice: its `null` branch first
            branches = [b for b in branches if "null" in effective(b).domain.types] or branches
        if force_type is not None:
            wanted = frozenset({force_type})
            branches = [b for b in branches if intersect_types(effective(b).domain.types, wanted)]
        if not branches:
            raise NoValue(node.pointer, f"no branch of {choice.keyword} can be used", proven=True)
        if self._ref_depth >= SOFT_REF_DEPTH:  # deep in a recursion: the way out first
            branches.sort(key=expands_reference)
            return branches[attempt % len(branches)]
        salt = pointer_salt(f"{node.pointer}/{choice.keyword}")
        return branches[(self.index + salt + attempt) % len(branches)]

    def _cycle(self, node: Node, members: Sequence[JSON]) -> JSON:
        return members[(self.index + self._attempt + pointer_salt(node.pointer)) % len(members)]

    def _pick_type(self, node: Node, depth: int) -> str:
        names = generated_types(node.domain.types, depth >= ANY_DEPTH)
        if len(names) == 1:
            return names[0]
        if NUMERIC & node.domain.types and not admits_numbers(node.domain, "number" not in names):
            names = tuple(name for name in names if name not in NUMERIC)  # bounds that cross
        return names[(self.index + self._attempt + pointer_salt(node.pointer)) % len(names)]

    def _array(self, node: Node, depth: int) -> list[JSON]:
        cap = items_cap(node, self.limits)
        lo, hi = count_range(node.domain, cap)
        if hi == 0:
            return []
        count = self._choose(within(lo, hi, (lo, hi, lo + 1)), lo, hi)
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
        """Another MIXED generator derived from this one: a redraw that differs from it."""
        return Generator(
            stable_int("toolfuzz-variant", self.seed_material, salt),
            self.index + salt,
            MIXED,
            self.limits,
        )

    def _object(self, node: Node, depth: int) -> dict[str, JSON]:
        table = plain_members(node)
        include = self._include_optional
        if self.emptiest and depth == 0:
            include = _always
        if table is not None:  # no member depends on another: the walk MemberPlan would do
            return {
                name: self.value(schema, None, depth + 1)
                for name, schema, required in table
                if (required or include()) and schema is not None
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


def _owed_sides(choices: Sequence[Choice], picks: list[Node], value: JSON) -> dict[int, Node]:
    """The choices whose `condition` `value` meets, taken on a side other than the first."""
    return {
        index: choice.branches[0]
        for index, choice in enumerate(choices)
        if choice.condition is not None
        and picks[index] is not choice.branches[0]
        and validate_node(choice.condition, value)
    }


def generator_for(seed: int, index: int, limits: Limits, stream: str = "valid") -> Generator:
    return Generator(case_seed(seed, stream, index), index, mode_for(index), limits)


def generate(schema: CompiledSchema, seed: int, index: int, limits: Limits) -> JSON:
    """The valid case number `index` for `seed`."""
    return generate_traced(schema, seed, index, limits)[0]


def generate_traced(
    schema: CompiledSchema, seed: int, index: int, limits: Limits
) -> tuple[JSON, list[str]]:
    """The valid case number `index` for `seed`, and the dictionary entries it drew.

    Compiling tried every merged node (`core.engine.satisfiable`), so `NoValue` is rare here;
    when it happens the empty object stands in, and the oracle reports it as the
    engine's own failure (`oracle-disagreement`) rather than the run stopping. An emptiest
    case that cannot have every member (a conditional forbids one when another is present)
    is made as the ordinary case of its index instead."""
    for emptiest in (True, False) if is_emptiest(index) else (False,):
        maker = generator_for(seed, index, limits)
        if emptiest:
            maker.mode, maker.emptiest = LOW, True
        maker.integer_floats = schema.draft != "draft-04"  # draft 4 counts 1.0 as a number only
        try:
            return maker.valid(arguments_node(schema.root)), maker.dictionary_used
        except NoValue:
            continue
    return {}, []
