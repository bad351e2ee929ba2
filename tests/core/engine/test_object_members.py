"""`core.engine.object_members`: the precomputed member table of plain objects walks exactly as
`MemberPlan`
does (the same members, in the same order, drawing the same randomness), and objects whose
members are tied to each other get no table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import Generator, generator_for
from toolfuzz_gate.core.engine.object_members import MemberPlan, plain_members
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.node import Domain, Node

seeds = st.integers(min_value=-(2**31), max_value=2**31 - 1)


def _object_nodes(node: Node, seen: set[int] | None = None) -> Iterator[Node]:
    """Every merged node of the tree that can be an object, each once."""
    seen = set() if seen is None else seen
    merged = effective(node)
    if id(merged) in seen:
        return
    seen.add(id(merged))
    if "object" in merged.domain.types and not merged.never:
        yield merged
    for child in merged.children():
        yield from _object_nodes(child, seen)


def _by_plan(node: Node, generator: Generator) -> dict[str, JSON]:
    """The object `MemberPlan` builds for `node`, as `Generator._object` did before the table."""
    plan = MemberPlan(node, lambda child: generator.value(child, None, 1))
    return plan.fill(generator._include_optional, False)


def _twins(seed: int, index: int) -> tuple[Generator, Generator]:
    return generator_for(seed, index, DEFAULT_LIMITS), generator_for(seed, index, DEFAULT_LIMITS)


@pytest.mark.slow
@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(schema=subset_schemas(), seed=seeds, index=st.integers(min_value=0, max_value=50))
def test_the_table_builds_what_the_plan_builds(
    schema: dict[str, Any], seed: int, index: int
) -> None:
    compiled = compile_schema(schema)
    checked = 0
    for node in _object_nodes(compiled.root):
        if plain_members(node) is None:
            continue
        planned, tabled = _twins(seed, index)
        expected = list(_by_plan(node, planned).items())
        got = list(tabled._object(node, 0).items())
        assert got == expected
        # the same draws, not only the same result: later values depend on the stream
        assert tabled.rng.getstate() == planned.rng.getstate()
        checked += 1
    assert checked or plain_members(effective(compiled.root)) is None


def test_required_names_outside_properties_come_after_the_properties() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "gone": False, "b": {"type": "string"}},
        "required": ["z", "b"],
    }
    root = effective(compile_schema(schema).root)
    table = plain_members(root)
    assert table is not None
    assert [(name, required) for name, _, required in table] == [
        ("a", False),
        ("b", True),
        ("z", True),
    ]
    for index in range(6):
        planned, tabled = _twins(41, index)
        assert list(tabled._object(root, 0)) == list(_by_plan(root, planned))


@pytest.mark.parametrize(
    "keywords",
    [
        {"minProperties": 1},
        {"maxProperties": 1},
        {"dependentRequired": {"a": ["b"]}},
        {"patternProperties": {"^x": {"type": "integer"}}},
        {"propertyNames": {"maxLength": 3}},
        {"additionalProperties": {"type": "integer"}},
    ],
)
def test_objects_whose_members_are_tied_get_no_table(keywords: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"a": {}, "b": {}}, **keywords}
    assert plain_members(effective(compile_schema(schema).root)) is None


def test_an_optional_member_that_cannot_be_present_still_draws_its_decision() -> None:
    # A property whose types cancel out (compiling refuses such schemas, so the node is built
    # by hand): never a member, but the walk still decides on it, as the plan does.
    impossible = Node("/properties/a", domain=Domain(types=frozenset()))
    number = Node("/properties/b", domain=Domain(types=frozenset({"integer"})))
    root = Node(
        "",
        domain=Domain(types=frozenset({"object"}), properties=(("a", impossible), ("b", number))),
    )
    table = plain_members(root)
    assert table == (("a", None, False), ("b", number, False))
    for index in range(2, 12):
        planned, tabled = _twins(7, index)
        assert tabled._object(root, 0) == _by_plan(root, planned)
        assert tabled.rng.getstate() == planned.rng.getstate()
