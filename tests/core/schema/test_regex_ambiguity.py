"""`core.schema.regex.ambiguity`: a repeated group is refused exactly when its iterations can
read one string in two ways. Checked against a brute-force count of parses written here
independently of the automaton, on the patterns that motivated it (firecrawl's host names),
on ones the old rule let through although they are exponential, and on random patterns."""

from __future__ import annotations

import itertools
import re
from functools import cache
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.profiles import examples
from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.regex import UNSUPPORTED, PatternError, compile_pattern, parse
from toolfuzz_gate.core.schema.regex.ambiguity import ambiguous_repeat
from toolfuzz_gate.core.schema.regex.ast import Alt, Anchor, Chars, Regex, Repeat, Seq, contains

HOST = r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$"
"""firecrawl's `includeDomains` / `excludeDomains` item pattern (the standard host name)."""


def parses(body: Regex, text: str) -> int:
    """How many ways one or more iterations of `body` read all of `text` (brute force)."""

    @cache
    def ways(node_id: int, start: int, end: int) -> int:
        node = nodes[node_id]
        if isinstance(node, Chars):
            return int(end == start + 1 and contains(node.ranges, ord(text[start])))
        if isinstance(node, Anchor):
            return int(start == end)
        if isinstance(node, Alt):
            return sum(ways(index_of(b), start, end) for b in node.branches)
        if isinstance(node, Seq):
            return sequence(tuple(index_of(item) for item in node.items), start, end)
        assert isinstance(node, Repeat)
        high = end - start + 1 if node.high is None else node.high
        body_id = index_of(node.body)
        return sum(times(body_id, k, start, end) for k in range(node.low, high + 1))

    @cache
    def sequence(items: tuple[int, ...], start: int, end: int) -> int:
        if not items:
            return int(start == end)
        return sum(
            ways(items[0], start, middle) * sequence(items[1:], middle, end)
            for middle in range(start, end + 1)
        )

    @cache
    def times(body_id: int, count: int, start: int, end: int) -> int:
        if count == 0:
            return int(start == end)
        return sum(
            ways(body_id, start, middle) * times(body_id, count - 1, middle, end)
            for middle in range(start, end + 1)
        )

    nodes: list[Regex] = []
    identities: dict[int, int] = {}

    def index_of(node: Regex) -> int:
        if id(node) not in identities:
            identities[id(node)] = len(nodes)
            nodes.append(node)
        return identities[id(node)]

    body_id = index_of(body)
    return sum(times(body_id, k, 0, len(text)) for k in range(1, len(text) + 1))


def repeats(node: Regex) -> list[Repeat]:
    found = []
    if isinstance(node, Repeat):
        if node.high is None or node.high > 1:
            found.append(node)
        found.extend(repeats(node.body))
    elif isinstance(node, Seq):
        for item in node.items:
            found.extend(repeats(item))
    elif isinstance(node, Alt):
        for branch in node.branches:
            found.extend(repeats(branch))
    return found


def strings(alphabet: str, longest: int) -> list[str]:
    return [
        "".join(letters)
        for length in range(1, longest + 1)
        for letters in itertools.product(alphabet, repeat=length)
    ]


# --- firecrawl's host-name pattern ------------------------------------------------------


def test_the_host_name_pattern_is_accepted_and_samples_match_both_readings() -> None:
    pattern = compile_pattern(HOST)
    python = re.compile(HOST)
    reference = Draft202012Validator({"type": "string", "pattern": HOST})
    rng = Random(7)
    for mode in (LOW, HIGH, MIXED, MIXED, MIXED):
        text = pattern.sample(rng, 1, 253, mode)
        assert text is not None
        assert python.search(text) and pattern.matches(text) and reference.is_valid(text)
        assert "." in text
    for kind in ("char-outside-class", "part-dropped", "anchor-broken", "end-broken"):
        miss = pattern.near_miss(rng, 1, 253, kind)
        if miss is not None:
            assert not python.search(miss) and not reference.is_valid(miss)


@pytest.mark.slow
def test_the_host_name_repetition_reads_every_string_one_way() -> None:
    tree = parse(HOST.replace("61", "2")).tree  # the same shape, small enough to count
    outer = repeats(tree)[0]
    assert not ambiguous_repeat(outer)
    for text in strings("a-.", 7):
        assert parses(outer.body, text) <= 1, text


# --- refused and accepted, by the automaton ---------------------------------------------

EXPONENTIAL = [
    "(a+)+",
    "(a|a)*",
    "^(-a{0,3}a{0,3})+$",  # accepted by the rule this replaced: 4**n on "-aaa" * n + "!"
    "^((a?)?b)+$",  # two ways to read nothing before each b
    "^(-[a-z]*[a-z]*)+$",
    "^([a-z0-9]+\\.?)+$",
    "^(ab|a)(b?b?c)+$",
]


@pytest.mark.parametrize("source", EXPONENTIAL)
def test_repetitions_that_read_a_string_two_ways_are_refused(source: str) -> None:
    with pytest.raises(PatternError) as error:
        compile_pattern(source)
    assert error.value.code == UNSUPPORTED
    assert "backtrack" in error.value.reason


@pytest.mark.parametrize(
    "source",
    [
        HOST,
        "^([a-z]+\\.)+[a-z]+$",  # every iteration ends with a dot nothing else in it reads
        "^(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)+[a-z]{2,}$",
        "^([0-9a-f]{2}:)+[0-9a-f]{2}$",
        "^(a{2})+$",
        "^(\\d{1,3}\\.){3}\\d{1,3}$",
    ],
)
def test_repetitions_that_read_each_string_one_way_are_accepted(source: str) -> None:
    assert compile_pattern(source).source == source


REGEX_PARTS = st.recursive(
    st.sampled_from(["a", "b", "-", "[ab]", "[a-]", "."]),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda pair: f"(?:{pair[0]}|{pair[1]})"),
        st.tuples(inner, st.sampled_from(["?", "*", "+", "{2}", "{0,2}", "{1,3}"])).map(
            lambda pair: f"(?:{pair[0]}){pair[1]}"
        ),
    ),
    max_leaves=5,
)


@pytest.mark.slow
@settings(max_examples=examples(300))
@given(REGEX_PARTS)
def test_a_repetition_judged_unambiguous_never_reads_a_string_two_ways(source: str) -> None:
    """Soundness against brute force: every string up to 5 characters over the pattern's
    alphabet has at most one parse through a repetition the automaton accepts."""
    tree = parse(source).tree
    for repeat in repeats(tree):
        try:
            ambiguous = ambiguous_repeat(repeat)
        except PatternError:
            continue  # too large to decide: refused, which is safe
        if not ambiguous:
            for text in strings("ab-", 5):
                assert parses(repeat.body, text) <= 1, (source, text)


@pytest.mark.parametrize(
    ("source", "witness"),
    [("(?:a|a)+", "a"), ("(?:a+)+", "aa"), ("(?:-a?a?)+", "-a"), ("(?:[ab]|b)+", "b")],
)
def test_a_repetition_judged_ambiguous_has_a_string_read_two_ways(
    source: str, witness: str
) -> None:
    """The check is not merely refusing: each refusal here has a witness brute force finds."""
    [repeat] = repeats(parse(source).tree)[:1]
    assert ambiguous_repeat(repeat)
    assert parses(repeat.body, witness) >= 2


ADVERSARIAL = [
    "a" * 5000 + "!",
    "a." * 2500 + "!",
    "a-" * 2500 + "!",
    ("a" * 61 + ".") * 80 + "-",
    "a" + "-" * 4998 + "!",
]


@pytest.mark.parametrize(
    "source", [HOST, "^([a-z]+\\.)+[a-z]+$", "^(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)+[a-z]{2,}$"]
)
def test_accepted_repetitions_finish_on_adversarial_strings(source: str) -> None:
    """5,000-character strings built to fail late, under both readings; an exponential
    pattern shows as this test not finishing (the timing is in bench/bench_regex.py)."""
    pattern = compile_pattern(source)
    for text in ADVERSARIAL:
        assert pattern.agreed_miss(text) or pattern.agreed_match(text)
