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
    DOT,
    Alt,
    Anchor,
    Chars,
    Regex,
    Repeat,
    Seq,
    size,
)
from toolfuzz_gate.core.schema.regex.escapes import char_class, escape, point
from toolfuzz_gate.core.schema.regex.reader import INVALID, UNSUPPORTED, PatternError, Reader

MAX_PATTERN_LENGTH = 1000
MAX_AST_NODES = 400
MAX_REPEAT = 1000
MAX_GROUP_DEPTH = 16


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
    reader = Reader(text)
    tree = _disjunction(reader)
    if reader.at < len(text):
        raise PatternError(INVALID, "unmatched ')'", reader.at)
    if size(tree) > MAX_AST_NODES:
        raise PatternError(UNSUPPORTED, f"the pattern has more than {MAX_AST_NODES} parts", 0)
    return Parsed(tree, reader.divergence)


def _disjunction(reader: Reader) -> Regex:
    start = reader.at
    branches = [_alternative(reader)]
    while reader.peek() == "|":
        reader.take()
        branches.append(_alternative(reader))
    return branches[0] if len(branches) == 1 else Alt(tuple(branches), start)


def _alternative(reader: Reader) -> Regex:
    items: list[Regex] = []
    while reader.peek() not in ("", "|", ")"):
        items.append(_term(reader))
    return items[0] if len(items) == 1 else Seq(tuple(items))


def _term(reader: Reader) -> Regex:
    start = reader.at
    char = reader.peek()
    if char in ("^", "$"):
        reader.take()
        if reader.peek() in ("*", "+", "?", "{"):
            raise PatternError(INVALID, f"nothing to repeat: '{char}' is an assertion", reader.at)
        return Anchor(start=char == "^")
    atom = _atom(reader)
    return _quantified(reader, atom, start)


def _quantified(reader: Reader, atom: Regex, start: int) -> Regex:
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


def _quantifier(reader: Reader) -> tuple[int, int | None] | None:
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


def _is_braced_quantifier(reader: Reader) -> bool:
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


def _number(reader: Reader) -> int:
    digits = ""
    while reader.peek().isdigit() and reader.peek().isascii():
        digits += reader.take()
        if len(digits) > 6:
            raise PatternError(UNSUPPORTED, f"repetition counts above {MAX_REPEAT}", reader.at)
    return int(digits)


def _atom(reader: Reader) -> Regex:
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
        return char_class(reader)
    reader.take()
    if char == ".":
        return Chars(DOT, start)
    if char == "\\":
        return Chars(escape(reader, start, in_class=False), start)
    return Chars(point(ord(char), start), start)


def _group(reader: Reader) -> Regex:
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


def _group_name(reader: Reader) -> bool:
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


def _extension_reason(reader: Reader) -> str:
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
