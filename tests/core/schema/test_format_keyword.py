"""The `format` keyword: an annotation by default, an assertion under the option, and in
assertion mode its near-misses fail both oracles at exactly `format` and its path."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.profiles import examples
from toolfuzz_gate.core.campaign.oracle import (
    JsonschemaOracle,
    JsonschemaRsOracle,
    Oracle,
    fails_exactly_at,
)
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import apply, iter_operators
from toolfuzz_gate.core.schema.formats import FORMATS, length_range
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.core.schema.validate import validate
from toolfuzz_gate.errors import SchemaError

ASSERTING = SchemaOptions(format_assertion=True)
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def wrap(node: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"v": node},
        "required": ["v"] if required else [],
        "additionalProperties": False,
    }


def refusal(schema: Any, options: SchemaOptions = ASSERTING) -> list[tuple[str, str]]:
    with pytest.raises(SchemaError) as error:
        compile_schema(schema, options=options)
    return [(p.code, p.pointer) for p in error.value.problems]


def test_an_annotation_by_default() -> None:
    compiled = compile_schema(wrap({"type": "string", "format": "email"}))
    assert validate(compiled, {"v": "not an email"})
    assert not [op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "format"]
    # ... that still shapes generation: callers send real addresses.
    for index in range(12):
        value = doc(generate(compiled, 3, index, DEFAULT_LIMITS))
        assert isinstance(value, dict) and FORMATS["email"].check(value["v"])


def test_unknown_formats_say_nothing_as_annotations() -> None:
    compiled = compile_schema(wrap({"type": "integer", "format": "int32"}))
    node = compiled.root.domain.properties[0][1]
    assert node.domain.formats == ()
    assert validate(compiled, {"v": 2**40})


def test_an_assertion_under_the_option() -> None:
    compiled = compile_schema(wrap({"type": "string", "format": "email"}), options=ASSERTING)
    assert not validate(compiled, {"v": "not an email"})
    assert validate(compiled, {"v": "a@example.com"})
    assert validate(compile_schema({"format": "ipv4"}, options=ASSERTING), 12)  # strings only
    variants = {op.recipe.variant for op in iter_operators(compiled, DEFAULT_LIMITS)}
    assert {"email:missing-at", "email:space-for-at"} <= variants


def test_unknown_formats_are_refused_as_assertions() -> None:
    schema = wrap({"type": "integer", "format": "int32"})
    assert refusal(schema) == [("schema.unsupported-format", "/properties/v/format")]
    with pytest.raises(SchemaError) as error:
        compile_schema(schema, options=ASSERTING)
    assert "int32" in str(error.value)


def test_a_format_must_be_a_string() -> None:
    for options in (SchemaOptions(), ASSERTING):
        assert refusal({"format": 5}, options) == [("schema.invalid-keyword-value", "/format")]


def test_uuid_is_not_a_draft_07_format() -> None:
    schema: dict[str, Any] = {"$schema": DRAFT_07, "format": "uuid"}
    assert refusal(schema) == [("schema.unsupported-format", "/format")]
    assert validate(compile_schema(schema), "not-a-uuid")
    dated = compile_schema({"$schema": DRAFT_07, "format": "date"}, options=ASSERTING)
    assert not validate(dated, "2021-02-29")


@pytest.mark.parametrize(
    ("node", "keyword"),
    [
        ({"type": "string", "format": "date", "maxLength": 9}, "format"),
        ({"type": "string", "format": "uuid", "minLength": 37}, "format"),
        ({"type": "string", "format": "time", "minLength": 10, "maxLength": 10}, "format"),
        ({"type": "string", "format": "ipv4", "maxLength": 6}, "format"),
    ],
)
def test_lengths_no_value_fits_are_a_contradiction(node: dict[str, Any], keyword: str) -> None:
    assert refusal(wrap(node, required=False)) == [
        ("schema.contradiction", f"/properties/v/{keyword}")
    ]
    # As an annotation any string is valid: the schema compiles and generation stays in bounds.
    compiled = compile_schema(wrap(node))
    for index in range(6):
        value = generate(compiled, 5, index, DEFAULT_LIMITS)
        assert jsonschema.Draft202012Validator(wrap(node)).is_valid(value)


def test_enum_members_must_conform_when_asserted() -> None:
    node = {"type": "string", "format": "date", "enum": ["2020-01-01", "soon"]}
    assert refusal(wrap(node, required=False)) == [("schema.contradiction", "/properties/v/enum/1")]
    compiled = compile_schema(
        wrap({**node, "enum": ["2020-01-01", "2020-02-02"]}), options=ASSERTING
    )
    assert not [op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "format"]


def test_narrowing_is_an_intersection() -> None:
    from toolfuzz_gate.core.schema.conjoin import conjoin
    from toolfuzz_gate.core.schema.keywords.formats import FORMAT, FormatArgument
    from toolfuzz_gate.core.schema.node import Domain

    uri = FormatArgument("uri", FORMATS["uri"], True)
    reference = FormatArgument("uri-reference", FORMATS["uri-reference"], False)
    unknown = FormatArgument("int32", None, False)
    once = FORMAT.narrow(Domain(), uri, conjoin)
    assert FORMAT.narrow(once, uri, conjoin) == once
    assert FORMAT.narrow(FORMAT.narrow(Domain(), reference, conjoin), uri, conjoin).formats == (
        "uri",
        "uri-reference",
    )
    assert FORMAT.narrow(once, unknown, conjoin) == once


# --- the law: generated values pass, near-misses fail at exactly `format` ----------------


@st.composite
def format_schemas(draw: st.DrawFn) -> dict[str, Any]:
    draft_07 = draw(st.booleans())
    names = sorted(n for n in FORMATS if not (draft_07 and n == "uuid"))
    name = draw(st.sampled_from(names))
    node: dict[str, Any] = {
        "type": draw(st.sampled_from(["string", ["string", "null"]])),
        "format": name,
    }
    if draw(st.booleans()):
        node["minLength"] = draw(st.integers(0, 40))
    if draw(st.booleans()):
        node["maxLength"] = node.get("minLength", 0) + draw(st.integers(0, 60))
    if length_range(name, node.get("minLength", 0), node.get("maxLength"), 4096) is None:
        node.pop("minLength", None)
        node.pop("maxLength", None)
    if draw(st.booleans()):
        node = {"type": "array", "items": node, "minItems": 1, "maxItems": 3}
    return {"$schema": DRAFT_07, **wrap(node)} if draft_07 else wrap(node)


def _values_and_mutants(schema: dict[str, Any]) -> None:
    compiled = compile_schema(schema, options=ASSERTING)
    oracles: list[Oracle] = [
        JsonschemaOracle(schema, ASSERTING),
        JsonschemaRsOracle(schema, ASSERTING),
    ]
    bases = [generate(compiled, 11, index, DEFAULT_LIMITS) for index in range(6)]
    for value in bases:
        assert all(oracle.is_valid(value) for oracle in oracles), value
        assert validate(compiled, value)
    operators = [op for op in iter_operators(compiled, DEFAULT_LIMITS) if op.keyword == "format"]
    node = schema["properties"]["v"]
    node = node.get("items", node)
    if node.get("maxLength", 4096) >= FORMATS[node["format"]].natural:
        # with room for a value of the format's usual length, near-misses must exist
        assert operators, "an asserted format with room to mutate yields near-misses"
    for index, operator in enumerate(operators):
        for base in bases[:2]:
            maker = generator_for(11, index, DEFAULT_LIMITS, "hostile")
            mutant = apply(operator, base, maker, compiled.root)
            assert mutant is not None
            for oracle in oracles:
                errors = oracle.errors(mutant)
                assert fails_exactly_at(errors, "format", operator.path), (
                    f"{oracle.name}: {operator.label} gave {mutant!r}: {errors}"
                )
            assert not validate(compiled, mutant)


@settings(max_examples=examples(60))
@given(format_schemas())
def test_values_pass_and_near_misses_fail_exactly_at_format(schema: dict[str, Any]) -> None:
    _values_and_mutants(schema)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_in_a_tool_schema(name: str) -> None:
    _values_and_mutants(wrap({"type": "string", "format": name}))
