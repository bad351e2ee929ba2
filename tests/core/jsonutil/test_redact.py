"""`core.jsonutil.redact`: recorded values hold no credentials and little bulk, and say when they
were
cut short."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.profiles import examples
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact, canonical_document
from toolfuzz_gate.core.jsonutil.redact import bounded_message, is_complete, mask_text, present

# Made-up credentials in each provider's published shape.
TOKENS = {
    "github-classic": "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b",
    "github-oauth": "gho_" + "Zq8Wn2Lk5Jh7Gf3Ds1Ap9Oi4Uy6Tr0Ew8Qm2Xv",
    "github-fine-grained": "github_pat_11ABCDEFG0aBcDeFgHiJkLmN_"
    + "oPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdEF",
    "openai": "sk-proj-" + "T3BlbkFJ4xq9Zr2Lm8Np5Vs7Wk1Yd6Hc0Gb3Qe",
    "aws-access-key": "AKIA" + "QWERTY7UIOP4ASDF",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "bearer": "Bearer " + "mF_9.B5f-4.1JqM8fT2kLw9xZ",
    "bearer-lowercase": "bearer " + "vF3kL9mQ2wX8zR5tY1uH7jN4",
    "slack": "xoxb-" + "123456789012-abcdefGHIJKL",
}
# The part of each token that must never reach a receipt (the prefixes are not secret).
SECRET_PARTS = {name: token[-16:] for name, token in TOKENS.items()}


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_tokens_are_masked_in_context(name: str) -> None:
    text = f"request failed: token={TOKENS[name]} (retry later)"
    shown = present(text)
    assert isinstance(shown, str)
    assert SECRET_PARTS[name] not in shown
    assert "***" in shown
    assert shown.startswith("request failed: token=")
    assert shown.endswith(" (retry later)")


@pytest.mark.parametrize("name", sorted(TOKENS))
def test_tokens_are_masked_anywhere_in_a_value(name: str) -> None:
    token = TOKENS[name]
    value: dict[str, Any] = {
        "headers": {"authorization": token},
        "items": ["fine", [token]],
        token: "a credential as a key",
        "number": 7,
    }
    shown = doc(present(value))
    text = canonical_document(shown).decode("utf-8")
    assert SECRET_PARTS[name] not in text
    assert isinstance(shown, dict)
    assert shown["number"] == 7
    assert shown["items"][0] == "fine"


def test_ordinary_text_is_left_alone() -> None:
    for text in ("hello world", "sk-short", "AKIA-not-a-key", "bearer of bad news", "ghp_abc"):
        assert present(text) == text
        assert mask_text(text) == text


def test_a_long_string_is_kept_as_length_digest_and_head() -> None:
    text = "é" + "x" * 299
    shown = present(text)
    assert shown == {
        "$elided": {
            "length": 300,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "head": text[:32],
        }
    }
    assert is_complete(shown) is False


def test_the_display_limit_is_inclusive() -> None:
    assert present("y" * 256) == "y" * 256
    shown = doc(present("y" * 257))
    assert isinstance(shown, dict) and shown["$elided"]["length"] == 257


def test_the_head_of_an_elided_string_is_masked_too() -> None:
    token = TOKENS["github-classic"]
    shown = doc(present(token + " " + "z" * 400))
    assert isinstance(shown, dict)
    assert SECRET_PARTS["github-classic"] not in canonical_compact(shown)
    assert not token.startswith(shown["$elided"]["head"][:8])


def test_is_complete_finds_elision_at_any_depth() -> None:
    long = "q" * 1000
    assert is_complete(present({"a": ["short", 1, None, {"b": True}]})) is True
    assert is_complete(present(long)) is False
    assert is_complete(present([1, [2, {"c": long}]])) is False
    assert is_complete(present({"a": {"b": [long]}})) is False


def test_lone_surrogates_become_replacement_characters() -> None:
    shown = present({"\ud800key": ["a\udfffb"]})
    assert shown == {"\ufffdkey": ["a\ufffdb"]}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=400),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(max_size=12).filter(lambda k: k != "$elided"), children, max_size=4
        )
    ),
    max_leaves=10,
)


@settings(max_examples=examples(100))
@given(json_values)
def test_presented_values_are_utf8_small_and_stable(value: Any) -> None:
    shown = present(value)
    canonical_document(shown).decode("utf-8")  # strict: no lone surrogates
    assert present(shown) == shown
    assert _longest_string(shown) <= 256
    assert is_complete(shown) == (_longest_string(value) <= 256)


@settings(max_examples=examples(100))
@given(
    st.recursive(
        st.text(alphabet="abcdefgh ", max_size=50) | st.integers(),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(st.text(alphabet="abc", max_size=5), children, max_size=3)
        ),
        max_leaves=8,
    )
)
def test_plain_values_are_recorded_unchanged(value: Any) -> None:
    assert present(value) == value
    assert is_complete(present(value))


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max([0, *(len(k) for k in value), *(_longest_string(v) for v in value.values())])
    if isinstance(value, list):
        return max([0, *(_longest_string(v) for v in value)])
    return 0


def test_bounded_message_masks_folds_addresses_and_caps() -> None:
    message = f"KeyError at 0x7f3a2b1c9d40 with {TOKENS['openai']}: " + "w" * 500
    shown = bounded_message(message)
    assert SECRET_PARTS["openai"] not in shown
    assert "0x7f3a2b1c9d40" not in shown
    assert len(shown) == 300 and shown.endswith("…")
