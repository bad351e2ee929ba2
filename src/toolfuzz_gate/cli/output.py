"""The one output layer: nothing the gate prints becomes a workflow command by accident.

The Actions runner executes `::name::` at the start of a line (after leading whitespace)
and the legacy `##[name]` anywhere in a line, on stdout and on stderr. The gate prints
untrusted text all the time — tool and property names, keyword names, handler messages,
file names from a fork's artifact — so `run` wraps both streams in a `CommandGuard`:
every line written through it is made inert (a zero-width space splits the `::` that
starts a line and every `##[`), and only `app.progress.emit`, which the gate calls for the
commands it means (`::group::`, `::error file=…`, `::add-mask::`, …), writes a command
verbatim through the guard's `command`.
"""

from __future__ import annotations

import io
import re
from typing import TextIO

from toolfuzz_gate.core.github.workflow_commands import (
    LEGACY_COMMAND,
    ZERO_WIDTH_SPACE,
    one_command,
)

_LEADING_COMMAND = re.compile(r"^(\s*):(?=:)")
"""`::` after any leading whitespace, Unicode's included (`\x1f`, U+3000): the runner trims
before it reads a command, and the guard errs on the side of more text made inert."""


def inert(line: str) -> str:
    """`line` (no newline) as the runner will not read it as a command; a carriage return
    may start a line for a reader too, so each part after one is judged as a line."""
    parts = [
        _LEADING_COMMAND.sub(lambda m: m.group(1) + ":" + ZERO_WIDTH_SPACE, part)
        for part in line.split("\r")
    ]
    return "\r".join(parts).replace(LEGACY_COMMAND, "#" + ZERO_WIDTH_SPACE + "#[")


class CommandGuard(io.TextIOBase):
    """A text stream whose lines are all inert; `command` writes the gate's own.

    Lines are passed on whole (a command can only be judged once its line is complete);
    `flush` passes on a partial line too, remembering enough of it (whitespace so far, a
    trailing `#`) that the rest of the line is judged as part of it.
    """

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner
        self._line = ""
        self._written = ""
        """The part of the current line already passed on (only its shape matters)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._line += text
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            self.inner.write(self._inert_rest(line) + "\n")
            self._written = ""
        return len(text)

    def flush(self) -> None:
        if self._line:
            self.inner.write(self._inert_rest(self._line))
            self._written += self._line
            self._line = ""
        self.inner.flush()

    def command(self, line: str) -> None:
        """Write `line`, a workflow command the gate means, on a line of its own."""
        if self._line or self._written:
            self.write("\n")
        self.inner.write(one_command(line) + "\n")

    def _inert_rest(self, rest: str) -> str:
        """`rest` made inert as the continuation of what this line already showed."""
        whole = inert(self._written + rest)
        shown = inert(self._written)
        # the shown part cannot change; an inert split can only add characters to the rest
        return whole[len(shown) :] if whole.startswith(shown) else inert(rest)
