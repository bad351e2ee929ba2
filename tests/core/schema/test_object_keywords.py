"""`additionalProperties` as a schema, `minProperties`, `maxProperties` and `dependentRequired`:
generated objects pass both validators, near-misses fail exactly at their keyword, and
impossible combinations are contradictions at the keyword's pointer."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.keyword_laws import check_laws
from tests.profiles import examples
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.schema.keywords.objects import ADDITIONAL_PROPERTIES
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.errors import SchemaError

SETTINGS = settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**31 - 1)
NAMES = ("a", "b", "c", "d", "e")
LEAVES: tuple[dict[str, Any], ...] = (
    {"type": "integer", "minimum": 0, "maximum": 9},
    {"type": "string", "maxLength": 3},
    {"type": "boolean"},
    {"type": "number", "multipleOf": 0.5},
)
EXTRA_SCHEMAS: tuple[Any, ...] = (True, False, *LEAVES)


@st.composite
def sized_objects(draw: st.DrawFn) -> dict[str, Any]:
    """Objects with member counts bounded on both sides, always satisfiable."""
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    properties = {name: draw(st.sampled_from(LEAVES)) for name in names}
    required = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    extra = draw(st.sampled_from(EXTRA_SCHEMAS))
    reachable = len(names) if extra is False else len(names) + 3
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if extra is not True or draw(st.booleans()):
        schema["additionalProperties"] = extra
    low = draw(st.integers(0, reachable))
    if draw(st.booleans()):
        schema["minProperties"] = low
    if draw(st.booleans()):
        schema["maxProperties"] = draw(st.integers(max(low, len(required)), reachable + 1))
    return schema


@SETTINGS
@given(schema=sized_objects(), seed=seeds)
def test_member_counts(schema: dict[str, Any], seed: int) -> None:
    sure = set()
    required = len(schema.get("required", ()))
    if schema.get("minProperties", 0) - 1 >= required:
        sure.add("minProperties")  # optional members can always be dropped to one too few
    if "maxProperties" in schema and schema.get("additionalProperties", True) is not False:
        sure.add("maxProperties")  # an open object can always take one member too many
    check_laws(schema, seed, must_confirm=sure, must_offer=sure)


@st.composite
def dependent_objects(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=2, max_size=5))
    properties = {name: draw(st.sampled_from(LEAVES)) for name in names}
    dependencies = {
        trigger: draw(st.lists(st.sampled_from(names), unique=True, min_size=1, max_size=3))
        for trigger in draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    }
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "dependentRequired": dependencies,
    }
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    if draw(st.booleans()):
        schema["required"] = [draw(st.sampled_from(names))]
    return schema


@SETTINGS
@given(schema=dependent_objects(), seed=seeds)
def test_dependent_required(schema: dict[str, Any], seed: int) -> None:
    required = set(schema.get("required", ()))
    droppable = any(
        dep not in required and dep != trigger
        for trigger, deps in schema["dependentRequired"].items()
        for dep in deps
    )
    sure = {"dependentRequired"} if droppable else set()
    check_laws(schema, seed, must_confirm=sure, must_offer=sure)


def test_present_key_brings_its_dependents() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"card": {"type": "string"}, "billing": {"type": "string"}},
        "required": ["card"],
        "dependentRequired": {"card": ["billing"]},
    }
    compiled = compile_schema(schema)
    for index in range(6):
        assert "billing" in generate(compiled, 5, index, DEFAULT_LIMITS)  # type: ignore[operator]


def test_extra_members_follow_the_additional_schema() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {"type": "integer", "minimum": 5, "maximum": 6},
        "minProperties": 3,
    }
    compiled = compile_schema(schema)
    for index in range(12):
        value = generate(compiled, 9, index, DEFAULT_LIMITS)
        assert isinstance(value, dict) and len(value) >= 3
        assert all(v in (5, 6) for k, v in value.items() if k != "a"), value


@SETTINGS
@given(
    extra=st.sampled_from([s for s in LEAVES if "maxLength" not in s]),
    seed=seeds,
)
def test_an_unknown_key_breaks_the_additional_schema(extra: dict[str, Any], seed: int) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": extra,
    }
    confirmed = check_laws(schema, seed, must_confirm={"type"})
    assert ("type", "/unexpectedKey") in confirmed


def _problems(schema: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SchemaError) as error:
        compile_schema(schema)
    return [(p.code, p.pointer) for p in error.value.problems]


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (
            {
                "type": "object",
                "properties": {"a": {}},
                "additionalProperties": False,
                "minProperties": 2,
            },
            ("schema.contradiction", "/minProperties"),
        ),
        (
            {
                "type": "object",
                "properties": {"a": {}, "b": {}},
                "required": ["a", "b"],
                "maxProperties": 1,
            },
            ("schema.contradiction", "/maxProperties"),
        ),
        (
            {
                "type": "object",
                "properties": {"a": {}, "b": {}},
                "required": ["a"],
                "dependentRequired": {"a": ["b"]},
                "maxProperties": 1,
            },
            ("schema.contradiction", "/maxProperties"),
        ),
        (
            {"type": "object", "minProperties": 3, "maxProperties": 2},
            ("schema.contradiction", "/minProperties"),
        ),
        (
            {
                "type": "object",
                "properties": {"a": {}},
                "required": ["a"],
                "additionalProperties": False,
                "dependentRequired": {"a": ["z"]},
            },
            ("schema.contradiction", "/dependentRequired/a"),
        ),
    ],
)
def test_impossible_member_counts_are_contradictions(
    schema: dict[str, Any], expected: tuple[str, str]
) -> None:
    assert _problems(schema) == [expected]


def test_other_types_keep_count_bounds_satisfiable() -> None:
    compile_schema({"minProperties": 3, "maxProperties": 2})  # any string is valid


def test_dependent_names_are_checked_for_unsafe_keys() -> None:
    problems = _problems({"type": "object", "dependentRequired": {"a": ["__proto__"]}})
    assert problems == [("schema.unsafe-key", "/dependentRequired/a/0")]


class _Prefix:
    """Stands in for a `patternProperties` matcher (`matches(name) -> bool`)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def matches(self, name: str) -> bool:
        return name.startswith(self.prefix)


def test_names_a_pattern_matches_are_not_governed() -> None:
    bind = ADDITIONAL_PROPERTIES.bind
    assert bind is not None
    pattern = ((_Prefix("unexpected"), Node("/patternProperties/x")),)
    bound = bind(
        False, {"properties": (("a", Node("/properties/a")),), "patternProperties": pattern}
    )
    assert not bound.governs("a") and not bound.governs("unexpectedKey")
    key = bound.free_key()
    assert key is not None and bound.governs(key)
    everything = ((_Prefix(""), Node("/patternProperties/all")),)
    assert bind(False, {"patternProperties": everything}).free_key() is None
