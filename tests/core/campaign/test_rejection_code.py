"""The rule that codes a rejection from its text, and a policy's pattern over it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind, Replaying
from toolfuzz_gate.core.campaign.rejection_code import (
    MAX_CODE_LENGTH,
    derived_code,
    pattern_problem,
    recode,
    recoding,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # the Python SDK's wrapper around a tool's own words
        ("Error executing tool X: note-not-found", "note-not-found"),
        ("Error executing tool get_note: note-not-found: no note 7", "note-not-found"),
        (
            "Error executing tool convert_time: Invalid timezone: 'No time zone found with key a'",
            "tool-error",
        ),
        ("Error executing tool git_add: embedded null byte", "tool-error"),
        ("Error executing tool fetch: ENOENT: no such file", "ENOENT"),
        # the TypeScript SDK's McpError text: -32602 is what a JSON-RPC -32602 is coded
        (
            "MCP error -32602: Input validation error: Invalid arguments for tool add: [...]",
            "invalid-params",
        ),
        ("MCP error -32601: Tool nope not found", "tool-error"),
        ("MCP error -32602: NOT_FOUND: no such entity", "NOT_FOUND"),
        ("MCP error -32000: quota", "quota"),
        # Node servers answering String(err)
        ("Error: Invalid URL: http//x", "tool-error"),
        ("TypeError: Cannot read properties of undefined (reading 'x')", "tool-error"),
        ("Error: ENOENT: no such file or directory, stat '/x'", "ENOENT"),
        ("ENOENT: no such file or directory, stat '/x'", "ENOENT"),
        ("EEXIST: file already exists, mkdir '/tmp/a'", "EEXIST"),
        ("E_ACCESS: outside the root", "E_ACCESS"),
        ("auth.denied: token expired", "auth.denied"),
        ("Error: note-not-found", "note-not-found"),
        # plain sentences
        ("Entity with name 0 not found", "tool-error"),
        ("Access denied - path outside allowed directories: /etc", "tool-error"),
        ("Sorry, that did not work out at all.", "tool-error"),
        # one short token is a code, as before
        ("quota", "quota"),
        ("  policy-quota\n", "policy-quota"),
        # nothing to read
        ("", "tool-error"),
        ("   ", "tool-error"),
    ],
)
def test_a_rejections_text_names_its_code(text: str, code: str) -> None:
    assert derived_code(text) == code


@pytest.mark.parametrize(
    "text",
    [
        "Invalid: the value is wrong",  # a plain word is no code
        "Error: something broke",
        "ERROR: disk full",  # a log level, not a code
        "FATAL: cannot continue",
        "Not Found: /x",  # two words
        "x: too short",  # one letter
        "/tmp/a: no such file",  # a path
        "note-not-found no colon after it",
        "note-not-found:glued",  # a colon inside a token (a URL scheme, a time)
        "http://example.com: refused",
        "12:30: too late",
        "Error:",  # nothing follows the class: the whole text is the token, not stripped
        f"{'A' * (MAX_CODE_LENGTH + 1)}: too long to be a code",
        "Error executing tool x",  # the SDK's crash answer (the adapter makes it a crash)
        "1 validation error for render_posterArguments\nwidth\n  Input should be <= 400",
    ],
)
def test_what_is_not_a_code_is_a_tool_error_or_itself_as_one_token(text: str) -> None:
    code = derived_code(text)
    assert code == "tool-error" or code == text.strip()
    assert text.strip() != "Error:" or code == "Error:"


@given(st.text(max_size=300))
def test_a_derived_code_is_short_and_one_token(text: str) -> None:
    code = derived_code(text)
    assert 0 < len(code) <= MAX_CODE_LENGTH
    assert not any(character.isspace() for character in code)


def test_wrappers_are_stripped_however_deep() -> None:
    text = "Error executing tool a: MCP error -32602: Error: EACCES: permission denied"
    assert derived_code(text) == "EACCES"
    assert derived_code("Error executing tool a: " * 20 + "quota") == "tool-error"


@pytest.mark.parametrize(
    ("text", "arguments", "code"),
    [
        ("Error executing tool open: Ab-cd: no such kind", {"kind": "Ab-cd"}, "tool-error"),
        (
            "Error executing tool open: my-file.txt: not found",
            {"path": "/x/my-file.txt"},
            "tool-error",
        ),
        (
            "Error executing tool open: repo_path: no such directory",
            {"repo_path": "/x"},
            "tool-error",
        ),
        ("Error executing tool get: 7", {"id": 7}, "tool-error"),
        ("Error executing tool tag: ab-cd", {"tags": ["x", "ab-cd"]}, "tool-error"),
        ("MCP error -32602: page_size: too large", {"page_size": 9}, "invalid-params"),
        # what the input does not say is still a code
        ("Error executing tool get: note-not-found: no note 7", {"id": 7}, "note-not-found"),
        ("ENOENT: no such file", {"path": "/x/missing"}, "ENOENT"),
    ],
)
def test_the_input_echoed_back_is_not_a_code(text: str, arguments: JSONObject, code: str) -> None:
    assert derived_code(text, arguments) == code


# --- a policy's pattern ---------------------------------------------------------------------

PATTERN = re.compile(r"Entity with name (?P<code>\w+) not found")


def rejected(code: str, message: str, *, derived: bool = True) -> Outcome:
    return Outcome(OutcomeKind.REJECTED, error_code=code, message=message, code_derived=derived)


def test_a_pattern_replaces_a_derived_code_where_it_matches() -> None:
    outcome = recode(rejected("tool-error", "Entity with name 0 not found"), PATTERN)
    assert (outcome.error_code, outcome.code_derived) == ("0", False)
    missing = re.compile(r"(?P<code>[a-z]+(?:-[a-z]+)+): ")
    said = "Error executing tool get: note-not-found: no note 7"
    assert recode(rejected("note-not-found", said), missing).error_code == "note-not-found"


def test_a_pattern_leaves_declared_codes_and_other_outcomes_alone() -> None:
    declared = rejected("policy-quota", "Entity with name 0 not found", derived=False)
    assert recode(declared, PATTERN) == declared
    crash = Outcome(OutcomeKind.CRASH, message="Entity with name 0 not found", code_derived=True)
    assert recode(crash, PATTERN) == crash
    unmatched = rejected("tool-error", "something else")
    assert recode(unmatched, PATTERN) == unmatched
    assert recode(unmatched, None) == unmatched


def test_an_empty_or_overlong_group_leaves_the_code() -> None:
    optional = re.compile(r"Entity with name (?P<code>\d*)x? not found")
    outcome = rejected("tool-error", "Entity with name x not found")
    assert recode(outcome, optional) == outcome
    long = rejected("tool-error", "Entity with name " + "a" * 65 + " not found")
    assert recode(long, PATTERN) == long


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (r"(?P<code>\w+)", None),
        (r"^Error executing tool \S+: (?P<code>[A-Z_]+):", None),
        (r"(\w+)", "has no group named 'code'"),
        (r"(?P<kode>\w+)", "has no group named 'code'"),
        (r"(?P<code>\w+", "not a regular expression"),
        ("(?P<code>a)" + "b" * 1000, "longer than 1000 characters"),
    ],
)
def test_a_pattern_must_compile_and_name_its_code_group(source: str, problem: str | None) -> None:
    found = pattern_problem(source)
    assert found == problem if problem is None else found is not None and problem in found


class _Plain:
    def call(self, arguments: JSONObject) -> Outcome:
        return rejected("tool-error", f"Entity with name {arguments['n']} not found")


class _Restartable(_Plain):
    def __init__(self) -> None:
        self.restarts, self.factor = 0, 1.0

    def restart(self) -> None:
        self.restarts += 1

    def scale_timeout(self, factor: float) -> None:
        self.factor = factor


def test_recoding_wraps_a_handler_only_when_there_is_a_pattern() -> None:
    plain = _Plain()
    assert recoding(plain, None) is plain
    wrapped = recoding(plain, PATTERN)
    assert wrapped.call({"n": 7}).error_code == "7"
    assert not isinstance(wrapped, Replaying)


def test_recoding_keeps_a_replaying_handler_replaying() -> None:
    inner = _Restartable()
    wrapped = recoding(inner, PATTERN)
    assert isinstance(wrapped, Replaying)
    wrapped.restart()
    wrapped.scale_timeout(3.0)
    assert (inner.restarts, inner.factor) == (1, 3.0)
    assert wrapped.call({"n": "x"}).error_code == "x"
