"""`core.engine.ledger` and its table (`core.engine.boundaries`): a default run reaches every
edge of every reachable node (an empty array under `anyOf [$ref, null]`, each troublesome
character class of a free string, an astral-heavy string at `maxLength`, the traversal values
of a path-like argument), aimed values stay valid, and the receipt names what stayed unhit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.saturation import Saturation
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate_traced
from toolfuzz_gate.core.engine.ledger import MAX_TRIES, Ledger, aims_at
from toolfuzz_gate.core.engine.trouble import TRAVERSALS, TROUBLE_CLASSES, is_path_like
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS

SEEDS = (41, 1, 2, 3)

FILTERS: JSONObject = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "author": {"type": "string", "maxLength": 50},
        "since": {"type": "string", "format": "date"},
        "sort": {"enum": ["relevance", "date", "title"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    },
    "additionalProperties": False,
}
SEARCH: JSONObject = {
    "type": "object",
    "$defs": {"Filters": FILTERS},
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 200},
        "page": {"type": "integer", "minimum": 1},
        "filters": {"anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}]},
    },
    "required": ["query"],
    "additionalProperties": False,
}
"""The issue's search tool: before the ledger, seed 3 gave `tags` in 12 of 100 valid cases
and never empty."""


class Echo:
    """Accepts everything; a subclass says when it crashes instead."""

    def crashes(self, arguments: JSONObject) -> bool:
        return False

    def call(self, arguments: JSONObject) -> Outcome:
        if self.crashes(arguments):
            return Outcome(OutcomeKind.CRASH, message="planted")
        output_digest, size = digest_and_size(arguments)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def _run(
    schema: JSONObject, seed: int, runs: int = 100, handler: Echo | None = None
) -> tuple[FuzzResult, list[Any]]:
    """A default run (saturation on); the valid inputs the handler was given."""
    valid: list[Any] = []

    def sink(record: JSONObject) -> None:
        if record["family"] == "valid":
            valid.append(record["input"])

    result = fuzz(
        schema,
        handler or Echo(),
        ToolSpec(name="t"),
        FuzzConfig(seed=seed, runs=runs),
        handler_label={"kind": "test"},
        replay_command="replay",
        sink=sink,
    )
    return result, valid


class CrashOnNoTags(Echo):
    def crashes(self, arguments: JSONObject) -> bool:
        filters = arguments.get("filters")
        return isinstance(filters, dict) and filters.get("tags") == []


@pytest.mark.parametrize("seed", SEEDS)
def test_an_empty_array_under_anyof_ref_null_is_reached_in_a_default_run(seed: int) -> None:
    result, valid = _run(SEARCH, seed, handler=CrashOnNoTags())
    empty = [
        v for v in valid if isinstance(v.get("filters"), dict) and v["filters"].get("tags") == []
    ]
    assert empty, f"seed {seed}: no valid case gave filters.tags == []"
    crashes = [c for c in result.counterexamples if c.finding.failure.value == "crash"]
    minimal: list[Any] = [c.minimal for c in crashes]
    assert any(m["filters"]["tags"] == [] for m in minimal)
    boundaries: Any = result.receipt.document()["boundaries"]
    assert boundaries["unhit"] == 0


TITLE: JSONObject = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 80}},
    "required": ["title"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("seed", SEEDS)
def test_every_troublesome_class_is_reached_in_a_default_free_string_stream(seed: int) -> None:
    _, valid = _run(TITLE, seed, runs=200)
    titles = [v["title"] for v in valid]
    assert any("!" in title for title in titles)
    missing = [t.name for t in TROUBLE_CLASSES if not any(t.holds(title) for title in titles)]
    assert missing == []


class CountsUtf16(Echo):
    """The calculator of the issue: `maxLength: 500` documented, UTF-16 units counted."""

    def crashes(self, arguments: JSONObject) -> bool:
        pattern = arguments.get("pattern")
        return isinstance(pattern, str) and len(pattern.encode("utf-16-le")) // 2 > 500


def test_an_astral_heavy_string_at_max_length_is_generated_and_finds_utf16_counting() -> None:
    schema: JSONObject = {
        "type": "object",
        "properties": {"pattern": {"type": "string", "minLength": 1, "maxLength": 500}},
        "required": ["pattern"],
    }
    result, valid = _run(schema, 41, handler=CountsUtf16())
    at_bound = [v["pattern"] for v in valid if len(v["pattern"]) == 500]
    astral = [s for s in at_bound if sum(ord(c) > 0xFFFF for c in s) == 500]
    assert astral and len(astral[0].encode("utf-16-le")) == 2000
    combining = [s for s in at_bound if len({len(s.encode("utf-8")), len(s)}) == 2]
    assert combining, "no combining-heavy string at maxLength"
    assert any(c.finding.failure.value == "crash" for c in result.counterexamples)


def test_path_like_arguments_get_every_traversal_value_and_others_none() -> None:
    schema: JSONObject = {
        "type": "object",
        "properties": {
            "folder": {"type": "string"},
            "target": {"type": "string", "format": "uri-reference"},
            "direction": {"type": "string"},
        },
        "required": ["folder", "target", "direction"],
        "additionalProperties": False,
    }
    _, valid = _run(schema, 41)
    for name in ("folder", "target"):
        given_values = {v[name] for v in valid}
        assert {text for _, text in TRAVERSALS} <= given_values, name
    # `direction` is no path: it gets the traversals only as random draws might
    assert not {text for _, text in TRAVERSALS if text} <= {v["direction"] for v in valid}


@pytest.mark.parametrize(
    ("pointer", "formats", "expected"),
    [
        ("/properties/path", (), True),
        ("/properties/outputPath", (), True),
        ("/properties/target_dir", (), True),
        ("/properties/files/items", (), True),
        ("/$defs/Note/properties/destination", (), True),
        ("/properties/link", ("uri-reference",), True),
        ("/properties/direction", (), False),
        ("/properties/profile", (), False),
        ("/properties/title", (), False),
    ],
)
def test_path_like_names(pointer: str, formats: tuple[str, ...], expected: bool) -> None:
    assert is_path_like(pointer, formats) is expected


def test_receipts_with_aimed_cases_are_byte_identical_between_runs() -> None:
    first, _ = _run(SEARCH, 7, handler=CrashOnNoTags())
    second, _ = _run(SEARCH, 7, handler=CrashOnNoTags())
    assert first.receipt.encoded() == second.receipt.encoded()


def test_an_edge_no_value_can_reach_is_listed_unhit_and_stops_holding_the_stream() -> None:
    schema: JSONObject = {
        "type": "object",
        "properties": {"n": {"type": "integer", "anyOf": [{"maximum": 3}, {"type": "string"}]}},
        "required": ["n"],
    }
    result, _ = _run(schema, 41, runs=200)
    boundaries: Any = result.receipt.document()["boundaries"]
    assert boundaries["unhitEdges"] == [{"pointer": "/properties/n", "edge": "anyOf/1"}]
    assert boundaries["unhit"] == 1 and boundaries["hit"] == boundaries["edges"] - 1
    saturation: Any = result.receipt.document()["saturation"]
    assert saturation["valid"]["saturated"] is True


def test_an_open_edge_keeps_a_quiet_stream_going() -> None:
    saturation = Saturation(window=2)
    saturation.begin("valid", 10)
    saturation.streams["valid"].quiet = 5
    assert not saturation.saturated("valid", 3, edges_open=True)
    assert saturation.saturated("valid", 4, edges_open=False)


def test_an_edge_is_given_up_after_its_tries() -> None:
    compiled = compile_schema(
        {"type": "object", "properties": {"s": {"type": "string", "maxLength": 4}}}
    )
    ledger = Ledger(compiled.root, DEFAULT_LIMITS)
    assert ledger.pending()
    aims = 0
    while ledger.aim() is not None:  # one value per node and case: one edge of `s` each
        aims += 1
    string_edges = len([edge for edge in ledger.edges if edge.pointer == "/properties/s"])
    assert aims == MAX_TRIES * string_edges
    assert not ledger.pending()
    assert len(ledger.unhit()) == len(ledger.edges)
    ledger.observe({"s": ""})
    assert all(edge.label != "empty-string" for edge in ledger.unhit())


@settings(max_examples=examples(80), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(schema=subset_schemas(), seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_aimed_values_are_valid_under_jsonschema(schema: dict[str, Any], seed: int) -> None:
    compiled = compile_schema(schema)
    reference = Draft202012Validator(schema)
    ledger = Ledger(compiled.root, DEFAULT_LIMITS)
    for index in range(3, 40):
        aim = ledger.aim() if aims_at(index) else None
        value, _ = generate_traced(compiled, seed, index, DEFAULT_LIMITS, aim)
        assert reference.is_valid(value), (index, value)
        ledger.observe(value)


_RECEIPT_HASH = """
from tests.core.engine.test_ledger import SEARCH, CrashOnNoTags, _run
print(_run(SEARCH, 41, handler=CrashOnNoTags())[0].receipt.receipt_hash)
"""


@pytest.mark.slow
def test_the_receipt_is_the_same_under_any_hash_seed() -> None:
    root = Path(__file__).resolve().parents[3]
    hashes = {
        subprocess.run(
            [sys.executable, "-c", _RECEIPT_HASH],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(hashes) == 1 and next(iter(hashes)).strip()
