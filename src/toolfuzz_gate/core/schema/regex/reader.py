"""The cursor a pattern is read with, and the error that refuses one (pure).

A refusal carries a stable code: `INVALID` for text ECMA-262 itself rejects,
`UNSUPPORTED` for valid ECMA the engine does not read (or another reader reads
differently), and the offset the construct starts at.
"""

from __future__ import annotations

from dataclasses import dataclass

INVALID = "schema.invalid-keyword-value"
UNSUPPORTED = "schema.unsupported-pattern"


class PatternError(Exception):
    """A refused pattern: a stable code, the reason, and the offset of the construct."""

    def __init__(self, code: str, reason: str, offset: int) -> None:
        super().__init__(f"{reason} (at offset {offset})")
        self.code = code
        self.reason = reason
        self.offset = offset


@dataclass
class Reader:
    """Where reading `text` stands, and the first construct Python's `re` reads otherwise."""

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
