"""Seeded generation of schema-valid values that reach the edges (pure).

Each case has its own `random.Random`, seeded per case (`core.engine.seeds`). Case 0
puts every bound at its low end with optional members absent, case 1 at its high end
with all present; later cases mix edges and interior values. Enum members and
booleans are cycled by case index so every member appears within a few cases.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from random import Random

from toolfuzz_gate.core.engine.alphabets import ASCII, CHARSETS, random_text
from toolfuzz_gate.core.engine.arguments import arguments_node
from toolfuzz_gate.core.engine.array_elements import ItemPlan, count_range
from toolfuzz_gate.core.engine.caps import (
    ANY_DEPTH,
    HARD_REF_DEPTH,
    SOFT_REF_DEPTH,
    generated_types,
    items_cap,
    string_cap,
)
from toolfuzz_gate.core.engine.number_range import (
    DEFAULT_NUMBER,
    NUMERIC,
    admits_numbers,
    integer_span,
    span,
    within,
)
from toolfuzz_gate.core.engine.object_members import MemberPlan, plain_members
from toolfuzz_gate.core.engine.seeds import case_seed, mode_for, pointer_salt, stable_int
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import intersect_types
from toolfuzz_gate.core.schema.conjoin import conjoin, effective, expands_reference, without
from toolfuzz_gate.core.schema.draw_modes import EDGE_PROBABILITY, HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.formats import make_string as make_format_string
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.multiples import (
    as_json,
    common_multiple,
    multiple_range,
    nearest_agreeing,
)
from toolfuzz_gate.core.schema.node import Choice, CompiledSchema, Domain, Node
from toolfuzz_gate.core.schema.object_keys import (
    iter_pattern_members,
    merge,
    pattern_key,
    usable_key,
)
from toolfuzz_gate.core.schema.regex import sample_all
from toolfuzz_gate.core.schema.validate import validate_node

GENERATOR_NAME = "toolfuzz-gate/random"
GENERATOR_VERSION = "2"
"""Bump when the same seed would produce different cases."""

EXTRA_KEY_PROBABILITY = 0.25
BRANCH_ATTEMPTS = 8
INT_EDGES = (0, 1, -1, 2**31 - 1, -(2**31), 2**53 - 1, -(2**53 - 1))
FLOAT_EDGES = (0.0, 0.5, -0.5, 1e-9, 1e15, -1e15)


class NoValue(Exception):
    """The generator found no valid value for a node (raised inside, caught at choices)."""

    def __init__(self, pointer: str, why: str) -> None:
        super().__init__(f"{pointer or '(root)'}: {why}")
        self.pointer = pointer
        self.why = why


@dataclass
class Generator:
    """Produces valid values for nodes; also the `Maker` hostile recipes use.

    The `Random` is made on first use: seeding one costs about as much as
    generating a small value, and most hostile cases never draw from it. Once
    made it is a plain attribute (`cached_property`), as generation reads it for
    every draw.
    """

    seed_material: int
    index: int
    mode: str
    limits: Limits
    _ref_depth: int = 0
    _attempt: int = 0
    """Which retry of an `anyOf`/`oneOf` this is: shifts the cycled choices."""

    @cached_property
    def rng(self) -> Random:
        return Random(self.seed_material)

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
                raise NoValue(
                    node.pointer,
                    f"the recursion through $ref finds no way out within {HARD_REF_DEPTH} levels",
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
            raise NoValue(node.pointer, "the schema admits no value")
        if not d.types:
            raise NoValue(node.pointer, "no type is admitted by every part")
        if d.enum == ():  # merged enums and consts with no member in common
            raise NoValue(node.pointer, "no value is in every enum and const")
        if d.choices:
            return self._from_choices(node, force_type, depth)
        if d.enum is not None and force_type is None:
            return self._cycle(node, list(d.enum))
        kind = force_type or self._pick_type(node, depth)
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

    def _from_choices(self, node: Node, force_type: str | None, depth: int) -> JSON:
        """One branch of every `anyOf`/`oneOf` merged with the node's other keywords; the
        result is re-checked against the whole node, and other branches tried if it fails."""
        base = without(node, "anyOf", "oneOf")
        failure = "no branch could be satisfied"
        for attempt in range(BRANCH_ATTEMPTS):
            candidate, stride, through_ref = base, 1, False
            for choice in node.domain.choices:  # attempts count through the combinations
                pick = self._branch(node, choice, force_type, attempt // stride)
                candidate = conjoin(candidate, pick)
                stride *= len(choice.branches)
                through_ref = through_ref or expands_reference(pick)
            saved = self._attempt, self.mode
            self._attempt += attempt
            if attempt >= len(node.domain.choices[0].branches):
                self.mode = MIXED  # every branch failed at its edge: try the interiors
            try:
                value = self._expanding(node, candidate, force_type, depth, through_ref)
            except NoValue as error:
                failure = error.why
                continue
            finally:
                self._attempt, self.mode = saved
            if validate_node(node, value):
                return value
        raise NoValue(node.pointer, failure)

    def _branch(self, node: Node, choice: Choice, force_type: str | None, attempt: int) -> Node:
        branches = [b for b in choice.branches if not effective(b).never]
        if force_type is not None:
            wanted = frozenset({force_type})
            branches = [b for b in branches if intersect_types(effective(b).domain.types, wanted)]
        if not branches:
            raise NoValue(node.pointer, f"no branch of {choice.keyword} can be used")
        if self._ref_depth >= SOFT_REF_DEPTH:  # deep in a recursion: the way out first
            branches.sort(key=expands_reference)
            return branches[attempt % len(branches)]
        salt = pointer_salt(f"{node.pointer}/{choice.keyword}")
        return branches[(self.index + salt + attempt) % len(branches)]

    def _cycle(self, node: Node, members: list[JSON]) -> JSON:
        return members[(self.index + self._attempt + pointer_salt(node.pointer)) % len(members)]

    def _pick_type(self, node: Node, depth: int) -> str:
        names = generated_types(node.domain.types, depth >= ANY_DEPTH)
        if len(names) == 1:
            return names[0]
        if NUMERIC & node.domain.types and not admits_numbers(node.domain, "number" not in names):
            names = tuple(name for name in names if name not in NUMERIC)  # bounds that cross
        return names[(self.index + self._attempt + pointer_salt(node.pointer)) % len(names)]

    def _choose(self, edges: tuple[int | float, ...], lo: int, hi: int) -> int:
        if self.mode == LOW:
            return lo
        if self.mode == HIGH:
            return hi
        rng = self.rng
        if edges and rng.random() < EDGE_PROBABILITY:
            return int(rng.choice(edges))
        return rng.randint(lo, hi)

    def _integer(self, node: Node) -> int:
        d = node.domain
        lo, hi = integer_span(d)
        if lo > hi:  # merged bounds that cross (`allOf` parts, a branch and its node)
            raise NoValue(node.pointer, "no integer lies within every bound")
        if d.multiples:
            return int(self._multiple(node, lo, hi, integer=True))
        edges = within(lo, hi, (lo, hi, lo + 1, hi - 1, *INT_EDGES))
        if self.mode == MIXED and self.rng.random() >= EDGE_PROBABILITY:
            return self.rng.randint(max(lo, min(hi, -1000)), min(hi, max(lo, 1000)))
        return self._choose(edges, lo, hi)

    def _number(self, node: Node) -> int | float:
        d = node.domain
        lo, hi = span(d.lo, d.hi, DEFAULT_NUMBER)
        if lo > hi:
            raise NoValue(node.pointer, "no number lies within every bound")
        if d.multiples:
            return self._multiple(node, lo, hi, integer=False)
        if self.mode == LOW:
            return lo
        if self.mode == HIGH:
            return hi
        middle = (lo + hi) / 2
        if math.isinf(middle):  # near the ends of the float range the sum overflows
            middle = lo / 2 + hi / 2
        edges = within(lo, hi, (lo, hi, middle, *FLOAT_EDGES))
        roll = self.rng.random()
        if roll < EDGE_PROBABILITY:
            return self.rng.choice(edges)
        near_low, near_high = math.ceil(max(lo, -1e6)), math.floor(min(hi, 1e6))
        if roll < 0.75 and near_low <= near_high:
            return self.rng.randint(near_low, near_high)
        if math.isinf(hi - lo):
            return middle + (self.rng.random() - 0.5) * (hi / 2 - lo / 2)
        return self.rng.uniform(lo, hi)

    def _multiple(self, node: Node, lo: float, hi: float, integer: bool) -> int | float:
        """A multiple of every `multipleOf` within the bounds that all validators accept."""
        factors = node.domain.multiples
        step = common_multiple(factors, integer)
        if step is None:
            return 0
        k_range = multiple_range(lo, hi, step)
        low, high = k_range
        if low > high:  # merged bounds and steps (the compiler judges numeric nodes only)
            raise NoValue(node.pointer, f"no multiple of {step} lies within the bounds")
        edges = within(low, high, (low, high, low + 1, high - 1, 0, 1, -1))
        if self.mode == MIXED and self.rng.random() >= EDGE_PROBABILITY:
            start = self.rng.randint(max(low, min(high, -1000)), min(high, max(low, 1000)))
        else:
            start = self._choose(edges, low, high)
        found = nearest_agreeing(start, k_range, step, factors, integer)
        return found if found is not None else as_json(start, step, integer)

    def _string(self, node: Node) -> str:
        d = node.domain
        cap = self.limits.max_string_bytes
        if d.formats:
            formatted = make_format_string(
                d.formats, self.rng, self.mode, d.min_length, d.max_length, cap
            )
            if formatted is not None and all(p.agreed_match(formatted) for p in d.patterns):
                return formatted  # else an annotation no string fits: any string is valid
        lo = d.min_length
        hi = string_cap(node, self.limits)
        if d.patterns:
            matching = sample_all(d.patterns, self.rng, lo, hi, self.mode)
            if matching is None or len(matching.encode("utf-8")) > cap:
                raise NoValue(node.pointer, "no string matching the pattern was found")
            return matching
        length = self._choose(within(lo, hi, (lo, hi, lo + 1, 1)), lo, hi)
        if self.mode == LOW:
            _, alphabet, width = CHARSETS[0]
        elif self.mode == HIGH:
            _, alphabet, width = CHARSETS[-1]
        else:
            _, alphabet, width = self.rng.choice(CHARSETS)
        if length * width > cap:
            alphabet = ASCII  # keep the string within the byte limit
        return random_text(self.rng, alphabet, length)

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
        if table is not None:  # no member depends on another: the walk MemberPlan would do
            return {
                name: self.value(schema, None, depth + 1)
                for name, schema, required in table
                if (required or self._include_optional()) and schema is not None
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
        return plan.fill(
            self._include_optional, extra and self.rng.random() < EXTRA_KEY_PROBABILITY, keyed
        )

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


def generator_for(seed: int, index: int, limits: Limits, stream: str = "valid") -> Generator:
    return Generator(case_seed(seed, stream, index), index, mode_for(index), limits)


def generate(schema: CompiledSchema, seed: int, index: int, limits: Limits) -> JSON:
    """The valid case number `index` for `seed`.

    Compiling tried every merged node (`core.engine.satisfiable`), so `NoValue` is rare here;
    when it happens the empty object stands in, and the oracle reports it as the
    engine's own failure (`oracle-disagreement`) rather than the run stopping."""
    try:
        return generator_for(seed, index, limits).valid(arguments_node(schema.root))
    except NoValue:
        return {}
