"""`core.jsonutil.locate`: every pointer of a document maps to the line its key or item starts
on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.locate import line_index, line_of

KEYS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | KEYS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


def pointers(value: Any, where: str = "") -> Iterator[str]:
    yield where
    if isinstance(value, dict):
        for key, child in value.items():
            yield from pointers(child, jp.join(where, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from pointers(child, jp.join(where, index))


@settings(max_examples=examples(60))
@given(VALUES)
def test_every_pointer_is_found_on_the_line_that_names_it(value: Any) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    lines = line_index(text)
    source = text.split("\n")
    for at in pointers(value):
        assert at in lines, at
        if at:
            *_, last = jp.split(at)
            row = source[lines[at] - 1]
            parent = value
            for token in jp.split(at)[:-1]:
                parent = parent[int(token)] if isinstance(parent, list) else parent[token]
            if isinstance(parent, dict):
                assert row.lstrip().startswith(json.dumps(last, ensure_ascii=False) + ":")


@settings(max_examples=examples(30))
@given(VALUES)
def test_compact_text_is_all_on_line_one(value: Any) -> None:
    assert set(line_index(json.dumps(value)).values()) == {1}


def test_escapes_and_nearest_ancestor() -> None:
    text = '{\n  "a\\"b": {\n    "c/d": [1,\n      "x\\\\"]\n  }\n}'
    lines = line_index(text)
    assert lines['/a"b'] == 2
    assert lines['/a"b/c~1d/1'] == 4
    assert line_of(lines, '/a"b/c~1d/1') == 4
    assert line_of(lines, '/a"b/missing/deeper') == 2
    assert line_of({}, "/x") is None
