"""Dependencies git does not track, lent to the base's worktree (edge).

A fresh `git worktree` holds only tracked files, so a Node server's `node_modules` (or a
Python project's in-tree virtual environment) is missing there and the base's server
could not start: every base tool would be refused and every head finding called new.
The head's copies are linked in at the same place instead, read-only by convention: the
base runs its own code with the head's installed dependencies (a pull request that only
changes a lockfile is compared with its own dependencies on both sides; the README says
so).
"""

from __future__ import annotations

import os
from pathlib import Path

DEPENDENCY_DIRECTORIES = ("node_modules", ".venv", "venv")
"""Names of directories that hold installed dependencies, never source under review."""
MAX_DEPTH = 3
"""How deep below the repository root they are looked for (a monorepo's packages)."""
_SKIPPED = frozenset({".git", *DEPENDENCY_DIRECTORIES})


def lend_dependencies(head: Path, base: Path) -> list[str]:
    """Link each dependency directory under `head` that `base` lacks, where its parent
    exists in `base`; the linked paths, relative to the root, in order."""
    lent: list[str] = []
    for found in dependency_directories(head):
        relative = found.relative_to(head)
        target = base / relative
        if target.parent.is_dir() and not os.path.lexists(target):
            target.symlink_to(found.resolve(), target_is_directory=True)
            lent.append(relative.as_posix())
    return lent


def dependency_directories(root: Path) -> list[Path]:
    """The dependency directories under `root` (not below one another, nor in `.git`)."""
    found: list[Path] = []
    level = [root]
    for _ in range(MAX_DEPTH):
        below: list[Path] = []
        for directory in level:
            try:
                entries = sorted(directory.iterdir())
            except OSError:
                continue
            for entry in entries:
                if not entry.is_dir() or entry.is_symlink():
                    continue
                if entry.name in DEPENDENCY_DIRECTORIES:
                    found.append(entry)
                elif entry.name not in _SKIPPED:
                    below.append(entry)
        level = below
    return found


MAX_FINGERPRINTED = 500_000
"""Entries read at most; past it the rest of the tree is one "too large" entry."""
Fingerprint = dict[str, tuple[object, ...]]


def fingerprint_dependencies(head: Path) -> Fingerprint:
    """What could be lent (`lend_dependencies`), entry by entry: type, mode, size, times
    and inode, link targets. The change time (ctime) moves on every write and cannot be
    set back, so a file rewritten and dated back still differs."""
    found: Fingerprint = {}
    for directory in dependency_directories(head):
        for top, directories, files in os.walk(directory):
            for name in sorted([*directories, *files]):
                path = os.path.join(top, name)
                relative = os.path.relpath(path, head)
                if len(found) >= MAX_FINGERPRINTED:
                    found["(too many entries)"] = ()
                    return found
                try:
                    info = os.lstat(path)
                    link = os.readlink(path) if os.path.islink(path) else ""
                except OSError:
                    continue
                found[relative] = (
                    info.st_mode,
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ctime_ns,
                    info.st_ino,
                    link,
                )
    return found


def changed_entries(before: Fingerprint, after: Fingerprint) -> list[str]:
    """The entries added, removed or changed between two fingerprints, sorted."""
    return sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
