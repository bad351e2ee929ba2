"""`core.campaign.shrink`: never grows the input, keeps the predicate, stays within budget, and
reaches small answers."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.campaign.shrink import candidates, shrink, sort_key
from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_compact

SETTINGS = settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _predicates(original: Any) -> st.SearchStrategy[Callable[[Any], bool]]:
    """Predicates true of `original`: each a different kind of failure to keep."""
    text = canonical_compact(original)
    size = len(text)
    numbers = [x for x in _leaves(original) if _kind(x) == "number"]

    def top_type(v: Any) -> bool:
        return type(v) is type(original)

    options: list[st.SearchStrategy[Callable[[Any], bool]]] = [
        st.just(lambda v: True),
        st.just(top_type),
        st.integers(min_value=0, max_value=size).map(
            lambda n: lambda v: len(canonical_compact(v)) >= n
        ),
        st.integers(min_value=1, max_value=7).map(
            # A "flaky-looking" but deterministic predicate: arbitrary subsets of values.
            lambda k: (
                lambda v: (
                    v == original
                    or int(hashlib.sha256(canonical_compact(v).encode()).hexdigest(), 16) % k == 0
                )
            )
        ),
    ]
    if numbers:
        threshold = max(numbers)
        options.append(
            st.just(lambda v: any(_kind(x) == "number" and x >= threshold for x in _leaves(v)))
        )
    characters = sorted(set(text))
    options.append(st.sampled_from(characters).map(lambda c: lambda v: c in canonical_compact(v)))
    return st.one_of(options)


@st.composite
def shrink_problems(draw: st.DrawFn) -> tuple[Any, Callable[[Any], bool], int]:
    original = draw(json_values)
    keeps = draw(_predicates(original))
    budget = draw(st.integers(min_value=1, max_value=400))
    return original, keeps, budget


class Recorder:
    """Wraps a predicate, checking every call is strictly below the current best."""

    def __init__(self, original: Any, keeps: Callable[[Any], bool]) -> None:
        self.keeps = keeps
        self.best = sort_key(original)
        self.calls = 0
        self.accepted: list[Any] = []

    def __call__(self, candidate: Any) -> bool:
        self.calls += 1
        key = sort_key(candidate)
        assert key < self.best, f"tried {candidate!r}, not smaller than the current input"
        if self.keeps(candidate):
            self.best = key
            self.accepted.append(candidate)
            return True
        return False


@SETTINGS
@given(shrink_problems())
def test_shrink_never_grows_keeps_the_predicate_and_respects_the_budget(
    problem: tuple[Any, Callable[[Any], bool], int],
) -> None:
    """The recorder also checks that shrink only ever tries candidates strictly below the
    current input in `sort_key` order: the filter that makes every step a descent."""
    original, keeps, budget = problem
    assert keeps(original)
    recorder = Recorder(original, keeps)
    result, sizes = shrink(original, recorder, budget)
    assert sort_key(result) <= sort_key(original)
    assert keeps(result)
    assert recorder.calls <= budget
    assert sizes[0] == len(canonical_compact(original))
    assert sizes[-1] == len(canonical_compact(result))
    assert sizes == sorted(sizes, reverse=True), sizes
    assert len(sizes) == len(recorder.accepted) + 1
    if recorder.accepted:
        assert canonical_compact(result) == canonical_compact(recorder.accepted[-1])
    else:
        assert canonical_compact(result) == canonical_compact(original)


# `true` encodes shorter than `false`, so in shortlex order both booleans are already minimal.
MINIMUM_OF_KIND = {"dict": {}, "list": [], "str": "", "number": 0, "NoneType": None}


@SETTINGS
@given(json_values)
def test_a_predicate_asking_only_for_the_kind_reaches_its_minimum(value: Any) -> None:
    kind = _kind(value)
    result, _ = shrink(value, lambda v: _kind(v) == kind, 100_000)
    assert _kind(result) == kind
    expected = value if kind == "boolean" else MINIMUM_OF_KIND[kind]
    assert canonical_compact(result) == canonical_compact(expected)


@SETTINGS
@given(json_values)
def test_candidates_are_json_of_the_same_kind(value: Any) -> None:
    kind = _kind(value)
    for candidate in candidates(value):
        canonical_compact(candidate)  # a JSON value (no NaN, no Infinity)
        assert _kind(candidate) == kind, (value, candidate)


@SETTINGS
@given(json_values)
def test_every_non_minimal_value_has_a_strictly_smaller_candidate(value: Any) -> None:
    assume(canonical_compact(value) not in ("null", "true", "false", "0", '""', "[]", "{}"))
    key = sort_key(value)
    smaller = [c for c in candidates(value) if sort_key(c) < key]
    assert smaller, f"no way down from {value!r}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _wide(v: Any) -> bool:
    width = v.get("width") if isinstance(v, dict) else None
    return isinstance(width, int) and not isinstance(width, bool) and width > 400


def test_the_poster_example_shrinks_to_the_smallest_failure() -> None:
    original: JSON = {"title": "hello", "width": 999, "palette": ["abcd", "efgh"]}
    result, sizes = shrink(original, _wide, 300)
    assert result == {"width": 401}
    assert sizes[0] == len(canonical_compact(original))
    assert sizes[-1] == len('{"width":401}')


def test_the_budget_bounds_the_calls_even_when_nothing_shrinks() -> None:
    calls: list[Any] = []

    def never(v: Any) -> bool:
        calls.append(v)
        return False

    original: JSON = {"a": [1, 2, 3, "xyz" * 10], "b": {"c": 12345.678}}
    result, sizes = shrink(original, never, 17)
    assert result == original
    assert sizes == [len(canonical_compact(original))]
    assert len(calls) == 17


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("\x00\U0001f600z", "a"),  # one character kept: a plain letter is simplest
        (-12345, -1),
        (3.75, 1),
        ([5, [6, 7]], [0]),
    ],
)
def test_shrinking_prefers_plain_letters_and_small_numbers(value: Any, expected: Any) -> None:
    def nonempty(v: Any) -> bool:
        if isinstance(v, str | list):
            return len(v) >= 1
        return isinstance(v, int | float) and not isinstance(v, bool) and v != 0

    result, _ = shrink(value, nonempty, 10_000)
    assert result == expected


def test_sort_key_is_shortlex_with_letters_first() -> None:
    assert sort_key("b") < sort_key("aa")
    assert sort_key("a") < sort_key("A") < sort_key("\x00")
    assert sort_key("a") < sort_key("0")
    assert sort_key(1) < sort_key(10) < sort_key(-10)
    assert sort_key({}) < sort_key({"a": 1})


@pytest.mark.parametrize(
    ("value", "keeps", "expected"),
    [
        ("hello wörld", lambda v: isinstance(v, str) and "ö" in v, "ö"),
        (
            {"a": "zzz\x00"},
            lambda v: isinstance(v, dict) and "\x00" in str(v.get("a")),
            {"a": "\x00"},
        ),
        (["x", "y", "HIT", "z"], lambda v: isinstance(v, list) and "HIT" in v, ["HIT"]),
    ],
    ids=["char-in-the-middle", "nul-at-the-end", "item-in-the-middle"],
)
def test_the_one_part_that_matters_is_kept_alone(
    value: Any, keeps: Callable[[Any], bool], expected: Any
) -> None:
    """A failure caused by one character (or item) shrinks to just that character (or item)."""
    result, _ = shrink(value, keeps, 300)
    assert result == expected
