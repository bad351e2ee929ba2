"""`core.campaign.receipt`: the same seed gives a byte-identical receipt, the hash covers
everything but
`receiptHash` and `diagnostics`, and any edit is caught by `problems`."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt import receipt_hash
from toolfuzz_gate.core.campaign.receipt_members import Diagnostics
from toolfuzz_gate.core.campaign.receipt_read import problems, read_receipt
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_document, digest_and_size
from toolfuzz_gate.edges.handlers.builtin import BuiltinPosterHandler

POSTER_TOOL = ToolSpec(
    poster.TOOL_NAME,
    expected_rejections=poster.EXPECTED_REJECTIONS,
    error_codes=poster.ERROR_CODES,
    dry_run=poster.DRY_RUN,
)
# The members DESIGN.md promises, written out here rather than read from `core.campaign.receipt`.
REQUIRED_MEMBERS = (
    "format",
    "tool",
    "seed",
    "runs",
    "schemaDigest",
    "handler",
    "engine",
    "limits",
    "coverage",
    "mutationCounts",
    "invariants",
    "unsupported",
    "counterexamples",
    "replayCommand",
    "receiptHash",
)


class AcceptAll:
    def call(self, arguments: JSONObject) -> Outcome:
        output_digest, size = digest_and_size(arguments)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def run_fuzz(
    handler: Any,
    seed: int,
    *,
    runs: int = 24,
    document: Any = poster.SCHEMA,
    tool: ToolSpec = POSTER_TOOL,
    clock: Callable[[], float] | None = None,
) -> FuzzResult:
    return fuzz(
        document,
        handler,
        tool,
        FuzzConfig(seed, runs),
        handler_label={"spec": "builtin:renderPoster"},
        replay_command=f"toolfuzz-gate run --seed {seed}",
        clock=clock,
    )


def _independent_hash(receipt: dict[str, Any]) -> str:
    body = {k: v for k, v in receipt.items() if k not in ("receiptHash", "diagnostics")}
    text = json.dumps(body, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return hashlib.sha256((text + "\n").encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def builtin_receipt() -> JSONObject:
    return run_fuzz(BuiltinPosterHandler(), 41).receipt.document()


def test_same_seed_gives_a_byte_identical_receipt(builtin_receipt: JSONObject) -> None:
    again = run_fuzz(BuiltinPosterHandler(), 41).receipt.document()
    assert again["receiptHash"] == builtin_receipt["receiptHash"]
    assert canonical_document(again) == canonical_document(builtin_receipt)


def test_a_lax_handler_gives_a_byte_identical_receipt_too() -> None:
    """Counterexamples, shrinking and all: nothing depends on anything but the seed."""
    first = run_fuzz(AcceptAll(), 7).receipt.document()
    second = run_fuzz(AcceptAll(), 7).receipt.document()
    assert first["counterexamples"], "the lax handler should have counterexamples"
    assert canonical_document(first) == canonical_document(second)


def test_a_different_seed_changes_the_cases(builtin_receipt: JSONObject) -> None:
    other = run_fuzz(BuiltinPosterHandler(), 42).receipt.document()
    assert other["casesDigest"] != builtin_receipt["casesDigest"]
    assert other["receiptHash"] != builtin_receipt["receiptHash"]


def test_receipt_has_every_promised_member(builtin_receipt: JSONObject) -> None:
    assert set(REQUIRED_MEMBERS) <= set(builtin_receipt)
    assert builtin_receipt["format"] == "toolfuzz-receipt/1"
    engine: Any = builtin_receipt["engine"]
    assert {"name", "version", "generator"} <= set(engine)
    assert {"name", "version"} <= set(engine["generator"])
    assert problems(builtin_receipt) == []


def test_receipt_hash_is_the_sha256_of_the_canonical_body(builtin_receipt: JSONObject) -> None:
    assert builtin_receipt["receiptHash"] == _independent_hash(builtin_receipt)
    assert receipt_hash(builtin_receipt) == builtin_receipt["receiptHash"]


def test_diagnostics_are_outside_the_hash(builtin_receipt: JSONObject) -> None:
    ticks = iter([100.0, 101.0, 102.5, 103.25])  # start, settling, settled, end
    timed = run_fuzz(BuiltinPosterHandler(), 41, clock=lambda: next(ticks)).receipt.document()
    assert timed["diagnostics"] == {"durationSeconds": 3.25, "settleSeconds": 1.5}
    assert timed["receiptHash"] == builtin_receipt["receiptHash"]
    edited = copy.deepcopy(timed)
    edited["diagnostics"] = {"durationSeconds": 99, "host": {"python": "3.99"}}
    assert problems(edited) == []


def test_the_document_adds_format_hash_and_diagnostics(builtin_receipt: JSONObject) -> None:
    receipt = read_receipt(builtin_receipt)
    named = replace(receipt, tool="é\U0001f600")
    document = named.with_diagnostics(Diagnostics(1.5)).document()
    assert document["format"] == "toolfuzz-receipt/1"
    assert document["receiptHash"] == _independent_hash(document)
    assert document["diagnostics"] == {"durationSeconds": 1.5}
    assert "diagnostics" not in named.document()
    assert named.document()["receiptHash"] == document["receiptHash"]


def test_a_read_receipt_writes_the_bytes_it_was_read_from(builtin_receipt: JSONObject) -> None:
    """The typed tree holds every member: reading and writing again changes nothing."""
    assert read_receipt(builtin_receipt).encoded() == canonical_document(builtin_receipt)


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Any], None]:
    def edit(receipt: Any) -> None:
        target = receipt
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


TAMPERINGS: dict[str, Callable[[Any], None]] = {
    "seed": _set(("seed",), 42),
    "runs": _set(("runs",), 25),
    "tool": _set(("tool",), "renderPoster2"),
    "coverage": _set(("coverage", "enum"), "not-applicable"),
    "invariant": _set(("invariants", "no-crash"), False),
    "counter": _set(("mutationCounts", "type", "confirmed"), 0),
    "unsupported": _set(("unsupported",), [{"keyword": "pattern", "path": "/x"}]),
    "counterexamples": _set(("counterexamples",), [{"failure": "crash"}]),
    "extra member": _set(("note",), "looks fine"),
    "engine version": _set(("engine", "version"), "9.9.9"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_any_edit_is_a_hash_mismatch(builtin_receipt: JSONObject, name: str) -> None:
    edited = copy.deepcopy(builtin_receipt)
    TAMPERINGS[name](edited)
    found = problems(edited)
    assert len(found) == 1 and "receiptHash" in found[0], found


def test_a_missing_member_or_wrong_format_is_named(builtin_receipt: JSONObject) -> None:
    for name in REQUIRED_MEMBERS:
        edited = copy.deepcopy(builtin_receipt)
        del edited[name]
        assert any(name in problem for problem in problems(edited)), name
    edited = dict(builtin_receipt, format="toolfuzz-receipt/2")
    assert any("format" in problem for problem in problems(edited))
    assert problems([builtin_receipt]) != []
    assert problems(None) != []


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(schema=subset_schemas(max_properties=5), seed=st.integers(0, 2**31 - 1))
def test_random_schemas_give_the_same_receipt_for_the_same_seed(
    schema: dict[str, Any], seed: int
) -> None:
    tool = ToolSpec("random")
    first = run_fuzz(AcceptAll(), seed, runs=3, document=schema, tool=tool).receipt.document()
    second = run_fuzz(AcceptAll(), seed, runs=3, document=schema, tool=tool).receipt.document()
    assert first["receiptHash"] == second["receiptHash"]
    assert canonical_document(first) == canonical_document(second)
    assert problems(first) == []
    assert first["receiptHash"] == _independent_hash(first)
    assert read_receipt(first).encoded() == canonical_document(first)
    canonical_document(first).decode("utf-8")  # strict UTF-8: no lone surrogates recorded
