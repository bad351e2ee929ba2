"""Write a parsed ECMA-262 pattern as a Python `re` pattern with the same meaning (pure).

Every character set is spelled out as code-point ranges, so `\\d`, `\\w`, `\\s` and
`.` keep their ECMA reading (ASCII digits and word characters; ECMA white space;
anything but a line terminator) rather than Python's Unicode one, and `$` becomes
`\\Z`: ECMA's end of input, not Python's "or before a final newline".
"""

from __future__ import annotations

from toolfuzz_gate.core.schema.regex.ast import Alt, Anchor, Chars, Ranges, Regex, Repeat, Seq

NEVER = "(?!)"


def translate(node: Regex) -> str:
    if isinstance(node, Chars):
        return _chars(node.ranges)
    if isinstance(node, Anchor):
        return "^" if node.start else r"\Z"
    if isinstance(node, Seq):
        return "".join(_atom(item) for item in node.items)
    if isinstance(node, Alt):
        return "(?:" + "|".join(translate(branch) for branch in node.branches) + ")"
    high = "" if node.high is None else str(node.high)
    return f"{_atom(node.body)}{{{node.low},{high}}}"


def _atom(node: Regex) -> str:
    text = translate(node)
    return f"(?:{text})" if isinstance(node, Seq | Alt | Repeat) else text


def _code(code: int) -> str:
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _chars(ranges: Ranges) -> str:
    if not ranges:
        return NEVER
    parts = (_code(lo) if lo == hi else f"{_code(lo)}-{_code(hi)}" for lo, hi in ranges)
    return "[" + "".join(parts) + "]"
