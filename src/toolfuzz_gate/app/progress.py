"""What the gate prints while it runs (application): lines written whole, never interleaved
between threads (`say`); its own workflow commands (`emit`); and one line per tool as it
starts and as it ends, so a long run is never silent (issue 11).

The command line wraps its streams in `cli.output.CommandGuard`, which makes every line
printed through it inert; a stream that can write a command verbatim says so with a
`command` method, and `emit` uses it. Anything else gets the command printed as one line.
In GitHub Actions (`GITHUB_ACTIONS=true`) each tool's lines are a collapsible
`::group::`; the tool's name is untrusted text, so it goes into the command escaped
(`workflow_data`, then `emit`), and the lines printed around it are made inert by the
command line's output layer like everything it prints.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, TextIO, runtime_checkable

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.github.workflow_commands import one_command
from toolfuzz_gate.core.report.untrusted import clean, workflow_data

_PRINTING = threading.Lock()
"""Lines from tools fuzzed at once (`--jobs`) are written whole, one at a time."""


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


def say(out: TextIO, *lines: str) -> None:
    """Write `lines` whole, never interleaved with another thread's (each a line of text)."""
    with _PRINTING:
        for line in lines:
            print(line, file=out, flush=True)


def say_command(out: TextIO, line: str) -> None:
    """`emit` the workflow command `line`, never inside another thread's line."""
    with _PRINTING:
        emit(out, line)


def on_actions(environ: Mapping[str, str]) -> bool:
    """Does the environment say the Actions runner reads the output (it folds groups)?"""
    return environ.get("GITHUB_ACTIONS") == "true"


@dataclass
class Progress:
    out: TextIO | None
    side: str = ""
    """"base" while the base runs, so its lines are told apart."""
    grouped: bool = False
    """Each tool's lines in a folded group (`on_actions`: the Actions runner folds them)."""
    concurrent: bool = False
    """Tools run at once (`--jobs`): a tool's group is written whole when it ends, since
    groups cannot interleave."""
    _started: threading.local = field(default_factory=threading.local)
    """When the tool this thread runs started (a tool starts and ends in one thread)."""

    def start(self, tool: str, seed: int, runs: int) -> None:
        if self.out is None:
            return
        title = f"{self._label(tool)}: seed {seed}, {runs} runs"
        self._started.at = time.monotonic()
        self._started.title = title
        if not self.grouped:
            say(self.out, f"{clean(title)} ...")
        elif not self.concurrent:
            with _PRINTING:
                emit(self.out, f"::group::{workflow_data(title)}")
            say(self.out, f"{clean(title)} ...")

    def done(self, tool: str, receipt: Receipt) -> None:
        if self.out is None:
            return
        seconds = time.monotonic() - getattr(self._started, "at", time.monotonic())
        total = receipt.cases.total if receipt.cases is not None else 0
        found = len(receipt.counterexamples)
        state = "refused" if receipt.refused else f"{total} cases, {found} findings"
        state = "skipped" if receipt.skipped else state
        line = f"{clean(self._label(tool))}: {state}, {seconds:.1f} s"
        if not self.grouped:
            say(self.out, line)
            return
        with _PRINTING:
            if self.concurrent:
                title = getattr(self._started, "title", self._label(tool))
                emit(self.out, f"::group::{workflow_data(title)}")
                print(f"{clean(title)} ...", file=self.out, flush=True)
            print(line, file=self.out, flush=True)
            emit(self.out, "::endgroup::")

    def _label(self, tool: str) -> str:
        return f"[{self.side}] {tool}" if self.side else tool
