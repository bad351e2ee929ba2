"""Writing the gate's own workflow commands (`::group::`, `::error file=…`, `::add-mask::`).

The command line wraps its streams in `cli.output.CommandGuard`, which makes every line
printed through it inert; a stream that can write a command verbatim says so with a
`command` method, and `emit` uses it. Anything else gets the command printed as one line.
"""

from __future__ import annotations

from typing import Protocol, TextIO, runtime_checkable

ZERO_WIDTH_SPACE = "\u200b"
LEGACY_COMMAND = "##["


@runtime_checkable
class CommandStream(Protocol):
    """A stream that writes a workflow command the gate means on a line of its own."""

    def command(self, line: str) -> None: ...


def emit(out: TextIO, line: str) -> None:
    """Write the workflow command `line` (the gate's own, its data already escaped)."""
    if isinstance(out, CommandStream):
        out.command(line)
    else:
        print(one_command(line), file=out)


def one_command(line: str) -> str:
    """`line` as exactly one command: on one line, and no legacy `##[` command inside its
    data (which the runner would run too)."""
    flat = line.replace("\r", "").replace("\n", "")
    return flat.replace(LEGACY_COMMAND, "#" + ZERO_WIDTH_SPACE + "#[")
