"""`core.jsonutil.canonical`: the one encoding behind digests and receipts round-trips, is
independent of
key order, and refuses what JSON cannot hold."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.jsonutil.canonical import (
    canonical_compact,
    canonical_document,
    digest,
    digest_and_size,
    json_size,
)

SETTINGS = settings(max_examples=examples(100))


def json_values(text: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[Any]:
    text = st.text() if text is None else text
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | text,
        lambda children: (
            st.lists(children, max_size=5) | st.dictionaries(text, children, max_size=5)
        ),
        max_leaves=15,
    )


# Text UTF-8 can carry: lone surrogates are what `core.jsonutil.redact` replaces before recording.
utf8_text = st.text(st.characters(exclude_categories=["Cs"]))


def _reordered(value: Any, keys: st.DataObject) -> Any:
    """The same value with every object's members inserted in a drawn order."""
    if isinstance(value, dict):
        order = keys.draw(st.permutations(list(value)))
        return {k: _reordered(value[k], keys) for k in order}
    if isinstance(value, list):
        return [_reordered(v, keys) for v in value]
    return value


@SETTINGS
@given(json_values())
def test_compact_round_trips_as_sorted_ascii_without_spaces(value: Any) -> None:
    text = canonical_compact(value)
    assert json.loads(text) == value
    assert text.isascii()
    assert json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) == text


@SETTINGS
@given(json_values(utf8_text))
def test_document_round_trips_as_strict_utf8(value: Any) -> None:
    data = canonical_document(value)
    assert data.endswith(b"\n") and not data.endswith(b"\n\n")
    assert json.loads(data.decode("utf-8")) == value


@SETTINGS
@given(json_values(), st.data())
def test_digest_and_encodings_ignore_key_order(value: Any, data: st.DataObject) -> None:
    shuffled = _reordered(value, data)
    assert digest(shuffled) == digest(value)
    assert canonical_compact(shuffled) == canonical_compact(value)
    assert canonical_document(shuffled) == canonical_document(value)


@SETTINGS
@given(json_values())
def test_digest_and_size_agree_with_their_parts(value: Any) -> None:
    text = canonical_compact(value)
    assert digest(value) == hashlib.sha256(text.encode("ascii")).hexdigest()
    assert digest_and_size(value) == (digest(value), json_size(value))
    assert json_size(value) == len(text)


def test_known_encodings() -> None:
    value = {"b": [1, 2.5, None, True], "a": "é\U0001f600\x00", "c": {"z": {}, "y": []}}
    compact = '{"a":"\\u00e9\\ud83d\\ude00\\u0000","b":[1,2.5,null,true],"c":{"y":[],"z":{}}}'
    assert canonical_compact(value) == compact
    assert digest(value) == hashlib.sha256(compact.encode()).hexdigest()
    document = canonical_document({"b": 1, "a": "é"})
    assert document == '{\n  "a": "é",\n  "b": 1\n}\n'.encode()


def test_distinct_values_have_distinct_digests() -> None:
    values = [1, "1", True, [1], {"1": 1}, None, {"a": 1, "b": 2}, {"a": 2, "b": 1}]
    assert len({digest(v) for v in values}) == len(values)


@pytest.mark.parametrize(
    "value",
    [
        math.nan,
        math.inf,
        -math.inf,
        {"a": [1, {"b": math.nan}]},
        [0.0, -math.inf],
    ],
)
def test_non_finite_numbers_are_refused(value: Any) -> None:
    with pytest.raises(ValueError):
        canonical_compact(value)
    with pytest.raises(ValueError):
        canonical_document(value)
    with pytest.raises(ValueError):
        digest(value)
