"""The runner's file commands, kept as they were before any handler ran (edge).

The runner applies what a step appends to `GITHUB_ENV` and `GITHUB_PATH` to every later
step of the job (a `BASH_ENV=` or `LD_PRELOAD=` line runs code there, where
upload-artifact holds the runtime token), and shows `GITHUB_STEP_SUMMARY` as the step's
summary. The handlers are the pull request's code and, where the gate can neither be nor
become root, run as the gate's user (`edges.privileges`), so the gate copies each of
these files before the first handler starts and, once every handler is reaped, puts back
what it copied and names what a handler wrote: the run then fails. Handlers never
receive these variables (`edges.handlers.environment`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.environment import RUNNER_FILE_COMMANDS

FILE_COMMANDS = tuple(sorted(RUNNER_FILE_COMMANDS))
MAX_FILE_BYTES = 16 * 1024 * 1024
"""More than the runner accepts in any of them (the step summary's limit is 1 MiB)."""


@dataclass(frozen=True)
class Kept:
    """One file command's file and its bytes before the handlers (None: it did not exist)."""

    variable: str
    path: Path
    content: bytes | None


def runner_private(environ: Mapping[str, str]) -> tuple[tuple[Path, int], ...]:
    """The runner's directories no handler may look into, each with the permission bits
    others lose there for the run (`edges.handlers.confine`, where the gate is root): the
    folder of the file commands, every bit, since the runner keeps each earlier step's
    files there and they hold what those steps put into the environment (a cloud
    credential a setup step exported, say); `RUNNER_TEMP`, reading, so that no one lists
    other steps' scripts (a workflow's `${{ secrets.X }}` is written into them) while the
    gate's own files below it stay reachable by name."""
    found: dict[Path, int] = {}
    for variable in FILE_COMMANDS:
        value = environ.get(variable)
        if value and os.path.isabs(value):
            found[Path(value).parent] = stat.S_IRWXO
    temp = environ.get("RUNNER_TEMP")
    if temp and os.path.isabs(temp):
        found[Path(temp)] = stat.S_IROTH  # the gate's own installation may lie below it
    return tuple(sorted(found.items()))


def keep_file_commands(environ: Mapping[str, str]) -> tuple[Kept, ...]:
    """A copy of each file command the runner names in `environ`."""
    kept: list[Kept] = []
    for variable in FILE_COMMANDS:
        value = environ.get(variable)
        if value:
            path = Path(value)
            kept.append(Kept(variable, path, _read(path)))
    return tuple(kept)


def restore_file_commands(kept: tuple[Kept, ...]) -> list[str]:
    """Put every file back as it was; what a handler had written, one line per file."""
    written: list[str] = []
    for item in kept:
        now = _read(item.path)
        if now == item.content and not item.path.is_symlink():
            continue
        written.append(f"a handler wrote to {item.variable}: {_what(item.content, now)}")
        _put_back(item)
    return written


def _read(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES)
    except OSError:
        return None


def _what(before: bytes | None, after: bytes | None) -> str:
    if after is None:
        return "removed it"
    old = before or b""
    if after.startswith(old):
        added = after[len(old) :].decode("utf-8", "replace").strip()
        return f"added {bounded_message(added, 200)!r}"
    return f"rewrote it ({len(after)} bytes)"


def _put_back(item: Kept) -> None:
    """Write the kept bytes in place of whatever is there now (a symlink planted at the
    path is removed, never followed)."""
    if os.path.lexists(item.path) and (item.path.is_symlink() or not item.path.is_file()):
        item.path.unlink(missing_ok=True)
    if item.content is None:
        item.path.unlink(missing_ok=True)
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(item.path, flags, 0o644)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(item.content)
