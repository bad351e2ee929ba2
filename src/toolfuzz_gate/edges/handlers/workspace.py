"""The per-run working tree a handler is confined to, its fixtures, and the write oracle
that watches the tree around it (edge).

A `Workspace` is a temporary directory laid out so that a write which leaves the
handler's allowed root lands somewhere the gate looks:

    RUN/                      watched (`../..` from the allowed root)
      canary.txt
      outside/canary.txt
      box/                    watched (`..`)
        canary.txt
        root/                 the allowed root: the handler's cwd, fixtures laid here
          toolfuzz-link       (sandbox) a symbolic link to RUN/outside
        root-sibling/         watched: `box/root-sibling` starts with `box/root`, the
          canary.txt          place a prefix check (`startswith`) lets a write through
        home/                 HOME (scratch: not watched)
        tmp/                  TMPDIR (scratch: not watched)

After each call `ConfinedHandler` compares every entry of the watched part (names, types,
sizes, modification times) with how the workspace laid it out; a difference is a write
outside the root, reported on the call's `Outcome.escaped_writes` as paths relative to the
allowed root (`../../outside/x`), and the watched part is laid out again for the next
call. A watched directory whose entries changed with no difference left below it (a
temporary file written and removed within the call) is named with a trailing `/` (`../`).

The link is the way out of the engine's `symlink` traversal value (`toolfuzz-link/...`): a
handler that refuses `..` and absolute paths but follows links writes into `outside/`
through it. A call that removes it or points it elsewhere finds it laid again for the next
(a file or directory a call puts in its place is the handler's, and is left).

Only the tree around the root is seen: a handler that writes to an absolute path elsewhere
on the machine is not (HOME and TMPDIR point into the box, so the usual places for scratch
files are).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from toolfuzz_gate.core.campaign.outcome import Outcome, PassesThrough
from toolfuzz_gate.core.campaign.receipt_members import HandlerNotes
from toolfuzz_gate.core.engine.trouble import SANDBOX_LINK
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.handlers import timing
from toolfuzz_gate.edges.handlers.base import ManagedHandler
from toolfuzz_gate.edges.handlers.checkout import WorkTree
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.confine import handlers_own_tree
from toolfuzz_gate.errors import HandlerError

CANARY_TEXT = b"toolfuzz-gate canary: a handler that writes here wrote outside its root\n"
MAX_REPORTED = 8
"""Paths one call's finding names at most (the count says how many there were)."""
MAX_WATCHED_ENTRIES = 2_000
"""Entries the watched part may grow to in one call before the rest is not listed."""
MAX_FIXTURE_BYTES = 64 * 1024 * 1024
MAX_FIXTURE_FILES = 10_000

_SCRATCH = ("root", "home", "tmp")
"""The box's members a handler may write to: they are not watched."""


_Entry = tuple[str, int, int]
"""(kind, size, mtime_ns) of a watched entry: kind `f` file, `d` directory, `l` link."""


class Workspace:
    """A fresh per-run root (see the module's note); `close` removes it."""

    def __init__(self, fixtures: Sequence[str] = (), *, link: bool = False) -> None:
        """`link`: lay `SANDBOX_LINK` in the root (a sandbox does; fixtures alone do not)."""
        self.top = Path(tempfile.mkdtemp(prefix="toolfuzz-sandbox-")).resolve()
        try:
            self.box = self.top / "box"
            self.root = self.box / "root"
            for directory in (self.root, self.box / "home", self.box / "tmp"):
                directory.mkdir(parents=True)
            self.fixtures = tuple(fixtures)
            for source in self.fixtures:
                lay_fixture(Path(source), self.root)
            self.link = self.root / SANDBOX_LINK if link else None
            self._lay_canaries()
            handlers_own_tree(self.top)  # as root, the handler's user's (`confine`)
            self._laid = self._listing()
        except BaseException:
            self.close()
            raise

    def lay_fixtures_again(self) -> None:
        """Every fixture laid again as the repository has it (what calls wrote into one is
        undone); the root's other files stay."""
        for source in self.fixtures:
            _remove(self.root / Path(source).name)
            lay_fixture(Path(source), self.root)
        if self.fixtures:
            handlers_own_tree(self.root)  # the copies too are the handler user's (`confine`)

    def work_tree(self, confined: bool) -> WorkTree:
        """The workspace as the handler's processes see it; `confined`: HOME and TMPDIR
        inside the box too."""
        home, tmp = str(self.box / "home"), str(self.box / "tmp")
        scratch = {"HOME": home, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp} if confined else {}
        return WorkTree(str(self.root), tuple(sorted(scratch.items())))

    def _lay_canaries(self) -> None:
        for folder in (self.top, self.top / "outside", self.box, self.box / "root-sibling"):
            folder.mkdir(exist_ok=True)
            (folder / "canary.txt").write_bytes(CANARY_TEXT)
        self._keep_link()

    def _keep_link(self) -> None:
        """The link to `outside/` where it belongs, laid again when a call removed it or
        pointed it elsewhere (a file or directory of that name is left alone)."""
        if self.link is None:
            return
        target = str(self.top / "outside")
        try:
            if os.readlink(self.link) == target:
                return
        except OSError:
            pass
        if self.link.is_symlink() or not self.link.exists():
            self.link.unlink(missing_ok=True)
            self.link.symlink_to(target, target_is_directory=True)

    def _listing(self) -> dict[str, _Entry]:
        """Every watched entry, by its path relative to the allowed root."""
        found: dict[str, _Entry] = {
            os.path.relpath(self.top, self.root): ("d", 0, self.top.stat().st_mtime_ns)
        }
        pending = [self.top]
        while pending and len(found) < MAX_WATCHED_ENTRIES:
            folder = pending.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                path = Path(entry.path)
                if folder == self.box and entry.name in _SCRATCH:
                    continue
                try:
                    status = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if entry.is_symlink():
                    kind = "l"
                elif entry.is_dir(follow_symlinks=False):
                    kind = "d"
                    pending.append(path)
                else:
                    kind = "f"
                size = 0 if kind == "d" else status.st_size
                found[os.path.relpath(path, self.root)] = (kind, size, status.st_mtime_ns)
        return found

    def escaped_writes(self) -> tuple[str, ...]:
        """The watched paths created, removed or changed since the layout (sorted); the
        layout is restored when there are any."""
        now = self._listing()
        if now == self._laid:
            self._keep_link()
            return ()
        laid = self._laid
        changed = {path for path in now.keys() | laid.keys() if now.get(path) != laid.get(path)}
        self._restore()
        return tuple(sorted(_named(changed, now, laid)))

    def _restore(self) -> None:
        for entry in list(os.scandir(self.top)):
            if entry.name != "box":
                _remove(Path(entry.path))
        for entry in list(os.scandir(self.box)):
            if entry.name not in _SCRATCH:
                _remove(Path(entry.path))
        self._lay_canaries()
        handlers_own_tree(self.top)
        self._laid = self._listing()

    def close(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)


def placed(config: HandlerConfig) -> tuple[HandlerConfig, Workspace | None]:
    """`config` moved into a fresh workspace when it asks for one (`sandbox`, `fixtures`):
    its working directory the workspace's root, the workspace already made (so a reset
    tool or listing started from it makes no other), its server of its own; else as it is."""
    if config.work_tree is not None or not (config.sandbox or config.fixtures):
        return config, None
    workspace = Workspace(config.fixtures, link=config.sandbox)
    moved = replace(
        config,
        cwd=str(workspace.root),
        work_tree=workspace.work_tree(config.sandbox),
        servers=None,
    )
    return moved, workspace


def _named(changed: set[str], now: dict[str, _Entry], laid: dict[str, _Entry]) -> set[str]:
    """The changed paths, a directory only where nothing changed below it: then a name in
    it came and went during the call (a temporary file written and removed, a rename), and
    it is named with a trailing `/`."""
    named = set()
    for path in changed:
        was, is_now = laid.get(path), now.get(path)
        if was is None or is_now is None or was[0] != "d" or is_now[0] != "d":
            named.add(path)
        elif not any(other.startswith(path + os.sep) for other in changed):
            named.add(path + os.sep)
    return named


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def lay_fixture(source: Path, root: Path) -> None:
    """Copy repository file or directory `source` into `root` under its own name (links
    inside a directory are copied as links, never followed)."""
    target = root / source.name
    try:
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True)
        else:
            shutil.copy2(source, target)
    except OSError as error:
        raise HandlerError(f"cannot lay fixture {source}: {error.strerror or error}") from error


def fixture_digest(source: Path) -> str:
    """sha256 of a fixture: of a file's bytes, or of a directory's every file (relative path
    and content's digest, in sorted order) and link (its target)."""
    if not source.is_dir():
        return hashlib.sha256(_bounded_read(source)).hexdigest()
    digest = hashlib.sha256(b"toolfuzz-fixture-tree/1\0")
    files = 0
    for folder, directories, names in os.walk(source):
        directories.sort()
        for name in sorted(names + [d for d in directories if Path(folder, d).is_symlink()]):
            path = Path(folder, name)
            files += 1
            if files > MAX_FIXTURE_FILES:
                raise HandlerError(f"fixture {source} holds over {MAX_FIXTURE_FILES} files")
            data = os.readlink(path).encode() if path.is_symlink() else _bounded_read(path)
            relative = path.relative_to(source).as_posix()
            digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


def _bounded_read(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_FIXTURE_BYTES:
            raise HandlerError(f"fixture file {path} is over {MAX_FIXTURE_BYTES} bytes")
        return path.read_bytes()
    except OSError as error:
        raise HandlerError(f"cannot read fixture {path}: {error.strerror or error}") from error


class ConfinedHandler(PassesThrough, ManagedHandler):
    """A handler run in a `Workspace`: after every call, what it wrote outside its allowed
    root (when confined) is on the call's outcome; closing removes the workspace."""

    def __init__(self, inner: ManagedHandler, workspace: Workspace, *, watch: bool) -> None:
        self.inner: ManagedHandler = inner
        self.workspace = workspace
        self.watch = watch
        # What starting the handler (or its reset) wrote outside the root belongs to no call.
        self.at_start = workspace.escaped_writes() if watch else ()

    def call(self, arguments: JSONObject) -> Outcome:
        outcome = self.inner.call(arguments)
        if not self.watch:
            return outcome
        with timing.measured("sandbox"):
            escaped = self.workspace.escaped_writes()
        return outcome._replace(escaped_writes=escaped) if escaped else outcome

    def notes(self) -> HandlerNotes:
        notes = self.inner.notes()
        if self.at_start:
            return replace(notes, written_outside_root_at_start=self.at_start[:MAX_REPORTED])
        return notes

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.workspace.close()
