"""Cassettes: keyed by the request's digest, deterministic, untrusted on read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import json_values
from toolfuzz_gate.core.agent.cassette import Cassette, parse_cassette, request_digest
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_document
from toolfuzz_gate.errors import LlmError


def _request(prompt: str) -> JSONObject:
    return {"model": "m", "messages": [{"role": "user", "content": prompt}], "seed": 0}


def test_a_recorded_answer_is_found_by_an_equal_request() -> None:
    cassette = Cassette()
    cassette.record(_request("find Paris"), {"choices": []})
    same: JSONObject = {
        "seed": 0,
        "messages": [{"content": "find Paris", "role": "user"}],
        "model": "m",
    }
    assert cassette.answer(same) == {"choices": []}


def test_a_missing_request_names_its_prompt() -> None:
    cassette = Cassette()
    cassette.record(_request("find Paris"), {})
    with pytest.raises(LlmError) as raised:
        cassette.answer(_request("find Rome\nand more"))
    assert raised.value.code == "llm.cassette-miss"
    assert "prompt: 'find Rome'" in raised.value.message


def test_the_document_is_canonical_whatever_the_recording_order() -> None:
    one, two = Cassette(), Cassette()
    for prompt in ("a", "b", "c"):
        one.record(_request(prompt), {"p": prompt})
    for prompt in ("c", "a", "b"):
        two.record(_request(prompt), {"p": prompt})
    assert canonical_document(one.document()) == canonical_document(two.document())
    assert one.digest() == two.digest()
    assert parse_cassette(one.document(), "c.json").entries == one.entries


def _with(entry_key: str, entry: Any) -> dict[str, Any]:
    return {"format": "toolfuzz-cassette/1", "entries": {entry_key: entry}}


GOOD = {"prompt": "a", "request": _request("a"), "response": {}}


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ([], "not a toolfuzz-cassette/1 document"),
        ({"format": "toolfuzz-cassette/2", "entries": {}}, "not a toolfuzz-cassette/1"),
        ({"format": "toolfuzz-cassette/1", "entries": []}, "`entries` is not an object"),
        (_with("xyz", GOOD), "is not a sha256 digest"),
        (_with(request_digest(_request("a")), {"prompt": "a"}), "has no request object"),
        (_with(request_digest(_request("a")), {**GOOD, "prompt": 3}), "lacks its response"),
        (_with(request_digest(_request("b")), GOOD), "is not its key (edited?)"),
        (_with(request_digest(_request("a")), {**GOOD, "response": float("inf")}), "out of range"),
    ],
)
def test_an_unsound_cassette_is_refused_with_the_problem(document: Any, words: str) -> None:
    with pytest.raises(LlmError) as raised:
        parse_cassette(document, "c.json")
    assert raised.value.code == "llm.cassette-invalid"
    assert words in raised.value.message and "c.json" in raised.value.message


@given(
    st.lists(
        st.tuples(st.text(max_size=20), json_values),
        min_size=1,
        max_size=5,
        unique_by=lambda x: x[0],
    )
)
def test_a_written_cassette_reads_back_to_the_same_answers_and_digest(
    exchanges: list[tuple[str, JSON]],
) -> None:
    cassette = Cassette()
    for prompt, answer in exchanges:
        cassette.record(_request(prompt), answer)
    text = canonical_document(cassette.document()).decode("utf-8", errors="surrogatepass")
    read = parse_cassette(json.loads(text), "c.json")
    assert read.digest() == cassette.digest()
    for prompt, answer in exchanges:
        assert read.answer(_request(prompt)) == answer


def test_a_recording_stops_at_the_exchange_that_takes_it_past_what_a_replay_reads() -> None:
    answer: JSONObject = {"choices": [{"message": {"content": "x" * 1_000}}]}
    unbounded = Cassette()
    for index in range(5):
        unbounded.record(_request(f"prompt {index}"), answer)
    size = len(canonical_document(unbounded.document()))
    fits = Cassette(max_bytes=size + 100)  # the estimate may run a little over, never under
    for index in range(5):
        fits.record(_request(f"prompt {index}"), answer)
    assert fits.document() == unbounded.document()
    bounded = Cassette(max_bytes=size // 2)
    with pytest.raises(LlmError) as raised:
        for index in range(5):
            bounded.record(_request(f"prompt {index}"), answer)
    assert raised.value.code == "llm.cassette-invalid"
    assert f"after {len(bounded.entries)} exchanges" in raised.value.message
    assert 2 <= len(bounded.entries) <= 3  # stopped about halfway, not at the end
    whole = len(canonical_document(bounded.document()))
    assert whole > size // 2  # it stopped once the file would have been too large
