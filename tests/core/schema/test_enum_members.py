"""`enum` and `const` (`core.schema.keywords.generic.Members`): membership is one key lookup that
agrees with JSON equality, and a long enum (a country list) compiles, generates and checks."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.profiles import examples
from tests.strategies import json_values
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.engine.mutate import iter_operators
from toolfuzz_gate.core.jsonutil.values import json_equal
from toolfuzz_gate.core.schema.keywords.generic import Members
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.validate import validate_node


@settings(max_examples=examples(300))
@given(st.lists(json_values, max_size=8), json_values)
def test_membership_is_json_equality(members: list[Any], instance: Any) -> None:
    listed = Members(members)
    assert listed.admits(instance) == any(json_equal(instance, m) for m in members)
    assert all(listed.admits(m) for m in members)
    first: list[Any] = []  # distinct members, the first spelling kept, in order
    for member in members:
        if not any(json_equal(member, seen) for seen in first):
            first.append(member)
    assert len(listed) == len(first) and all(a is b for a, b in zip(listed, first, strict=True))


def test_equality_is_the_json_schema_one() -> None:
    listed: Members = Members([1, "a", [1, {"k": True}], None])
    assert tuple(listed) == (1, "a", [1, {"k": True}], None)
    assert listed.admits(1.0) and not listed.admits(True)
    assert listed.admits([1.0, {"k": True}]) and not listed.admits([1, {"k": 1}])
    strings: Members = Members(["a"])
    falsity: Members = Members([False])
    assert not strings.admits({"a": 1}) and not falsity.admits(0)


COUNTRIES = [f"{a}{b}" for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJ"][:250]


def test_a_country_list_compiles_generates_and_checks() -> None:
    document: dict[str, Any] = {
        "type": "object",
        "properties": {
            "country": {"type": "string", "enum": COUNTRIES},
            "seen": {"type": "array", "items": {"enum": COUNTRIES}, "uniqueItems": True},
        },
        "required": ["country", "seen"],
    }
    schema = compile_schema(document)
    reference = Draft202012Validator(document)
    values: list[Any] = [generate(schema, 41, index, DEFAULT_LIMITS) for index in range(200)]
    assert all(reference.is_valid(v) and validate_node(schema.root, v) for v in values)
    assert len({v["country"] for v in values}) > 100  # the members are cycled, not sampled
    near_misses = {o.recipe.variant for o in iter_operators(schema, DEFAULT_LIMITS)}
    assert {"outside", "case-changed", "whitespace-padded", "other-type"} <= near_misses
