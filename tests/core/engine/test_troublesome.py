"""The troublesome-value sources of `core.engine.generate`: the dictionary
(`core.engine.dictionary`), the special numbers (`core.engine.number_edges`), the emptiest
case; every value they give stays valid under the `jsonschema` library, and the receipt
says which dictionary entries the valid cases used."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.engine import dictionary
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generate_traced
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_compact
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS

CASES = 250


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _values(schema: dict[str, Any], name: str, seed: int = 41) -> list[Any]:
    compiled = compile_schema(schema)
    cases = [generate(compiled, seed, index, DEFAULT_LIMITS) for index in range(CASES)]
    return [case[name] for case in cases if isinstance(case, dict) and name in case]


def test_entry_ids_are_unique_and_texts_non_empty() -> None:
    ids = [f"{c}/{n}" for c, entries in dictionary.ENTRIES.items() for n, _ in entries]
    assert len(ids) == len(set(ids)) == dictionary.SIZE
    assert all(text for entries in dictionary.ENTRIES.values() for _, text in entries)


@given(
    text=st.text(min_size=1, max_size=12),
    low=st.integers(min_value=0, max_value=30),
    extra=st.integers(min_value=0, max_value=30),
)
def test_fit_lands_within_the_bounds(text: str, low: int, extra: int) -> None:
    fitted = dictionary.fit(text, low, low + extra)
    if low + extra == 0:
        assert fitted is None
        return
    assert fitted is not None and low <= len(fitted) <= low + extra
    assert fitted.startswith(text[: len(fitted)])


def test_plain_strings_reach_every_category() -> None:
    compiled = compile_schema({**_object(s={"type": "string"}), "required": ["s"]})
    used: list[str] = []
    for index in range(CASES):
        _, drawn = generate_traced(compiled, 41, index, DEFAULT_LIMITS)
        used.extend(drawn)
    assert {entry.split("/")[0] for entry in used} == set(dictionary.CATEGORIES)
    strings = _values({**_object(s={"type": "string"}), "required": ["s"]}, "s")
    assert any("'" in s for s in strings) and any("{" in s for s in strings)
    assert any("../" in s for s in strings) and any("<" in s for s in strings)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "maxLength": 3},
        {"type": "string", "minLength": 30, "maxLength": 40},
        {"type": "string", "pattern": "^[a-z{}%'/.]+$", "maxLength": 8},
        {"type": "string", "pattern": "^[^<>&]*$"},
        {"type": "string", "minLength": 1, "maxLength": 1},
    ],
)
def test_dictionary_values_keep_length_and_pattern(schema: dict[str, Any]) -> None:
    whole = {**_object(s=schema), "required": ["s"]}
    reference = Draft202012Validator(whole)
    compiled = compile_schema(whole)
    for index in range(CASES):
        value, _ = generate_traced(compiled, 7, index, DEFAULT_LIMITS)
        assert reference.is_valid(value), value


def test_a_pattern_that_admits_some_entries_gets_them() -> None:
    schema = {**_object(s={"type": "string", "pattern": "^[^a-z]*$"}), "required": ["s"]}
    compiled = compile_schema(schema)
    used: list[str] = []
    for index in range(CASES):
        value, drawn = generate_traced(compiled, 3, index, DEFAULT_LIMITS)
        assert isinstance(value, dict) and isinstance(value["s"], str)
        assert not re.search("[a-z]", value["s"])
        used.extend(drawn)
    # entries with a lowercase letter are refused by the pattern, the others are used
    assert used and not any(entry.startswith("long/long-token") for entry in used)
    assert {"template/brace-open", "path/dot-dot", "sql/nul-word"} & set(used)


def test_numbers_reach_the_special_floats() -> None:
    numbers = _values({**_object(x={"type": "number"}), "required": ["x"]}, "x")
    assert any(x == 0 and math.copysign(1.0, x) < 0 for x in numbers), "no -0.0"
    assert 1e308 in numbers or 1.7976931348623157e308 in numbers
    assert any(0 < abs(x) < 1e-300 for x in numbers), "no subnormal"
    bounded = _values({**_object(x={"type": "number", "maximum": 10}), "required": ["x"]}, "x")
    assert max(bounded) <= 10


def test_unbounded_integers_pass_2_53_and_come_as_floats() -> None:
    integers = _values({**_object(n={"type": "integer"}), "required": ["n"]}, "n")
    assert 2**53 + 1 in integers or -(2**53 + 1) in integers
    floats = [n for n in integers if isinstance(n, float)]
    assert floats and all(n.is_integer() for n in floats)
    bounded = _values({**_object(n={"type": "integer", "maximum": 5}), "required": ["n"]}, "n")
    assert max(bounded) <= 5


def test_draft_07_integers_as_floats_are_integers_there_too() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        **_object(n={"type": "integer", "minimum": -5, "maximum": 5}),
        "required": ["n"],
    }
    integers = _values(schema, "n")
    assert any(isinstance(n, float) for n in integers)
    assert all(Draft7Validator(schema).is_valid({"n": n}) for n in integers)


def test_the_emptiest_case_gives_null_and_empty_members() -> None:
    schema = _object(
        optional={"type": ["string", "null"]},
        choice={"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        tags={"type": "array", "items": {"type": "string"}},
        text={"type": "string"},
        inner={"type": "object", "properties": {"a": {"type": "string"}}},
        count={"type": "integer", "minimum": 3},
    )
    compiled = compile_schema(schema)
    for index in (2, 18, 34):
        assert generate(compiled, 41, index, DEFAULT_LIMITS) == {
            "optional": None,
            "choice": None,
            "tags": [],
            "text": "",
            "inner": {},
            "count": 3,
        }


@pytest.mark.slow
@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(schema=subset_schemas(), seed=st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_fifty_consecutive_cases_are_valid(schema: dict[str, Any], seed: int) -> None:
    compiled = compile_schema(schema)
    reference = Draft202012Validator(schema)
    for index in range(50):
        value = generate(compiled, seed, index, DEFAULT_LIMITS)
        assert reference.is_valid(value), (index, value)


class _Echo:
    def call(self, arguments: JSONObject) -> Outcome:
        return Outcome(OutcomeKind.ACCEPTED, output_digest="0" * 64, output_bytes=2)


def test_the_receipt_lists_the_entries_used_and_is_deterministic() -> None:
    schema = {**_object(title={"type": "string", "maxLength": 40}), "required": ["title"]}
    receipts = [
        fuzz(
            schema,
            _Echo(),
            ToolSpec("echo"),
            FuzzConfig(41, 100),
            handler_label={"spec": "test"},
            replay_command="test",
        ).receipt.document()
        for _ in range(2)
    ]
    used = receipts[0]["dictionary"]
    assert isinstance(used, dict)
    assert used["draws"] >= len(used["used"]) > 0  # type: ignore[operator,arg-type]
    assert used["used"] == sorted(used["used"])  # type: ignore[type-var,arg-type]
    assert canonical_compact(receipts[0]) == canonical_compact(receipts[1])
