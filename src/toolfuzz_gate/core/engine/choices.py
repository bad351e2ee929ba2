"""How the generator takes `anyOf`, `oneOf` and the sides of conditionals (pure).

`Choices` is the half of `core.engine.generate.Generator` that picks one branch of every
choice of a node, merges it with the node's other keywords and builds the value, trying other
combinations when one fails; the generator adds the walk over types, arrays and objects.
An aimed case (`core.engine.steer`) may name the branch to take first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from toolfuzz_gate.core.engine.scalars import NoValue
from toolfuzz_gate.core.engine.seeds import pointer_salt
from toolfuzz_gate.core.engine.sizes import SOFT_REF_DEPTH
from toolfuzz_gate.core.engine.steer import NO_STEER, Aim, Steer, combine
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.jsonutil.values import intersect_types
from toolfuzz_gate.core.schema.conjoin import (
    CACHE_SIZE,
    conjoin,
    effective,
    expands_reference,
    without_choices,
)
from toolfuzz_gate.core.schema.draw_modes import MIXED
from toolfuzz_gate.core.schema.node import Choice, Domain, Node
from toolfuzz_gate.core.schema.validate import validate_node

BRANCH_ATTEMPTS = 16
"""Tries per `anyOf`/`oneOf`; past the first round of branches the draws are mixed, and a
`oneOf` of overlapping branches (an integer or a non-negative number) may need several."""


class Choices:
    """Choice handling over the generator's fields (declared here, set by the dataclass)."""

    index: int
    mode: str
    emptiest: bool
    aim: Aim | None
    _carry: Steer | None
    _attempt: int
    _ref_depth: int
    _empty: dict[tuple[int, int], tuple[Node, str]]

    def _expanding(
        self, node: Node, merged: Node, force_type: str | None, depth: int, through_ref: bool
    ) -> JSON:
        raise NotImplementedError  # the generator's walk (`core.engine.generate`)

    def _from_choices(
        self, node: Node, force_type: str | None, depth: int, steer: Steer = NO_STEER
    ) -> JSON:
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
                        or self._branch(node, choice, force_type, drawn // stride, depth, steer)
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
                    self._carry = self._carried(picks)
                    value = self._expanding(node, candidate, force_type, depth, through_ref)
                except NoValue as error:
                    failure, proven = error.why, proven and error.proven
                    if conditional and error.proven:
                        self._empty[known] = (candidate, error.why)  # held: its id stays its own
                    break
                finally:
                    self._attempt, self.mode = saved
                    self._carry = None
                if validate_node(node, value):
                    return value
                proven = False
                owed = owed_sides(choices, picks, value)
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
        return unmatched_side(choice)

    def _carried(self, picks: list[Node]) -> Steer | None:
        """The steers of the branches taken, for the merged node made of them: the ledger
        steers inside a branch by the branch's own location (`core.engine.ledger`)."""
        if self.aim is None:
            return None
        carried: Steer | None = None
        for pick in picks:
            own = self.aim.get(pick.pointer)
            if own is not None:
                carried = own if carried is None else combine(carried, own) or carried
        return carried

    def _branch(
        self,
        node: Node,
        choice: Choice,
        force_type: str | None,
        attempt: int,
        depth: int,
        steer: Steer = NO_STEER,
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
        if choice.condition is not None and branches == [choice.branches[-1]]:
            return unmatched_side(choice)
        aimed = steer.branch(choice.keyword)
        if aimed is not None and attempt == 0 and choice.branches[aimed] in branches:
            return choice.branches[aimed]
        if self._ref_depth >= SOFT_REF_DEPTH:  # deep in a recursion: the way out first
            branches.sort(key=expands_reference)
            return branches[attempt % len(branches)]
        salt = pointer_salt(f"{node.pointer}/{choice.keyword}")
        return branches[(self.index + salt + attempt) % len(branches)]


@lru_cache(maxsize=CACHE_SIZE)
def unmatched_side(choice: Choice) -> Node:
    """A conditional's other side (`else`, the trigger absent), kept from meeting its
    condition when the first side admits nothing (`"then": false`): built alone, it meets
    the condition by chance (`{"if": {"maxProperties": 2}, "then": false}` drawing two
    members) and has nowhere to go; with the condition negated, `core.engine.avoidance`
    subtracts it where it can (`minProperties: 3`)."""
    other = choice.branches[-1]
    if choice.condition is None or not effective(choice.branches[0]).never:
        return other
    negated = Node(
        other.pointer, (("not", choice.condition),), Domain(negations=(choice.condition,))
    )
    return conjoin(other, negated)


def owed_sides(choices: Sequence[Choice], picks: list[Node], value: JSON) -> dict[int, Node]:
    """The choices whose `condition` `value` meets, taken on a side other than the first."""
    return {
        index: choice.branches[0]
        for index, choice in enumerate(choices)
        if choice.condition is not None
        and picks[index] is not choice.branches[0]
        and validate_node(choice.condition, value)
    }
