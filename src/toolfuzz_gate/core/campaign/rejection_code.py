"""Rejection codes read from a rejection's text, and a policy's pattern over them (pure).

A handler that rejects with free text and no code (an MCP tool's `isError` result without
`structuredContent.code`) gets a code by `derived_code`, a rule that prefers the generic
`tool-error` to a guess:

1. strip the wrappers SDKs and runtimes put around a tool's own words, repeatedly: the
   Python SDK's `Error executing tool NAME: `, the TypeScript SDK's `MCP error -32602: `
   (the number is kept) and a JavaScript class prefix (`Error: `, `TypeError: `) when more
   text follows it;
2. the rest is the code when it is one short token (`note-not-found`, `quota`); else its
   leading token when that is code-shaped and followed by a colon (`ENOENT: no such file`,
   `note-not-found: no note 7`): upper case letters, digits and underscores (`NOT_FOUND`,
   `E_ACCESS`, not a log level such as `ERROR`), or words joined by `-`, `_` or `.`
   (`not_found`, `auth.denied`); a plain word (`Invalid`, `Error`) is never a code, nor is
   the call's input echoed back (one of its member names, text inside one of its string
   values): a tool that says `repo_path: no such directory` names a field, and one that
   says `Unknown-Kind: no such kind` may be quoting what it was sent;
3. else `invalid-params` when the TypeScript SDK said -32602, else `tool-error`.

A policy's `rejection_code` (a regular expression with a group named `code`) replaces a
code the adapter made up (`Outcome.code_derived`), never one the handler declared.

A policy's `rejection_answer` (a regular expression) reads a server that answers its
rejections as successes (`isError: false` with "Database error: no such table"): an
accepted call whose answer (`Outcome.said`) it matches is a rejection, coded by its `code`
group when it has one and matches, else as the rule above reads the answer.
"""

from __future__ import annotations

import re

from toolfuzz_gate.core.campaign.outcome import (
    Handler,
    Outcome,
    OutcomeKind,
    PassesThrough,
    Replaying,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

MAX_CODE_LENGTH = 64
"""The longest code read from text, by the rule or by a policy's pattern."""
MAX_PATTERN_LENGTH = 1000
GROUP = "code"
GENERIC = "tool-error"
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}")
"""A whole text that is one short token is a code (`quota`, `note-not-found`)."""
NUMBERED = {-32602: "invalid-params"}
"""JSON-RPC numbers in the TypeScript SDK's `McpError` text that have their own code (what
the JSON-RPC error itself is coded)."""
MAX_TEXT = 4096
"""Characters of a text the rule reads: wrappers and codes are at its start."""

_PYTHON_SDK = re.compile(r"Error executing tool [^\s:]{1,128}: ")
_TYPESCRIPT_SDK = re.compile(r"MCP error (-?[0-9]{1,6}): ")
_JS_CLASS = re.compile(r"(?:[A-Z][A-Za-z0-9]{0,40})?Error: +(?=\S)")
_LEADING = re.compile(r"([^\s:]{2,64}):(?:\s|$)")
_UPPER = re.compile(r"[A-Z][A-Z0-9_]+")
_JOINED = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z][A-Za-z0-9]*)+")
_NOT_CODES = frozenset(
    {"ERR", "ERROR", "EXCEPTION", "FATAL", "FAILED", "FAILURE", "WARN", "WARNING", "INFO"}
)
_MAX_WRAPPERS = 8


def derived_code(text: str, arguments: JSON = None) -> str:
    """The code `text`, the answer to a call with `arguments`, names by the rule above;
    `tool-error` when it names none."""
    rest, number = _unwrap(text[:MAX_TEXT])
    candidates = [rest] if TOKEN.fullmatch(rest) else []
    leading = _LEADING.match(rest)
    if leading is not None and _code_shaped(leading.group(1)):
        candidates.append(leading.group(1))
    for code in candidates:
        if not _echoes(code, arguments):
            return code
    return NUMBERED.get(number, GENERIC)


def unwrapped(text: str) -> str:
    """`text` without the wrappers step 1 strips: the tool's own words."""
    return _unwrap(text)[0]


def _unwrap(text: str) -> tuple[str, int]:
    """The text inside the wrappers, and the TypeScript SDK's JSON-RPC number (0: none)."""
    rest, number = text.strip(), 0
    for _ in range(_MAX_WRAPPERS):
        if python := _PYTHON_SDK.match(rest):
            rest = rest[python.end() :]
        elif typescript := _TYPESCRIPT_SDK.match(rest):
            rest, number = rest[typescript.end() :], int(typescript.group(1))
        elif js := _JS_CLASS.match(rest):
            rest = rest[js.end() :]
        else:
            break
        rest = rest.strip()
    return rest, number


def _echoes(code: str, value: JSON) -> bool:
    """Is `code` a member name of `value`, inside one of its strings, or one of its numbers?"""
    if isinstance(value, str):
        return code in value
    if isinstance(value, dict):
        members: JSONObject = value
        return any(code == name or _echoes(code, item) for name, item in members.items())
    if isinstance(value, list):
        return any(_echoes(code, item) for item in value)
    return value is not None and not isinstance(value, bool) and code == str(value)


def _code_shaped(token: str) -> bool:
    if _UPPER.fullmatch(token):
        return token not in _NOT_CODES
    return _JOINED.fullmatch(token) is not None


def regex_problem(source: str) -> str | None:
    """Why `source` is not a Python regular expression (None when it is); for `error_codes`."""
    try:
        re.compile(source)
    except re.error as error:
        return f"not a regular expression: {error}"
    return None


def pattern_problem(source: str) -> str | None:
    """Why `source` cannot be a `rejection_code` pattern (None when it can)."""
    if len(source) > MAX_PATTERN_LENGTH:
        return f"longer than {MAX_PATTERN_LENGTH} characters"
    problem = regex_problem(source)
    if problem is not None:
        return problem
    if GROUP not in re.compile(source).groupindex:
        return f"has no group named {GROUP!r}: write the code's part as (?P<{GROUP}>...)"
    return None


def recode(outcome: Outcome, pattern: re.Pattern[str] | None) -> Outcome:
    """`outcome` with the code `pattern` finds in its message, when the adapter made its
    code up and the pattern matches with a `code` group of 1..64 characters."""
    if pattern is None or outcome.kind is not OutcomeKind.REJECTED or not outcome.code_derived:
        return outcome
    found = pattern.search(outcome.message)
    code = found.group(GROUP) if found is not None else None
    if not code or len(code) > MAX_CODE_LENGTH:
        return outcome
    return outcome._replace(error_code=code, code_derived=False)


def answer_problem(source: str) -> str | None:
    """Why `source` cannot be a `rejection_answer` pattern (None when it can)."""
    if len(source) > MAX_PATTERN_LENGTH:
        return f"longer than {MAX_PATTERN_LENGTH} characters"
    return regex_problem(source)


def read_answer(
    outcome: Outcome, pattern: re.Pattern[str] | None, arguments: JSON = None
) -> Outcome:
    """`outcome` as a rejection when it is an accepted call whose answer `pattern` matches."""
    if pattern is None or outcome.kind is not OutcomeKind.ACCEPTED or not outcome.said:
        return outcome
    found = pattern.search(outcome.said)
    if found is None:
        return outcome
    named = found.groupdict().get(GROUP)
    declared = bool(named) and len(named or "") <= MAX_CODE_LENGTH
    code = named if declared and named else derived_code(outcome.said, arguments)
    return Outcome(
        kind=OutcomeKind.REJECTED,
        error_code=code,
        message=outcome.said,
        effects_before=outcome.effects_before,
        effects_after=outcome.effects_after,
        effects_observed=outcome.effects_observed,
        code_derived=not declared,
    )


def recoding(
    handler: Handler,
    pattern: re.Pattern[str] | None,
    answer: re.Pattern[str] | None = None,
) -> Handler:
    """`handler` with `read_answer` (by `answer`) then `recode` (by `pattern`) applied to
    every outcome (itself when there is neither); a `Replaying` handler stays one."""
    if pattern is None and answer is None:
        return handler
    if isinstance(handler, Replaying):
        return _RecodingReplaying(handler, pattern, answer)
    return _Recoding(handler, pattern, answer)


class _Recoding:
    def __init__(
        self, inner: Handler, pattern: re.Pattern[str] | None, answer: re.Pattern[str] | None
    ) -> None:
        self.inner, self.pattern, self.answer = inner, pattern, answer

    def call(self, arguments: JSONObject) -> Outcome:
        outcome = read_answer(self.inner.call(arguments), self.answer, arguments)
        return recode(outcome, self.pattern)


class _RecodingReplaying(PassesThrough, _Recoding):
    """A recoding handler over one that replays (`Replaying` and the rest passed on)."""
