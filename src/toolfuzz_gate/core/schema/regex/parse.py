"""Read an ECMA-262 pattern into `core.schema.regex.ast`, refusing what the engine does not (pure).

The accepted language is the part of ECMA-262 every reader the gate relies on
agrees about: the engine's own translation, Python's `re` (which the reference
`jsonschema` validator runs on the raw pattern) and jsonschema-rs. Constructs
outside it are refused with the offset they start at: `unsupported` for valid
ECMA the engine does not read (or another reader reads differently), `invalid`
for text ECMA-262 itself rejects.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolfuzz_gate.core.schema.regex.ast import (
    ANY,
    DIGIT,
    DOT,
    SPACE,
    WORD,
    Alt,
    Anchor,
    Chars,
    Ranges,
    Regex,
    Repeat,
    Seq,
    complement,
    normalise,
    size,
)

INVALID = "schema.invalid-keyword-value"
UNSUPPORTED = "schema.unsupported-pattern"
MAX_PATTERN_LENGTH = 1000
MAX_AST_NODES = 400
MAX_REPEAT = 1000
MAX_GROUP_DEPTH = 16
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


class PatternError(Exception):
    """A refused pattern: a stable code, the reason, and the offset of the construct."""

    def __init__(self, code: str, reason: str, offset: int) -> None:
        super().__init__(f"{reason} (at offset {offset})")
        self.code = code
        self.reason = reason
        self.offset = offset


@dataclass
class _Reader:
    text: str
    at: int = 0
    divergence: tuple[str, int] | None = None
    depth: int = 0

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.text[index] if index < len(self.text) else ""

    def startswith(self, prefix: str) -> bool:
        return self.text.startswith(prefix, self.at)

    def take(self) -> str:
        char = self.peek()
        self.at += 1
        return char

    def diverges(self, reason: str, offset: int) -> None:
        if self.divergence is None:
            self.divergence = (reason, offset)


@dataclass(frozen=True)
class Parsed:
    """The tree, and the first construct Python's `re` would read differently (if any).

    Such a pattern still has an exact ECMA meaning (`tree`); whoever needs Python's
    reading of the raw text to agree must refuse it.
    """

    tree: Regex
    divergence: tuple[str, int] | None


def parse(text: str) -> Parsed:
    """The syntax tree of `text`, or `PatternError`."""
    if len(text) > MAX_PATTERN_LENGTH:
        raise PatternError(
            UNSUPPORTED, f"the pattern is longer than {MAX_PATTERN_LENGTH} characters", 0
        )
    reader = _Reader(text)
    tree = _disjunction(reader)
    if reader.at < len(text):
        raise PatternError(INVALID, "unmatched ')'", reader.at)
    if size(tree) > MAX_AST_NODES:
        raise PatternError(UNSUPPORTED, f"the pattern has more than {MAX_AST_NODES} parts", 0)
    return Parsed(tree, reader.divergence)


def _disjunction(reader: _Reader) -> Regex:
    start = reader.at
    branches = [_alternative(reader)]
    while reader.peek() == "|":
        reader.take()
        branches.append(_alternative(reader))
    return branches[0] if len(branches) == 1 else Alt(tuple(branches), start)


def _alternative(reader: _Reader) -> Regex:
    items: list[Regex] = []
    while reader.peek() not in ("", "|", ")"):
        items.append(_term(reader))
    return items[0] if len(items) == 1 else Seq(tuple(items))


def _term(reader: _Reader) -> Regex:
    start = reader.at
    char = reader.peek()
    if char in ("^", "$"):
        reader.take()
        if reader.peek() in ("*", "+", "?", "{"):
            raise PatternError(INVALID, f"nothing to repeat: '{char}' is an assertion", reader.at)
        return Anchor(start=char == "^")
    atom = _atom(reader)
    return _quantified(reader, atom, start)


def _quantified(reader: _Reader, atom: Regex, start: int) -> Regex:
    bounds = _quantifier(reader)
    if bounds is None:
        return atom
    low, high = bounds
    if reader.peek() == "?":
        reader.take()
    elif reader.peek() == "+":
        raise PatternError(UNSUPPORTED, "possessive quantifiers are Python-only syntax", reader.at)
    if reader.peek() in ("*", "+", "?") or _is_braced_quantifier(reader):
        raise PatternError(
            INVALID, "nothing to repeat: a quantifier follows a quantifier", reader.at
        )
    return Repeat(atom, low, high, start)


def _quantifier(reader: _Reader) -> tuple[int, int | None] | None:
    char = reader.peek()
    if char == "*":
        reader.take()
        return 0, None
    if char == "+":
        reader.take()
        return 1, None
    if char == "?":
        reader.take()
        return 0, 1
    if char != "{":
        return None
    start = reader.at
    if not _is_braced_quantifier(reader):
        raise PatternError(UNSUPPORTED, "a literal '{' must be escaped as \\{", start)
    reader.take()
    low = _number(reader)
    high: int | None = low
    if reader.peek() == ",":
        reader.take()
        high = None if reader.peek() == "}" else _number(reader)
    reader.take()  # "}"
    if high is not None and high < low:
        raise PatternError(INVALID, f"numbers out of order in {{{low},{high}}}", start)
    if low > MAX_REPEAT or (high is not None and high > MAX_REPEAT):
        raise PatternError(UNSUPPORTED, f"repetition counts above {MAX_REPEAT}", start)
    return low, high


def _is_braced_quantifier(reader: _Reader) -> bool:
    if reader.peek() != "{":
        return False
    index = reader.at + 1
    text = reader.text
    digits = index
    while index < len(text) and text[index].isdigit() and text[index].isascii():
        index += 1
    if index == digits:
        return False
    if index < len(text) and text[index] == ",":
        index += 1
        while index < len(text) and text[index].isdigit() and text[index].isascii():
            index += 1
    return index < len(text) and text[index] == "}"


def _number(reader: _Reader) -> int:
    digits = ""
    while reader.peek().isdigit() and reader.peek().isascii():
        digits += reader.take()
        if len(digits) > 6:
            raise PatternError(UNSUPPORTED, f"repetition counts above {MAX_REPEAT}", reader.at)
    return int(digits)


def _atom(reader: _Reader) -> Regex:
    start = reader.at
    char = reader.peek()
    if char in ("*", "+", "?"):
        raise PatternError(INVALID, f"nothing to repeat before '{char}'", start)
    if char == "{":
        if _is_braced_quantifier(reader):
            raise PatternError(INVALID, "nothing to repeat before '{'", start)
        raise PatternError(UNSUPPORTED, "a literal '{' must be escaped as \\{", start)
    if char == "}":
        raise PatternError(UNSUPPORTED, "a literal '}' must be escaped as \\}", start)
    if char == "(":
        return _group(reader)
    if char == "[":
        return _class(reader)
    reader.take()
    if char == ".":
        return Chars(DOT, start)
    if char == "\\":
        return Chars(_escape(reader, start, in_class=False), start)
    return Chars(_point(ord(char), start), start)


def _group(reader: _Reader) -> Regex:
    start = reader.at
    reader.take()
    if reader.depth >= MAX_GROUP_DEPTH:
        raise PatternError(UNSUPPORTED, f"groups nest deeper than {MAX_GROUP_DEPTH}", start)
    if reader.peek() == "?":
        if reader.startswith("?:"):
            reader.at += 2
        elif reader.startswith("?<") and _group_name(reader):
            reader.diverges("named groups (?<name>...) are not read by Python's re", start)
        else:
            raise PatternError(UNSUPPORTED, _extension_reason(reader), start)
    reader.depth += 1
    body = _disjunction(reader)
    reader.depth -= 1
    if reader.peek() != ")":
        raise PatternError(INVALID, "unterminated group: '(' without ')'", start)
    reader.take()
    return body


def _group_name(reader: _Reader) -> bool:
    """Consume `?<name>` when it is one (ECMA identifier characters, ASCII only)."""
    index = reader.at + 2
    text = reader.text
    begin = index
    while (
        index < len(text)
        and text[index].isascii()
        and (text[index].isalnum() or text[index] in "_$")
    ):
        index += 1
    if index == begin or text[begin].isdigit() or index >= len(text) or text[index] != ">":
        return False
    reader.at = index + 1
    return True


def _extension_reason(reader: _Reader) -> str:
    for prefix, reason in (
        ("?=", "lookahead (?=...) is not supported"),
        ("?!", "negative lookahead (?!...) is not supported"),
        ("?<=", "lookbehind (?<=...) is not supported"),
        ("?<!", "negative lookbehind (?<!...) is not supported"),
        ("?<", "a malformed group name"),
        ("?P", "(?P...) groups are Python-only syntax"),
        ("?>", "atomic groups (?>...) are Python-only syntax"),
        ("?#", "(?#...) comments are Python-only syntax"),
    ):
        if reader.startswith(prefix):
            return reason
    return "inline flags and other (?...) extensions are Python-only syntax"


def _escape(reader: _Reader, start: int, in_class: bool) -> Ranges:
    """The set one escape after a backslash stands for (the backslash is consumed)."""
    char = reader.take()
    if char == "":
        raise PatternError(INVALID, "the pattern ends with a lone backslash", start)
    if char in CLASS_ESCAPES:
        return CLASS_ESCAPES[char]
    if char in CONTROL_ESCAPES:
        return _point(CONTROL_ESCAPES[char])
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
        return _point(ord(letter) % 32)
    if char == "x":
        return _point(_hex(reader, 2, start), start)
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
            return _point(code, start)
        return _point(_hex(reader, 4, start), start)
    if char in PYTHON_ONLY_ESCAPES:
        raise PatternError(UNSUPPORTED, f"{PYTHON_ONLY_ESCAPES[char]} is Python-only syntax", start)
    if char in SYNTAX or (in_class and char == "-") or char == "-":
        return _point(ord(char))
    raise PatternError(
        UNSUPPORTED, f"the escape \\{char} means different things to different readers", start
    )


def _hex(reader: _Reader, count: int, start: int) -> int:
    digits = reader.text[reader.at : reader.at + count]
    if len(digits) != count or not _is_hex(digits):
        raise PatternError(UNSUPPORTED, f"a hex escape needs {count} hex digits", start)
    reader.at += count
    return int(digits, 16)


def _is_hex(digits: str) -> bool:
    return bool(digits) and all(c in "0123456789abcdefABCDEF" for c in digits)


def _point(code: int, start: int = 0) -> Ranges:
    if 0xD800 <= code <= 0xDFFF:
        raise PatternError(UNSUPPORTED, "surrogate code points are not supported", start)
    return ((code, code),)


def _class(reader: _Reader) -> Regex:
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


def _class_atom(reader: _Reader) -> Ranges:
    start = reader.at
    char = reader.take()
    if char == "\\":
        return _escape(reader, start, in_class=True)
    if char == "[":
        raise PatternError(UNSUPPORTED, "an unescaped '[' inside a class; write \\[", start)
    if char in "&~|-" and reader.peek() == char and char != "-":
        raise PatternError(UNSUPPORTED, f"'{char}{char}' inside a class; escape one of them", start)
    if char == "-" and reader.peek() == "-":
        raise PatternError(UNSUPPORTED, "'--' inside a class; escape one of them", start)
    return _point(ord(char), start)


__all__ = ["ANY", "INVALID", "UNSUPPORTED", "PatternError", "parse"]
