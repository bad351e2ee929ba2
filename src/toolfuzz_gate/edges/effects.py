"""Effect probes that see committed state from outside any handler (edge).

`{directory: PATH}` digests a directory tree; `{command: [ARGV...]}` runs a command
that prints the state (a row count from a SQLite file, say). `ProbedHandler` takes a
snapshot before and after each call of the handler it wraps, which is what the
`mutation-on-rejection` and `dry-run-mutation` invariants compare.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from toolfuzz_gate.core.campaign.outcome import Outcome, PassesThrough
from toolfuzz_gate.core.campaign.receipt_members import HandlerNotes
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.edges.handlers import timing
from toolfuzz_gate.edges.handlers.base import ManagedHandler
from toolfuzz_gate.edges.handlers.checkout import Checkout
from toolfuzz_gate.edges.handlers.helper_command import run_helper
from toolfuzz_gate.errors import HandlerError

MAX_FILES = 10_000
MAX_BYTES_READ = 64 * 1024 * 1024
COMMAND_TIMEOUT_S = 10.0
MAX_COMMAND_OUTPUT = 64 * 1024


class StateProbe(Protocol):
    def snapshot(self) -> JSON: ...


class DirectoryProbe:
    """sha256 over every file's relative path, size and content, in sorted order."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise HandlerError(f"effects directory {root} does not exist or is not a directory")
        self.root = root

    def snapshot(self) -> JSON:
        digest = hashlib.sha256()
        files = 0
        budget = MAX_BYTES_READ
        for folder, directories, names in os.walk(self.root):
            directories.sort()
            for name in sorted(names):
                path = Path(folder, name)
                relative = path.relative_to(self.root).as_posix()
                files += 1
                if files > MAX_FILES:
                    raise HandlerError(
                        f"effects directory {self.root} holds over {MAX_FILES} files"
                    )
                try:
                    data = (
                        path.read_bytes() if not path.is_symlink() else os.readlink(path).encode()
                    )
                except OSError as error:
                    data = f"unreadable: {error.strerror}".encode()
                budget -= len(data)
                if budget < 0:
                    raise HandlerError(
                        f"effects directory {self.root} holds over {MAX_BYTES_READ} bytes"
                    )
                digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
                digest.update(hashlib.sha256(data).digest())
        return {"files": files, "sha256": digest.hexdigest()}


class CommandProbe:
    """The state as a command prints it: parsed as JSON when it is JSON, else the text."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str | None,
        passthrough: Sequence[str],
        checkout: Checkout | None = None,
    ) -> None:
        if not argv:
            raise HandlerError("the effects command is empty")
        checkout = checkout or Checkout.at(None)
        self.argv = checkout.argv(argv, cwd)
        self.cwd = cwd
        self.env = checkout.environment(passthrough)

    def snapshot(self) -> JSON:
        stdout = run_helper(
            "effects command", self.argv, cwd=self.cwd, env=self.env, timeout_s=COMMAND_TIMEOUT_S
        )
        text = stdout[:MAX_COMMAND_OUTPUT].decode("utf-8", "replace").strip()
        try:
            value: JSON = json.loads(text)
        except ValueError:
            return text
        return value


class ProbedHandler(PassesThrough, ManagedHandler):
    """A handler with a state snapshot taken before and after every call."""

    def __init__(self, inner: ManagedHandler, probe: StateProbe) -> None:
        self.inner: ManagedHandler = inner
        self.probe = probe
        self.probe.snapshot()  # fail fast, before any call, when the probe cannot work

    def call(self, arguments: JSONObject) -> Outcome:
        with timing.measured("effects"):
            before = self.probe.snapshot()
        outcome = self.inner.call(arguments)
        with timing.measured("effects"):
            after = self.probe.snapshot()
        return outcome._replace(effects_before=before, effects_after=after, effects_observed=True)

    def notes(self) -> HandlerNotes:
        return self.inner.notes()

    def close(self) -> None:
        self.inner.close()
