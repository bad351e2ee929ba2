"""Ending every process a handler started, wherever it went (edge; Linux, POSIX fallback).

A handler's helpers may leave its process group: a new session (`setsid`), a double-forked
daemon. Killing the group misses them, and once their parent exits they are re-parented to
init, out of the gate's sight. So the gate makes itself a child subreaper
(`prctl(PR_SET_CHILD_SUBREAPER)`, Linux 3.4+): an orphan anywhere below it is re-parented to
the gate instead, where it can be found (a child of the gate) and reaped. As PID 1 in the
action's container the gate is every orphan's parent anyway.

Which of the gate's children are strays: the gate's own commands (git, effects probes, model
schemas) run in the gate's session, and a process can leave a session but never join another
one, so a child outside the gate's session that is not a live handler process was started
below a handler. Strays are signalled and waited for by pid, never with `waitpid(-1)`, so no
`subprocess` call of the gate ever loses its child's exit status.

Without a subreaper (prctl refused) descendants are tracked through `/proc` while their parent
lives; without `/proc` (macOS) only the handler's process group is ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import signal
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

HAS_PROC = Path("/proc/self/stat").exists()
PR_SET_CHILD_SUBREAPER = 36
TERM_GRACE_S = 0.5
"""How long an escaped helper gets between SIGTERM and SIGKILL."""
_ROUNDS = 3
"""Sweeps per clean-up: a helper may start another while it is being ended."""


class Entry(NamedTuple):
    ppid: int
    sid: int
    state: str


@functools.cache
def become_subreaper() -> bool:
    """Adopt orphans from below (once per process); True when the gate is their reaper."""
    if os.getpid() == 1:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def process_table() -> dict[int, Entry]:
    """The gate and every process below it: pid -> parent, session and state.

    Everything the gate ends is below it (a subreaper's orphans too), so where the kernel
    lists each thread's children the walk reads only the gate's tree, not the whole
    system's; elsewhere every process is read. Empty without /proc.
    """
    if not HAS_PROC:
        return {}
    if not _lists_children():
        pids = (int(name) for name in os.listdir("/proc") if name.isdigit())
        return {pid: entry for pid in pids if (entry := _entry(pid)) is not None}
    table: dict[int, Entry] = {}
    pending = [os.getpid()]
    while pending:
        pid = pending.pop()
        entry = _entry(pid)
        if entry is None or pid in table:
            continue
        table[pid] = entry
        pending.extend(_children(pid))
    return table


def _entry(pid: int) -> Entry | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None  # gone meanwhile
    # The command name may hold spaces and parentheses: fields follow the last ")".
    fields = stat[stat.rfind(b")") + 2 :].split()
    return Entry(int(fields[1]), int(fields[3]), fields[0].decode())


@functools.cache
def _lists_children() -> bool:
    """Does /proc list each thread's children (Linux 3.5+, CONFIG_PROC_CHILDREN)?"""
    return Path(f"/proc/self/task/{os.getpid()}/children").exists()


def _children(pid: int) -> list[int]:
    """The children of every thread of `pid` (an orphan's new parent may be any thread)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


def descendants(roots: Iterable[int], table: Mapping[int, Entry]) -> set[int]:
    """The pids below `roots` (not the roots themselves), following parent links."""
    children: dict[int, list[int]] = {}
    for pid, entry in table.items():
        children.setdefault(entry.ppid, []).append(pid)
    found: set[int] = set()
    pending = list(roots)
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def strays(managed: Iterable[int], table: Mapping[int, Entry]) -> set[int]:
    """The gate's children outside its session that no adapter manages, and their trees."""
    me, session = os.getpid(), os.getsid(0)
    kept = set(managed)
    adopted = {
        pid
        for pid, entry in table.items()
        if entry.ppid == me and entry.sid != session and pid not in kept
    }
    return adopted | descendants(adopted, table)


def end(pids: Iterable[int], grace_s: float = TERM_GRACE_S) -> None:
    """SIGTERM `pids`, give them `grace_s` to exit, SIGKILL the rest; reap the gate's own."""
    everyone = set(pids)
    doomed = set(everyone)
    if not doomed:
        return
    for pid in doomed:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while True:
        _reap(doomed)
        doomed = {pid for pid in doomed if _running(pid)}
        if not doomed or time.monotonic() >= deadline:
            break
        time.sleep(0.01)
    for pid in doomed:
        _signal(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while doomed and time.monotonic() < deadline:
        _reap(doomed)
        doomed = {pid for pid in doomed if _running(pid)}
        if doomed:
            time.sleep(0.01)
    _reap(everyone)  # those that died between a reap and a look


def sweep(
    managed: Iterable[int], before: Iterable[int] = (), grace_s: float = TERM_GRACE_S
) -> None:
    """End `before` (descendants found earlier) and every stray, until none is left."""
    kept = set(managed)
    doomed = set(before) - kept
    for _ in range(_ROUNDS):
        doomed |= strays(kept, process_table())
        if not doomed:
            return
        end(doomed, grace_s)
        doomed = set()


def reap_zombies(managed: Iterable[int]) -> None:
    """Reap strays that already exited (as PID 1, nobody else would)."""
    table = process_table()
    _reap({pid for pid in strays(managed, table) if table[pid].state == "Z"})


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signum)


def _reap(pids: Iterable[int]) -> None:
    """Collect the exit status of those of `pids` that are the gate's exited children."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def _running(pid: int) -> bool:
    """Not yet exited (a zombie counts as exited: it holds no resources but its pid)."""
    if HAS_PROC:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            return False
        return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
