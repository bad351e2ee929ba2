"""`core.campaign.cause`: the stable words that tell two failures of one class apart."""

from __future__ import annotations

import pytest

from toolfuzz_gate.core.campaign.cause import cause_of, named, signature
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.jsonutil.canonical import JSONObject


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Error: ENAMETOOLONG: name too long, open '/tmp/aaaa'", "ENAMETOOLONG"),
        ("Error: EISDIR: illegal operation on a directory, read", "EISDIR"),
        ("TypeError: Cannot read properties of undefined (reading 'length')", "TypeError"),
        (
            "the process exited during the call (exit code 1); stderr: Traceback (most recent "
            "call last): File 'x.py', line 3, in f KeyError: 'a' During handling of the above "
            "exception, another exception occurred: ValueError: bad",
            "ValueError",
        ),
        ("the process exited during the call (killed by SIGSEGV)", "SIGSEGV"),
        ("json.decoder.JSONDecodeError: Expecting value", "json.decoder.JSONDecodeError"),
        ("Error: something went wrong", ""),
        ("pattern too long: 300 > 256", ""),
    ],
)
def test_named_picks_the_errno_then_the_last_exception_then_a_signal(
    message: str, expected: str
) -> None:
    assert named(message) == expected


def test_signature_falls_back_on_words_without_numbers_quotes_or_the_input() -> None:
    assert signature("pattern too long: 300 > 256") == "pattern too long"
    assert signature("pattern too long: 12 > 10") == "pattern too long"
    arguments: JSONObject = {"user": "bob", "tags": ["x"]}
    assert signature("unknown user bob in 'home'", arguments) == "unknown user in"
    assert signature("unknown user a", {"user": "a"}) == "unknown user"
    assert signature("Invalid regex: unterminated group") != signature("pattern too long: 9 > 8")


@pytest.mark.parametrize(
    "message",
    [
        "Cannot read properties of null (reading 'map')",
        "Cannot read properties of undefined (reading 'filter')",
        "entities.map is not a function",
        "o.contents.filter is not a function",
        "relations is not iterable",
        "Cannot convert undefined or null to object",
    ],
)
def test_a_javascript_runtime_s_unnamed_type_error_is_one_cause(message: str) -> None:
    """An SDK passes on only `error.message`: V8's words stand for the class, whichever
    property or variable they name (real servers spelled each of these)."""
    assert signature(message) == "TypeError"


def test_the_input_s_null_and_booleans_are_not_words_of_the_cause() -> None:
    found = {signature(f"Entity with name {w} not found", {"name": v}) for w, v in
             (("null", None), ("true", True), ("Ann", "Ann"))}  # fmt: skip
    assert found == {"entity with name not found"}
    assert signature("Entity with name null not found") == "entity with name null not"  # no input


def test_a_specific_rejection_code_is_the_cause_and_a_generic_one_reads_the_message() -> None:
    specific = Outcome(OutcomeKind.REJECTED, error_code="policy-budget", message="too big: 9")
    assert cause_of(specific, {}) == "policy-budget"
    long_one = Outcome(OutcomeKind.REJECTED, error_code="tool-error", message="pattern too long")
    other = Outcome(OutcomeKind.REJECTED, error_code="tool-error", message="Invalid regex: (")
    assert cause_of(long_one, {}) == "tool-error pattern too long"
    assert cause_of(long_one, {}) != cause_of(other, {})
    assert cause_of(Outcome(OutcomeKind.REJECTED, error_code="http-400"), {}) == "http-400"


def test_a_crash_takes_the_adapters_cause_else_the_message() -> None:
    known = Outcome(OutcomeKind.CRASH, message="RuntimeError: wraps KeyError", cause="RuntimeError")
    assert cause_of(known, {}) == "RuntimeError"
    assert cause_of(Outcome(OutcomeKind.CRASH, message="... IndexError: list index"), {}) == (
        "IndexError"
    )


@pytest.mark.parametrize("kind", [OutcomeKind.ACCEPTED, OutcomeKind.TIMEOUT])
def test_accepted_calls_and_timeouts_have_no_cause(kind: OutcomeKind) -> None:
    assert cause_of(Outcome(kind, message="no answer within 2 s"), {}) == ""
