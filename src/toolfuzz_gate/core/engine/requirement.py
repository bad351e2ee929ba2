"""What a broken keyword required, and what was sent instead, in a reviewer's words (pure).

A near-miss breaks one keyword at one path; the finding it makes should read as the
reviewer would say it: `accepted the string "0" where an integer is required`, not only
`breaks type at /n`. `requirement` words what the keyword asked of the value at its node,
`sent` words a value, and `accepted_reason` puts the two together.
"""

from __future__ import annotations

import json
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.node import Node

SHOWN = 40
"""Characters of a value shown in a reason."""
_ARTICLES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean",
    "null": "null",
    "object": "an object",
    "array": "an array",
}
ABSENT = object()
"""What `sent` is given for a member the call left out."""


def _types(argument: Any) -> str:
    names = sorted(str(name) for name in argument) if argument else []
    if "integer" in names and "number" in names:
        names.remove("integer")
    return " or ".join(_ARTICLES.get(name, name) for name in names) or "another type"


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "\u2026"


def requirement(keyword: str, variant: str, node: Node) -> str:
    """What `keyword` requires of the value at `node` ("" when it has no plain words)."""
    argument = node.argument(keyword)
    if keyword == "type":
        return _types(argument)
    if keyword in ("enum", "const"):
        members = list(argument) if isinstance(argument, list | tuple) else [argument]
        shown = ", ".join(_shown(member) for member in members[:5])
        more = ", \u2026" if len(members) > 5 else ""
        return f"one of {shown}{more}" if keyword == "enum" else f"exactly {shown}"
    bounds = {
        "minimum": "a number of at least {}",
        "maximum": "a number of at most {}",
        "exclusiveMinimum": "a number above {}",
        "exclusiveMaximum": "a number below {}",
        "minLength": "at least {} characters",
        "maxLength": "at most {} characters",
        "minItems": "at least {} items",
        "maxItems": "at most {} items",
        "minProperties": "at least {} members",
        "maxProperties": "at most {} members",
        "multipleOf": "a multiple of {}",
    }
    if keyword in bounds and isinstance(argument, int | float):
        return bounds[keyword].format(_shown(argument))
    if keyword == "required":
        return f"the member {_shown(variant.partition(':')[2])}"
    if keyword == "additionalProperties":
        return "no members but those the schema names"
    if keyword == "format":
        return f"a valid {variant.partition(':')[0]}"
    if keyword == "pattern" and isinstance(argument, str):
        return f"a match of the pattern {_shown(argument)}"
    if keyword == "uniqueItems":
        return "distinct items"
    return ""


def value_at(document: JSON, path: str) -> JSON | object:
    """The value at an instance path (array items by index), or `ABSENT`."""
    found: Any = document
    for token in jp.split(path):
        if isinstance(found, dict) and token in found:
            found = found[token]
        elif isinstance(found, list) and token.isdigit() and int(token) < len(found):
            found = found[int(token)]
        else:
            return ABSENT
    value: JSON = found
    return value


def sent(value: JSON | object) -> str:
    """A value as a reason names it: `the string "0"`, `the number 4.5`, `null`."""
    if value is ABSENT:
        return "nothing"
    if isinstance(value, bool) or value is None:
        return _shown(value)
    if isinstance(value, str):
        return f"the string {_shown(value)}"
    if isinstance(value, int | float):
        return f"the number {_shown(value)}"
    if isinstance(value, list):
        return f"an array of {len(value)} item(s)"
    return "an object"


def accepted_reason(keyword: str, required: str, path: str, value: JSON | object) -> str:
    """The reviewer's sentence for an accepted near-miss (the keyword's, without words for
    what it required)."""
    where = path or "/"
    if keyword == "required" and required:
        return f"accepted a call without {required}, which is required (at {where})"
    if keyword == "additionalProperties":
        return f"accepted a member the schema does not name (at {where})"
    if keyword == "type" and required:
        return f"accepted {sent(value)} where {required} is required (at {where})"
    if required:
        return f"accepted {sent(value)} where the schema requires {required} (at {where})"
    return f"accepted a call that breaks {keyword or 'the schema'} at {where}"
