"""`core.engine.generate`: every generated value is valid under the `jsonschema` library, cases are
reproducible from (seed, index) in any process, and the poster contract's edges are reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.documents import doc
from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.errors import SchemaError

SRC = Path(__file__).resolve().parents[3] / "src"
CASE_INDICES = (0, 1, 2, 3, 5, 11, 64)
"""Low edge, high edge, and a few mixed cases."""
POSTER_CASES = 200

PROPERTY_SETTINGS = settings(
    max_examples=examples(120), suppress_health_check=[HealthCheck.too_slow]
)
seeds = st.integers(min_value=-(2**31), max_value=2**31 - 1)


def _errors(validator: Draft202012Validator, instance: Any) -> list[str]:
    return [
        f"{list(e.absolute_path)} {e.validator}: {e.message}"
        for e in validator.iter_errors(instance)
    ]


@pytest.mark.slow
@PROPERTY_SETTINGS
@given(schema=subset_schemas(), seed=seeds)
def test_every_generated_value_is_valid_under_jsonschema(schema: dict[str, Any], seed: int) -> None:
    compiled = compile_schema(schema)
    reference = Draft202012Validator(schema)
    for index in CASE_INDICES:
        value = generate(compiled, seed, index, DEFAULT_LIMITS)
        errors = _errors(reference, value)
        assert not errors, f"case {index} for seed {seed}: {value!r} is invalid: {errors}"


@settings(PROPERTY_SETTINGS, max_examples=examples(60))
@given(schema=subset_schemas(), seed=seeds, index=st.integers(min_value=0, max_value=10_000))
def test_same_seed_and_index_give_the_same_value(
    schema: dict[str, Any], seed: int, index: int
) -> None:
    first = generate(compile_schema(schema), seed, index, DEFAULT_LIMITS)
    # A fresh compilation and interleaved generation of other cases must not matter.
    again = compile_schema(schema)
    generate(again, seed + 1, index, DEFAULT_LIMITS)
    generate(again, seed, index + 1, DEFAULT_LIMITS)
    second = generate(again, seed, index, DEFAULT_LIMITS)
    assert canonical_compact(first) == canonical_compact(second)


def test_different_seeds_give_different_cases() -> None:
    compiled = compile_schema(poster.SCHEMA)
    cases = {
        seed: [canonical_compact(generate(compiled, seed, i, DEFAULT_LIMITS)) for i in range(20)]
        for seed in (1, 2, 41)
    }
    assert cases[1] != cases[2] != cases[41] != cases[1]


_CHILD = """
import sys
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.errors import SchemaError
seed, count = int(sys.argv[1]), int(sys.argv[2])
compiled = compile_schema(poster.SCHEMA)
for index in range(count):
    print(canonical_compact(generate(compiled, seed, index, DEFAULT_LIMITS)))
"""


@pytest.mark.parametrize("hash_seed", ["0", "12345"])
def test_cases_are_identical_in_another_process(hash_seed: str) -> None:
    seed, count = 41, 40
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH", "")]))
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(seed), str(count)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    compiled = compile_schema(poster.SCHEMA)
    here = [canonical_compact(generate(compiled, seed, i, DEFAULT_LIMITS)) for i in range(count)]
    assert child.stdout.splitlines() == here


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for member in value.values():
            yield from _strings(member)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.fixture(scope="module", params=[41, 1, 2**31 - 1])
def poster_cases(request: pytest.FixtureRequest) -> list[Any]:
    compiled = compile_schema(poster.SCHEMA)
    return [generate(compiled, request.param, i, DEFAULT_LIMITS) for i in range(POSTER_CASES)]


def test_poster_cases_are_valid(poster_cases: list[dict[str, Any]]) -> None:
    reference = Draft202012Validator(poster.SCHEMA)
    for value in poster_cases:
        assert not _errors(reference, value), value


def test_poster_cases_reach_the_numeric_bounds(poster_cases: list[dict[str, Any]]) -> None:
    for name in ("width", "height"):
        seen = {case[name] for case in poster_cases}
        assert {64, 400} <= seen, f"{name} never reached both bounds: {sorted(seen)[:5]}"


def test_poster_cases_reach_the_title_lengths(poster_cases: list[dict[str, Any]]) -> None:
    lengths = {len(case["title"]) for case in poster_cases}
    assert {1, 80} <= lengths


def test_poster_cases_reach_awkward_text(poster_cases: list[dict[str, Any]]) -> None:
    titles = [case["title"] for case in poster_cases]
    text = [s for case in poster_cases for s in _strings(case)]
    assert any(t.strip() == "" for t in titles), "no whitespace-only title"
    assert any(not s.isascii() for s in text), "no non-ASCII character"
    assert any(ord(c) > 0xFFFF for s in text for c in s), "no astral-plane character"
    assert any("\x00" in s for s in text), "no NUL character"
    assert any(c in s for s in text for c in "\x01\x07\x1b\x7f"), "no other control character"


def test_poster_cases_toggle_optional_members_and_enums(
    poster_cases: list[dict[str, Any]],
) -> None:
    assert any("dryRun" in case for case in poster_cases)
    assert any("dryRun" not in case for case in poster_cases)
    assert {case["dryRun"] for case in poster_cases if "dryRun" in case} == {False, True}
    assert {case["format"] for case in poster_cases} == set(poster.FORMATS)


def test_low_and_high_cases_sit_at_the_bounds() -> None:
    compiled = compile_schema(poster.SCHEMA)
    low = doc(generate(compiled, 41, 0, DEFAULT_LIMITS))
    high = doc(generate(compiled, 41, 1, DEFAULT_LIMITS))
    assert (low["width"], low["height"], len(low["title"]), len(low["palette"])) == (64, 64, 1, 1)
    assert "dryRun" not in low
    assert (high["width"], high["height"], len(high["title"]), len(high["palette"])) == (
        400,
        400,
        80,
        5,
    )
    assert "dryRun" in high
    assert all(len(entry) == 9 for entry in high["palette"])


def test_generated_values_are_json_round_trippable() -> None:
    compiled = compile_schema(poster.SCHEMA)
    for index in range(50):
        value = generate(compiled, 7, index, DEFAULT_LIMITS)
        assert json.loads(canonical_compact(value)) == value


def test_an_empty_merged_enum_is_no_value_not_a_crash() -> None:
    """Issue 15: `const` and `enum` merged with nothing in common (`allOf`, or an `anyOf`
    branch with its node's `enum`) were `ZeroDivisionError` in `Generator._cycle` and
    `ValueError` in the size estimate; the `allOf` is a contradiction, the branch is skipped."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(
            {"type": "object", "properties": {"k": {"allOf": [{"const": 1}, {"const": 2}]}}}
        )
    assert [(p.code, p.pointer) for p in caught.value.problems] == [
        ("schema.contradiction", "/properties/k")
    ]
    assert "no value is in every enum and const" in caught.value.problems[0].message
    compiled = compile_schema(
        {
            "type": "object",
            "properties": {"k": {"enum": ["a", "b"], "anyOf": [{"const": "c"}, {"const": "a"}]}},
            "required": ["k"],
        }
    )
    values = [doc(generate(compiled, 41, index, DEFAULT_LIMITS)) for index in range(6)]
    assert {value["k"] for value in values} == {"a"}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "number", "minimum": 1e308},  # beyond the default upper end
        {"type": "integer", "minimum": 2**60},
        {"type": "number", "maximum": -1e300},
        {"type": "integer", "exclusiveMaximum": -(2**60)},
        {"type": "number", "minimum": 2e6, "maximum": 3e6},  # past the interior draw's range
        {"type": "number", "minimum": -1e308, "maximum": 1e308},  # a span that overflows
        {"type": "number", "minimum": 1e308, "maximum": 1.5e308},  # a midpoint that overflows
        {"minimum": 1, "maximum": 1, "multipleOf": 2},  # no number, but strings and more
        {"type": ["integer", "string"], "minimum": 1, "maximum": 1, "multipleOf": 2},
    ],
)
def test_numbers_at_the_ends_of_their_range_are_valid(schema: dict[str, Any]) -> None:
    """Found by `test_schema_fuzzing`: a lone bound beyond the default range, a float range
    whose width or midpoint overflows, and a node whose numbers are all excluded crashed the
    generator (`IndexError`, `ValueError` from `randint`, `inf`)."""
    document: Any = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    compiled = compile_schema(document)
    validator = Draft202012Validator(document)
    for index in CASE_INDICES:
        value = generate(compiled, 41, index, DEFAULT_LIMITS)
        assert validator.is_valid(value), value


def test_bounds_that_cross_once_merged_are_a_contradiction() -> None:
    """`allOf` parts whose bounds cross (each fine alone) were a `randint` crash; the merged
    bounds prove it, at the bound."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(
            {
                "type": "object",
                "properties": {"n": {"allOf": [{"type": "integer", "minimum": 1}], "maximum": 0}},
            }
        )
    assert [(p.code, p.pointer) for p in caught.value.problems] == [
        ("schema.contradiction", "/properties/n/minimum")
    ]


@pytest.mark.parametrize(
    "root",
    [
        {"properties": {"a": {"type": "integer"}}, "required": ["a"]},  # no `type` at all
        {"type": ["object", "null"], "properties": {"a": {"type": "string"}}},
        {"$ref": "#/$defs/Args", "$defs": {"Args": {"properties": {"a": {"const": 1}}}}},
        {"anyOf": [{"type": "object"}, {"type": "string"}]},
    ],
)
def test_the_arguments_are_always_an_object(root: dict[str, Any]) -> None:
    """A root that also admits other values generated them (`null`, a string) as a tool's
    arguments, which ended at the handler seam as a bare `AssertionError`."""
    compiled = compile_schema(doc(root))
    validator = Draft202012Validator(root)
    for index in CASE_INDICES:
        value = generate(compiled, 41, index, DEFAULT_LIMITS)
        assert isinstance(value, dict) and validator.is_valid(value), value
