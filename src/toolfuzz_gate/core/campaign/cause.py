"""A failure's cause in stable words: what tells two failures of one class apart (pure).

The cause is what a maintainer would call "the same bug": the exception type, the errno
name, the rejection code, the server's error code; never the whole message, whose values
(lengths, paths, the input echoed back) vary from one input to the next. Adapters that
know the cause structurally put it in `Outcome.cause`; otherwise it is read from the
message: an errno name (`ENAMETOOLONG`) first, then the last exception class named (a
stderr traceback ends with the one raised), then a signal name, then the class a
JavaScript runtime's message stands for without naming it (`RUNTIME_ERRORS`: "Cannot read
properties of undefined (reading 'map')" and "x.filter is not a function" are one
`TypeError`, whichever property), and failing all of those the message's first few words,
without numbers, quoted text or the input's values (`null`, `true` and `false` too). A
generic rejection code's message is read without the SDKs' wrappers
(`core.campaign.rejection_code.unwrapped`): "Error executing tool NAME:" is every
rejection's first words.
"""

from __future__ import annotations

import json
import re

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.rejection_code import unwrapped
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

GENERIC_CODES = frozenset({"tool-error", "invalid-params"})
"""Rejection codes adapters fall back on when the handler gave none: the message decides."""
ERRNO = re.compile(r"\bE[A-Z0-9]{2,}\b")
EXCEPTION = re.compile(r"\b(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b")
SIGNAL = re.compile(r"\bSIG[A-Z0-9]+\b")
BARE = frozenset({"Error", "Exception"})
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
WORD = re.compile(r"[A-Za-z][A-Za-z_-]*")
MAX_WORDS = 5
RUNTIME_ERRORS = (
    (
        re.compile(
            r"\bCannot read propert(?:y|ies) of (?:null|undefined)\b|\bis not a function\b"
            r"|\bis not iterable\b|\bCannot convert undefined or null to object\b"
            r"|\bCannot destructure\b|\bCannot set propert(?:y|ies) of\b"
        ),
        "TypeError",
    ),
    (re.compile(r"\bis not defined\b"), "ReferenceError"),
    (re.compile(r"\bMaximum call stack size exceeded\b|\bInvalid array length\b"), "RangeError"),
)
"""What V8 (Node's runtime) says when a tool's code meets a value it did not expect, by the
error class its message leaves unnamed once an SDK passes on only `error.message`."""


def cause_of(outcome: Outcome, arguments: JSON) -> str:
    """The cause of a rejection or crash ("" for other outcomes)."""
    if outcome.kind is OutcomeKind.REJECTED:
        code = outcome.error_code or ""
        if code not in GENERIC_CODES and not code.startswith("http-"):
            return code
        detail = signature(unwrapped(outcome.message), arguments)
        return f"{code} {detail}" if detail else code
    if outcome.kind is OutcomeKind.CRASH:
        return outcome.cause or signature(outcome.message, arguments)
    return ""


def named(message: str) -> str:
    """The errno, exception class or signal a message names ("" when none)."""
    for pattern in (ERRNO, EXCEPTION, SIGNAL):
        found = [token for token in pattern.findall(message) if token not in BARE]
        if found:
            return str(found[-1])
    return ""


def signature(message: str, arguments: JSON = None) -> str:
    """`named(message)`, else the runtime error it stands for, else its first words,
    lower-cased, without the input's own words."""
    name = named(message) or next((n for p, n in RUNTIME_ERRORS if p.search(message)), "")
    if name:
        return name
    echoed = set(_input_words(arguments)) if arguments is not None else set()
    words = [w.lower() for w in WORD.findall(QUOTED.sub(" ", message)) if w not in echoed]
    return " ".join(words[:MAX_WORDS])


def _input_words(value: JSON) -> list[str]:
    """The words of the input's string values (member names stay: they are the schema's)."""
    if isinstance(value, str):
        return WORD.findall(value)
    if value is None or isinstance(value, bool):
        return [json.dumps(value)]  # as a message spells it: "Entity with name null"
    if isinstance(value, dict):
        members: JSONObject = value
        return [w for member in members.values() for w in _input_words(member)]
    if isinstance(value, list):
        return [w for item in value for w in _input_words(item)]
    return []
