"""Map JSON Pointers to line numbers by scanning a JSON document's text (pure).

Lint and error messages say where a problem is in the file the user edits. The scanner
makes one linear pass over text already known to be JSON (the loader parsed it first)
and records the line where each member's key, or each array item, starts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from toolfuzz_gate.core.jsonutil import pointer as jp

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR_END = re.compile(r"[\s,\]}]")


@dataclass
class _Frame:
    pointer: str
    is_object: bool
    index: int = 0
    key: str | None = None
    expecting_key: bool = True


def line_index(text: str) -> dict[str, int]:
    """Every pointer in `text` with the 1-based line its member or item starts on."""
    lines: dict[str, int] = {}
    stack: list[_Frame] = []
    line, position, size = 1, 0, len(text)

    def here() -> str:
        if not stack:
            return ""
        frame = stack[-1]
        if frame.is_object:
            return jp.join(frame.pointer, frame.key or "")
        return jp.join(frame.pointer, frame.index)

    def value_starts() -> str:
        at = here()
        if not stack or not stack[-1].is_object:
            lines.setdefault(at, line)
        return at

    while position < size:
        char = text[position]
        if char == "\n":
            line += 1
            position += 1
        elif char in " \t\r:":
            position += 1
        elif char == ",":
            frame = stack[-1]
            if frame.is_object:
                frame.expecting_key = True
            else:
                frame.index += 1
            position += 1
        elif char in "{[":
            at = value_starts()
            stack.append(_Frame(at, char == "{"))
            position += 1
        elif char in "}]":
            stack.pop()
            position += 1
        elif char == '"':
            match = _STRING.match(text, position)
            end = match.end() if match else size
            if stack and stack[-1].is_object and stack[-1].expecting_key:
                frame = stack[-1]
                frame.key = json.loads(text[position:end])
                frame.expecting_key = False
                lines.setdefault(here(), line)
            else:
                value_starts()
            position = end
        else:
            value_starts()
            found = _SCALAR_END.search(text, position)
            position = found.start() if found else size
    return lines


def line_of(lines: dict[str, int], pointer: str) -> int | None:
    """The line of `pointer`, else of its nearest ancestor present in the text."""
    tokens = jp.split(pointer) if pointer else []
    while True:
        at = jp.from_parts(tokens)
        if at in lines:
            return lines[at]
        if not tokens:
            return None
        tokens.pop()
