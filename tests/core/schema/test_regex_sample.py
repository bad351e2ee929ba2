"""`core.schema.regex` sampling: drawn strings match under all three readings (the engine's
translation, Python's `re` on the raw text as the reference validator runs it, and
jsonschema-rs) within the requested length; near-misses match under none."""

from __future__ import annotations

from random import Random

import jsonschema_rs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.schema.regex import (
    HIGH,
    LOW,
    MIXED,
    NEAR_MISS_KINDS,
    Pattern,
    PatternError,
    compile_pattern,
)
from toolfuzz_gate.core.schema.regex.ast import length_range

ATOMS = ["a", "b", "c", "-", ".", "\\d", "\\w", "\\s", "\\D", "[a-c]", "[^a]", "\\.", "[0-9_]", "é"]
QUANTIFIERS = ["", "", "?", "*", "+", "{2}", "{1,3}", "{2,}"]


@st.composite
def terms(draw: st.DrawFn, depth: int = 0) -> str:
    if depth < 2 and draw(st.integers(0, 4)) == 0:
        branches = draw(st.lists(sequences(depth + 1), min_size=1, max_size=3))
        atom = "(" + "|".join(branches) + ")"
    else:
        atom = draw(st.sampled_from(ATOMS))
    return atom + draw(st.sampled_from(QUANTIFIERS))


@st.composite
def sequences(draw: st.DrawFn, depth: int = 0) -> str:
    return "".join(draw(st.lists(terms(depth), min_size=1, max_size=4)))


@st.composite
def patterns(draw: st.DrawFn) -> str:
    start = draw(st.sampled_from(["", "^"]))
    end = draw(st.sampled_from(["", "$"]))
    return start + draw(sequences()) + end


def rs_matches(source: str, text: str) -> bool:
    return bool(jsonschema_rs.Draft202012Validator({"pattern": source}).is_valid(text))


def assert_matches_everywhere(pattern: Pattern, text: str) -> None:
    assert pattern.matches(text), (pattern.source, text)
    assert pattern.python.search(text) is not None, (pattern.source, text)
    assert rs_matches(pattern.source, text), (pattern.source, text)


def assert_misses_everywhere(pattern: Pattern, text: str) -> None:
    assert not pattern.matches(text), (pattern.source, text)
    assert pattern.python.search(text) is None, (pattern.source, text)
    assert not rs_matches(pattern.source, text), (pattern.source, text)


@settings(max_examples=examples(120))
@given(patterns(), st.integers(0, 6), st.integers(0, 30), st.integers(0, 2**32))
def test_drawn_strings_match_under_every_reading(
    source: str, low: int, extra: int, seed: int
) -> None:
    try:
        pattern = compile_pattern(source)
    except PatternError:
        assume(False)
        raise
    high = low + extra
    rng = Random(seed)
    for mode in (LOW, HIGH, MIXED, MIXED):
        text = pattern.sample(rng, low, high, mode)
        if text is None:
            continue
        assert low <= len(text) <= high
        assert_matches_everywhere(pattern, text)


@settings(max_examples=examples(120))
@given(patterns(), st.integers(0, 2**32))
def test_low_and_high_draws_succeed_with_room(source: str, seed: int) -> None:
    try:
        pattern = compile_pattern(source)
    except PatternError:
        assume(False)
        raise
    assume(length_range(pattern.tree)[0] <= 40)
    for mode in (LOW, HIGH):
        text = pattern.sample(Random(seed), 0, 64, mode)
        assert text is not None, (source, mode)
        assert_matches_everywhere(pattern, text)


@settings(max_examples=examples(120))
@given(patterns(), st.integers(0, 4), st.integers(0, 20), st.integers(0, 2**32))
def test_near_misses_match_under_no_reading(source: str, low: int, extra: int, seed: int) -> None:
    try:
        pattern = compile_pattern(source)
    except PatternError:
        assume(False)
        raise
    high = low + extra
    for kind in NEAR_MISS_KINDS:
        text = pattern.near_miss(Random(seed), low, high, kind)
        if text is not None:
            assert low <= len(text) <= high
            assert_misses_everywhere(pattern, text)


@pytest.mark.parametrize(
    ("source", "low", "high"),
    [
        ("^[a-z]{3}-\\d{2}$", 6, 6),
        ("^\\d+$", 10, 10),
        ("a+", 0, 100),
        ("^(foo|barbaz)$", 6, 6),
        ("^[a-z]+(-[a-z]+)*$", 20, 30),
        ("^.*bar$", 3, 3),
        ("^\\s*$", 0, 5),
        ("^é+$", 4, 4),
    ],
)
def test_drawn_lengths_hit_tight_bounds(source: str, low: int, high: int) -> None:
    pattern = compile_pattern(source)
    for seed in range(10):
        for mode in (LOW, HIGH, MIXED):
            text = pattern.sample(Random(seed), low, high, mode)
            assert text is not None, (source, mode, seed)
            assert low <= len(text) <= high
            assert_matches_everywhere(pattern, text)


def test_digits_words_and_dots_are_drawn_where_every_reader_agrees() -> None:
    pattern = compile_pattern("^\\d\\w.\\s$")
    for seed in range(30):
        text = pattern.sample(Random(seed), 0, 10, MIXED)
        assert text is not None and text.isascii()
        assert_matches_everywhere(pattern, text)


@pytest.mark.parametrize(
    ("source", "kind", "low", "high"),
    [
        ("^[a-z]+$", "char-outside-class", 1, 5),
        ("^\\d{3}$", "part-dropped", 0, 5),
        ("^abc$", "anchor-broken", 0, 10),
        ("^a.c$", "char-outside-class", 3, 3),
    ],
)
def test_near_misses_exist_where_expected(source: str, kind: str, low: int, high: int) -> None:
    pattern = compile_pattern(source)
    text = pattern.near_miss(Random(1), low, high, kind)
    assert text is not None
    assert low <= len(text) <= high
    assert_misses_everywhere(pattern, text)


def test_a_pattern_matching_everything_has_no_near_miss() -> None:
    pattern = compile_pattern("a*")
    for kind in NEAR_MISS_KINDS:
        assert pattern.near_miss(Random(3), 0, 10, kind) is None


def test_same_seed_same_string() -> None:
    pattern = compile_pattern("^[a-z0-9]{4,12}(\\.[a-z]+)?$")
    first = [pattern.sample(Random(9), 0, 20, MIXED) for _ in range(3)]
    assert first == [pattern.sample(Random(9), 0, 20, MIXED) for _ in range(3)]
