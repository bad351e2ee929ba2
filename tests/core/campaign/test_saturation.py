"""`core.campaign.saturation` and the replay sample of `core.campaign.observe`: a campaign
stops a stream that stopped showing anything new, by counts alone, and finds what the whole
run finds."""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.campaign.test_tool_fuzz import AcceptAll
from tests.documents import doc
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.case import Case
from toolfuzz_gate.core.campaign.checks import ALL_CHECKS
from toolfuzz_gate.core.campaign.findings import InputKind
from toolfuzz_gate.core.campaign.observe import REPLAY_EVERY, REPLAY_FIRST, replay_due
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_ledgers import StreamRun
from toolfuzz_gate.core.campaign.saturation import Places, Saturation, window_for
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.handlers.builtin import BuiltinPosterHandler

TEXT_SCHEMA: JSONObject = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 60}},
    "required": ["text"],
    "additionalProperties": False,
}


Counting = AcceptAll
"""Accepts everything, echoing it; counts its calls."""


COUNT_SCHEMA: JSONObject = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": -50, "maximum": 50},
        "mode": {"enum": ["fast", "slow"]},
    },
    "required": ["count"],
    "additionalProperties": False,
}
"""No free string: nothing for the troublesome-strings dictionary to draw, so its valid
stream saturates (a free string's goes on while it draws entries it has not tried)."""


class CrashOnNegative(Counting):
    """Takes a square root of the count without a check."""

    def call(self, arguments: JSONObject) -> Outcome:
        count = arguments.get("count")
        if isinstance(count, int) and count < 0:
            self.calls += 1
            return Outcome(OutcomeKind.CRASH, message="ValueError: math domain error")
        return super().call(arguments)


class CrashOnSpaces(Counting):
    """The fixture's `slugify` bug: a text of spaces only has no first word."""

    def call(self, arguments: JSONObject) -> Outcome:
        text = arguments.get("text")
        if isinstance(text, str) and text and not text.split():
            self.calls += 1
            return Outcome(OutcomeKind.CRASH, message="IndexError: list index out of range")
        return super().call(arguments)


class CrashOnNonAscii(BuiltinPosterHandler):
    def call(self, arguments: JSONObject) -> Outcome:
        title = arguments.get("title")
        if isinstance(title, str) and not title.isascii():
            return Outcome(OutcomeKind.CRASH, message="UnicodeEncodeError")
        return super().call(arguments)


def run(
    handler: Any,
    document: Any,
    *,
    seed: int = 41,
    runs: int = 200,
    saturation: bool = True,
    tool: ToolSpec | None = None,
) -> FuzzResult:
    return fuzz(
        document,
        handler,
        tool or ToolSpec("t"),
        FuzzConfig(seed, runs, saturation=saturation),
        handler_label={"spec": "test"},
        replay_command="toolfuzz-gate run",
    )


def fingerprints(result: FuzzResult) -> set[str]:
    return {example["fingerprint"] for example in doc(result.receipt)["counterexamples"]}


def test_a_quiet_stream_stops_and_the_receipt_says_where() -> None:
    result = run(Counting(), COUNT_SCHEMA)
    receipt = doc(result.receipt)
    saturation = receipt["saturation"]
    assert saturation["window"] == window_for(200) == 50
    valid = saturation["valid"]
    assert valid["saturated"] is True and valid["planned"] == 200
    assert window_for(200) <= valid["ran"] < 200
    assert receipt["cases"]["valid"] == valid["ran"]


def test_saturation_off_runs_every_case() -> None:
    receipt = doc(run(Counting(), TEXT_SCHEMA, saturation=False).receipt)
    assert receipt["saturation"]["window"] == 0
    assert receipt["saturation"]["valid"] == {"planned": 200, "ran": 200, "saturated": False}
    assert receipt["cases"]["valid"] == 200


def test_saturation_is_decided_by_counts_so_receipts_repeat() -> None:
    first = run(CrashOnSpaces(), TEXT_SCHEMA, seed=7).receipt
    again = run(CrashOnSpaces(), TEXT_SCHEMA, seed=7).receipt
    assert first == again


@pytest.mark.slow
def test_saturated_runs_find_what_whole_runs_find() -> None:
    handlers = (
        (CrashOnSpaces, TEXT_SCHEMA),
        (CrashOnNonAscii, poster.SCHEMA),
        (CrashOnNegative, COUNT_SCHEMA),
    )
    for seed in (1, 41, 99):
        for handler, document in handlers:
            whole = run(handler(), document, seed=seed, saturation=False)
            saturated = run(handler(), document, seed=seed)
            assert fingerprints(whole), (seed, handler)
            assert fingerprints(saturated) == fingerprints(whole), (seed, handler)
            assert sum(saturated.counts.values()) <= sum(whole.counts.values()), (seed, handler)
        cut = run(CrashOnNegative(), COUNT_SCHEMA, seed=seed)
        assert sum(cut.counts.values()) < sum(whole.counts.values()), seed


class CrashOnMarkup(Counting):
    """Builds HTML by concatenation and chokes on markup in the text (bench_bug_kinds'
    markup-concat): only the troublesome-strings dictionary draws a `<`."""

    def call(self, arguments: JSONObject) -> Outcome:
        text = arguments.get("text")
        if isinstance(text, str) and ("<" in text or "&" in text):
            self.calls += 1
            return Outcome(OutcomeKind.CRASH, message="ParseError: unexpected markup")
        return super().call(arguments)


def test_a_stream_goes_on_while_it_draws_troublesome_strings_it_has_not_tried() -> None:
    # Found at 200 runs with saturation off; before dictionary entries counted as new, the
    # valid stream stopped after 50 quiet cases, before a `<` or `&` was drawn (seed 41).
    for seed in (1, 41, 99):
        whole = run(CrashOnMarkup(), TEXT_SCHEMA, seed=seed, saturation=False)
        saturated = run(CrashOnMarkup(), TEXT_SCHEMA, seed=seed)
        assert fingerprints(whole), seed
        assert fingerprints(saturated) == fingerprints(whole), seed


def test_learning_a_new_feature_makes_the_last_case_fresh() -> None:
    saturation = Saturation(window=2)
    saturation.begin("valid", 10)
    saturation.note("valid", iter([("a",)]))
    saturation.note("valid", iter([("a",)]))
    saturation.learn("valid", iter([("dictionary", "<script>")]))
    saturation.note("valid", iter([("a",)]))
    assert not saturation.saturated("valid", 3)  # one quiet case since the new entry
    saturation.learn("valid", iter([("dictionary", "<script>")]))  # not new any more
    saturation.note("valid", iter([("a",)]))
    assert saturation.saturated("valid", 4)


def test_every_operator_meets_its_first_bases_before_near_misses_may_stop() -> None:
    whole = doc(run(BuiltinPosterHandler(), poster.SCHEMA, saturation=False).receipt)
    saturated = doc(run(BuiltinPosterHandler(), poster.SCHEMA).receipt)
    assert saturated["coverage"] == whole["coverage"]
    hostile = saturated["saturation"]["hostile"]
    assert hostile["saturated"] is True and hostile["ran"] < hostile["planned"]


def test_a_new_feature_resets_the_quiet_count() -> None:
    saturation = Saturation(window=2)
    saturation.begin("valid", 10)
    for index, feature in enumerate(["a", "a", "b", "b", "b"]):
        assert not saturation.saturated("valid", index)
        saturation.note("valid", iter([(feature,)]))
    assert saturation.saturated("valid", 5)
    assert saturation.record().streams["valid"] == StreamRun(10, 5, True)
    assert saturation.record().as_json()["valid"] == {"planned": 10, "ran": 5, "saturated": True}


def test_shape_tells_apart_the_strings_handlers_trip_on() -> None:
    places = Places(compile_schema(TEXT_SCHEMA).root)
    shapes = {
        text: set(places.shape({"text": text}))
        for text in ("abc", "abd", "   ", "caf\u00e9", "\ud800x", "a\x00")
    }
    assert shapes["abc"] == shapes["abd"]
    others = [shapes[text] for text in ("   ", "caf\u00e9", "\ud800x", "a\x00")]
    assert all(other != shapes["abc"] for other in others)
    assert len({frozenset(other) for other in others}) == len(others)
    # a name the schema does not declare is one place, whatever it is
    assert set(places.shape({"zq": 1})) == set(places.shape({"yy": 2}))


def test_replays_go_to_the_first_cases_then_every_few() -> None:
    def valid(index: int) -> Case:
        return Case(InputKind.VALID, "valid", "", {}, index, "valid", True)

    due = [index for index in range(64) if replay_due(valid(index))]
    assert due[:REPLAY_FIRST] == list(range(REPLAY_FIRST))
    assert all(index % REPLAY_EVERY == 0 for index in due[REPLAY_FIRST:])
    probe = Case(InputKind.SEAM, "seam", "", {}, 63, "seam", True)
    assert replay_due(probe)


def test_the_receipt_counts_the_replays_made() -> None:
    handler = Counting()
    result = run(handler, TEXT_SCHEMA, saturation=False, tool=ToolSpec("t", checks=ALL_CHECKS))
    receipt = doc(result.receipt)
    sample = receipt["replaySample"]
    expected = REPLAY_FIRST + len(range(REPLAY_FIRST, 200, REPLAY_EVERY))
    seams = receipt["cases"]["seam"]
    valid_probes = sum(1 for probe in receipt["probes"] if probe["valid"])
    assert sample["first"] == REPLAY_FIRST and sample["every"] == REPLAY_EVERY
    assert sample["replayed"] == expected + valid_probes
    assert handler.calls >= 200 + receipt["cases"]["hostile"] + seams + sample["replayed"]
