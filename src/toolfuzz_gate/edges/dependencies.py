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
    for found in _dependency_directories(head):
        relative = found.relative_to(head)
        target = base / relative
        if target.parent.is_dir() and not os.path.lexists(target):
            target.symlink_to(found.resolve(), target_is_directory=True)
            lent.append(relative.as_posix())
    return lent


def _dependency_directories(root: Path) -> list[Path]:
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
