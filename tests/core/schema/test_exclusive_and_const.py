"""`exclusiveMinimum`, `exclusiveMaximum` and `const`: generated values pass the reference
validator, and their near-misses fail it at exactly their keyword and path."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle, fails_exactly_at
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import apply, iter_operators
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(max_size=8),
)


@st.composite
def bounded_numbers(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["integer", "number"]))
    low = draw(st.integers(-50, 50))
    high = low + draw(st.integers(2, 50))
    node: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        node["exclusiveMinimum"] = low if kind == "integer" else low + 0.25
    if draw(st.booleans()):
        node["exclusiveMaximum"] = high
    if draw(st.booleans()):
        node["minimum"] = low - 1
    return {"type": "object", "properties": {"n": node}, "required": ["n"]}


@st.composite
def constants(draw: st.DrawFn) -> dict[str, Any]:
    value = draw(scalars)
    node: dict[str, Any] = {"const": value}
    if draw(st.booleans()):
        node["enum"] = [value, "other"]
    return {
        "type": "object",
        "properties": {"c": node},
        "required": ["c"],
        "additionalProperties": False,
    }


def check_schema(schema: dict[str, Any]) -> None:
    compiled = compile_schema(schema)
    reference = JsonschemaOracle(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bases = [generate(compiled, 7, index, DEFAULT_LIMITS) for index in range(6)]
    for value in bases:
        assert validator.is_valid(value), value
    operators = list(iter_operators(compiled, DEFAULT_LIMITS))
    keywords = {op.keyword for op in operators}
    for keyword in ("exclusiveMinimum", "exclusiveMaximum", "const"):
        if any(keyword in node for node in schema["properties"].values()):
            assert keyword in keywords
    for index, operator in enumerate(operators):
        maker = generator_for(7, index, DEFAULT_LIMITS, "hostile")
        mutant = apply(operator, bases[0], maker, compiled.root)
        assert mutant is not None
        errors = reference.errors(mutant)
        if fails_exactly_at(errors, operator.keyword, operator.path):
            assert not validator.is_valid(mutant)
        elif operator.keyword in ("exclusiveMinimum", "exclusiveMaximum"):
            raise AssertionError(f"{operator.label} did not fail where it should: {errors}")


@settings(max_examples=examples(80))
@given(bounded_numbers())
def test_exclusive_bounds(schema: dict[str, Any]) -> None:
    check_schema(schema)


@settings(max_examples=examples(80))
@given(constants())
def test_const(schema: dict[str, Any]) -> None:
    check_schema(schema)


def test_const_outside_the_enum_is_a_contradiction() -> None:
    import pytest

    from toolfuzz_gate.errors import SchemaError

    with pytest.raises(SchemaError) as error:
        compile_schema({"type": "object", "properties": {"c": {"const": 3, "enum": [1, 2]}}})
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.contradiction", "/properties/c/const")
    ]
