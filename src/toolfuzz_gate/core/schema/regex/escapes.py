"""Escapes and character classes of an ECMA-262 pattern, read into code-point sets (pure).

Part of `core.schema.regex.parse`: what a backslash or a `[...]` stands for, refusing
the escapes and class syntax other readers take differently.
"""

from __future__ import annotations

from toolfuzz_gate.core.schema.regex.ast import (
    ANY,
    DIGIT,
    SPACE,
    WORD,
    Chars,
    Ranges,
    Regex,
    complement,
    normalise,
)
from toolfuzz_gate.core.schema.regex.reader import INVALID, UNSUPPORTED, PatternError, Reader

SYNTAX = frozenset("^$\\.*+?()[]{}|/")
CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
CLASS_ESCAPES: dict[str, Ranges] = {
    "d": DIGIT,
    "D": complement(DIGIT),
    "w": WORD,
    "W": complement(WORD),
    "s": SPACE,
    "S": complement(SPACE),
}
PYTHON_ONLY_ESCAPES = {"A": "\\A", "Z": "\\Z", "z": "\\z", "N": "\\N{...}", "g": "\\g<...>"}


def escape(reader: Reader, start: int, in_class: bool) -> Ranges:
    """The set one escape after a backslash stands for (the backslash is consumed)."""
    char = reader.take()
    if char == "":
        raise PatternError(INVALID, "the pattern ends with a lone backslash", start)
    if char in CLASS_ESCAPES:
        return CLASS_ESCAPES[char]
    if char in CONTROL_ESCAPES:
        return point(CONTROL_ESCAPES[char])
    if char == "b":
        if in_class:
            raise PatternError(UNSUPPORTED, "[\\b] (backspace) is not read by jsonschema-rs", start)
        raise PatternError(UNSUPPORTED, "word boundaries \\b are not supported", start)
    if char == "B":
        raise PatternError(UNSUPPORTED, "word boundaries \\B are not supported", start)
    if char.isdigit() and char.isascii():
        if char == "0" and not (reader.peek().isdigit() and reader.peek().isascii()):
            raise PatternError(UNSUPPORTED, "\\0 (NUL) is not read by jsonschema-rs", start)
        raise PatternError(
            UNSUPPORTED, "back-references and octal escapes are not supported", start
        )
    if char == "k":
        raise PatternError(UNSUPPORTED, "back-references \\k<name> are not supported", start)
    if char in ("p", "P"):
        raise PatternError(
            UNSUPPORTED, f"Unicode property escapes \\{char}{{...}} are not supported", start
        )
    if char == "c":
        letter = reader.peek()
        if not (letter.isascii() and letter.isalpha()):
            raise PatternError(UNSUPPORTED, "\\c must be followed by a letter", start)
        reader.take()
        return point(ord(letter) % 32)
    if char == "x":
        return point(_hex(reader, 2, start), start)
    if char == "u":
        if reader.peek() == "{":
            reader.take()
            digits = ""
            while reader.peek() not in ("}", ""):
                digits += reader.take()
            if reader.take() != "}" or not _is_hex(digits) or len(digits) > 6:
                raise PatternError(INVALID, "malformed \\u{...} escape", start)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise PatternError(INVALID, "\\u{...} beyond U+10FFFF", start)
            return point(code, start)
        return point(_hex(reader, 4, start), start)
    if char in PYTHON_ONLY_ESCAPES:
        raise PatternError(UNSUPPORTED, f"{PYTHON_ONLY_ESCAPES[char]} is Python-only syntax", start)
    if char in SYNTAX or (in_class and char == "-") or char == "-":
        return point(ord(char))
    raise PatternError(
        UNSUPPORTED, f"the escape \\{char} means different things to different readers", start
    )


def _hex(reader: Reader, count: int, start: int) -> int:
    digits = reader.text[reader.at : reader.at + count]
    if len(digits) != count or not _is_hex(digits):
        raise PatternError(UNSUPPORTED, f"a hex escape needs {count} hex digits", start)
    reader.at += count
    return int(digits, 16)


def _is_hex(digits: str) -> bool:
    return bool(digits) and all(c in "0123456789abcdefABCDEF" for c in digits)


def point(code: int, start: int = 0) -> Ranges:
    """The one-code-point set of `code` (surrogates are refused)."""
    if 0xD800 <= code <= 0xDFFF:
        raise PatternError(UNSUPPORTED, "surrogate code points are not supported", start)
    return ((code, code),)


def char_class(reader: Reader) -> Regex:
    """A `[...]` class, read from its opening bracket."""
    start = reader.at
    reader.take()
    negated = reader.peek() == "^"
    if negated:
        reader.take()
    if reader.peek() == "]":
        reader.take()
        # ECMA reads `[]` as nothing and `[^]` as anything; Python reads a leading ']' as a member.
        reader.diverges(f"'[{'^' if negated else ''}]' reads differently in Python's re", start)
        return Chars(ANY if negated else (), start)
    ranges: list[tuple[int, int]] = []
    while True:
        char = reader.peek()
        if char == "":
            raise PatternError(INVALID, "unterminated character class", start)
        if char == "]":
            reader.take()
            break
        low = _class_atom(reader)
        if reader.peek() == "-" and reader.peek(1) not in ("]", ""):
            dash = reader.at
            reader.take()
            high = _class_atom(reader)
            if (
                len(low) != 1
                or len(high) != 1
                or low[0][0] != low[0][1]
                or high[0][0] != high[0][1]
            ):
                raise PatternError(UNSUPPORTED, "a range with a class escape as an end", dash)
            if high[0][0] < low[0][0]:
                raise PatternError(INVALID, "range out of order in character class", dash)
            ranges.append((low[0][0], high[0][0]))
        else:
            ranges.extend(low)
    members = normalise(ranges)
    return Chars(complement(members) if negated else members, start)


def _class_atom(reader: Reader) -> Ranges:
    start = reader.at
    char = reader.take()
    if char == "\\":
        return escape(reader, start, in_class=True)
    if char == "[":
        raise PatternError(UNSUPPORTED, "an unescaped '[' inside a class; write \\[", start)
    if char in "&~|-" and reader.peek() == char and char != "-":
        raise PatternError(UNSUPPORTED, f"'{char}{char}' inside a class; escape one of them", start)
    if char == "-" and reader.peek() == "-":
        raise PatternError(UNSUPPORTED, "'--' inside a class; escape one of them", start)
    return point(ord(char), start)
