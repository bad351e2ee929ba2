"""`multipleOf`: exact decimal reading, generated multiples every validator accepts (the
`jsonschema` library divides in binary floating point, jsonschema-rs does not), near-misses
between two multiples, and no multiple within the bounds as a contradiction."""

from __future__ import annotations

from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.keyword_laws import check_laws
from tests.profiles import examples
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError

SETTINGS = settings(max_examples=examples(80), suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**31 - 1)
FACTORS = (0.01, 0.1, 0.05, 0.25, 0.3, 1.5, 0.001, 1e-8, 2, 3, 7, 10, 0.07, 2.5)


@st.composite
def multiple_schemas(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["integer", "number"]))
    node: dict[str, Any] = {"type": kind, "multipleOf": draw(st.sampled_from(FACTORS))}
    if draw(st.booleans()):
        low = draw(st.integers(-100, 100))
        node["minimum"] = low
        node["maximum"] = low + draw(st.integers(10, 1000))
    elif draw(st.booleans()):
        node["exclusiveMinimum"] = draw(st.sampled_from([0, -0.5, 3.3]))
    return {"type": "object", "properties": {"n": node}, "required": ["n"]}


@SETTINGS
@given(schema=multiple_schemas(), seed=seeds)
def test_multiples_and_near_misses(schema: dict[str, Any], seed: int) -> None:
    node = schema["properties"]["n"]
    try:
        compile_schema(schema)
    except SchemaError as error:
        assert {p.code for p in error.problems} == {"schema.contradiction"}
        return
    integer_only = node["type"] == "integer"
    every_integer = integer_only and (1 / node["multipleOf"]).is_integer()
    sure = set() if every_integer else {"multipleOf"}
    check_laws(schema, seed, cases=12, must_confirm=sure, must_offer=sure)


@pytest.mark.parametrize("factor", FACTORS)
def test_generated_multiples_agree_across_seeds(factor: float) -> None:
    """Many seeds, every case: the float readings of both validators accept each value."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"n": {"type": "number", "multipleOf": factor}},
        "required": ["n"],
    }
    compiled = compile_schema(schema)
    python = jsonschema.Draft202012Validator(schema)
    rust = jsonschema_rs.Draft202012Validator(schema)
    values = [
        generate(compiled, seed, index, DEFAULT_LIMITS) for seed in range(40) for index in range(10)
    ]
    rejected = [v for v in values if not (python.is_valid(v) and rust.is_valid(v))]
    assert rejected == []
    assert len({str(v) for v in values}) > 100  # not one safe value over and over


def test_a_multiple_needs_every_reading() -> None:
    """0.07 is seven hundredths to the specification (and to jsonschema-rs), but the
    `jsonschema` library's float division disagrees: the engine accepts only what both
    readings accept, so its own checks never pass a value the reference rejects."""
    compiled = compile_schema({"multipleOf": 0.01})
    assert not jsonschema.Draft202012Validator({"multipleOf": 0.01}).is_valid(0.07)
    assert not validate(compiled, 0.07)
    assert validate(compiled, 0.08)
    assert not validate(compiled, 0.075)
    big = compile_schema({"multipleOf": 1.5})
    assert jsonschema.Draft202012Validator({"multipleOf": 1.5}).is_valid(2**53 - 1)
    assert not validate(big, 2**53 - 1)  # not a multiple of 3: the exact reading decides


def test_no_multiple_within_the_bounds_is_a_contradiction() -> None:
    schema: dict[str, Any] = {"type": "integer", "multipleOf": 10, "minimum": 1, "maximum": 9}
    with pytest.raises(SchemaError) as error:
        compile_schema({"type": "object", "properties": {"n": schema}})
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.contradiction", "/properties/n/multipleOf")
    ]


def test_multiples_only_exact_decimals_accept_are_a_contradiction() -> None:
    """7 is 100 times 0.07, but 7 / 0.07 is 100.00000000000001 in binary floating point:
    between 1 and 11 no integer passes both readings."""
    schema: dict[str, Any] = {"type": "integer", "multipleOf": 0.07, "minimum": 1, "maximum": 11}
    with pytest.raises(SchemaError) as error:
        compile_schema({"type": "object", "properties": {"n": schema}})
    assert [(p.code, p.pointer) for p in error.value.problems] == [
        ("schema.contradiction", "/properties/n/multipleOf"),
    ]
    wider = compile_schema({**schema, "maximum": 100})
    assert all(
        jsonschema.Draft202012Validator({**schema, "maximum": 100}).is_valid(
            generate(wider, 4, index, DEFAULT_LIMITS)
        )
        for index in range(8)
    )


def test_a_fraction_of_an_integer_is_an_integer_multiple() -> None:
    """Integers that are multiples of 0.5 are every integer: 1 joins the common multiple."""
    schema: dict[str, Any] = {"type": "integer", "multipleOf": 1.5, "minimum": 1, "maximum": 2}
    with pytest.raises(SchemaError):
        compile_schema({"type": "object", "properties": {"n": schema}})  # only 1.5 lies between
    compiled = compile_schema({"type": "integer", "multipleOf": 1.5, "minimum": 1, "maximum": 3})
    assert {generate(compiled, 1, index, DEFAULT_LIMITS) for index in range(6)} == {3}


@pytest.mark.parametrize("bad", [0, -2, "3", True, [1]])
def test_multiple_of_must_be_a_positive_number(bad: Any) -> None:
    with pytest.raises(SchemaError) as error:
        compile_schema({"multipleOf": bad})
    assert [p.code for p in error.value.problems] == ["schema.invalid-keyword-value"]
