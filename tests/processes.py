"""Process checks shared by the handler tests: is a pid gone, which children does it have."""

from __future__ import annotations

import os
import time
from pathlib import Path

HAS_PROC = Path("/proc/self/stat").exists()


def alive(pid: int) -> bool:
    if HAS_PROC:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            return False
        return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def process_gone(pid: int, within_s: float = 5.0) -> bool:
    """True once `pid` is no live process; a zombie waiting for its reaper counts as gone."""
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def children_of(pid: int) -> set[int]:
    """The pids whose parent is `pid` (Linux /proc)."""
    found = set()
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(status.parent.name))
    return found
