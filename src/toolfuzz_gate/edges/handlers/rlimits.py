"""Memory and CPU limits for handler processes, on by default, and how to tell one was hit
(edge; POSIX).

Memory is RLIMIT_DATA on Linux (4.7+ counts every private writable mapping, so runtimes that
reserve large address ranges without using them, such as V8, Go and the JVM, still start),
RLIMIT_AS elsewhere (macOS enforces neither). CPU is RLIMIT_CPU; on Linux the gate moves the
handler's soft limit before every call to what it has used plus the budget
(`WorkerProcess.write`), so the budget is per call, not per life; processes the handler
starts inherit the limit as it stands when they start. A handler over its CPU budget gets
SIGXCPU.

The limits are set by a program that sets them on itself and then execs the handler's
command, so they hold for the handler and nothing runs between fork and exec in the gate's
process (`preexec_fn` is unsafe once the gate has threads): util-linux's `prlimit` where
Linux has it (a few milliseconds), else a tiny Python shim (a second interpreter start,
tens of milliseconds: paid again on every restart of a handler that crashes).
"""

from __future__ import annotations

import errno
import functools
import os
import re
import resource
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.run_defaults import (
    DEFAULT_CPU_LIMIT_S,
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
)

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MEMORY_RLIMIT = "RLIMIT_DATA" if sys.platform.startswith("linux") else "RLIMIT_AS"

_SHIM = (
    "import os, resource, sys\n"
    "memory, cpu = int(sys.argv[1]), int(sys.argv[2])\n"
    f"if memory: resource.setrlimit(resource.{MEMORY_RLIMIT}, (memory, memory))\n"
    "hard = resource.getrlimit(resource.RLIMIT_CPU)[1]\n"
    "if cpu: resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard))\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)
_OUT_OF_MEMORY = re.compile(
    r"MemoryError|Cannot allocate memory|out of memory|bad_alloc|memory allocation of \d+"
    r"|failed to allocate|ENOMEM",
    re.IGNORECASE,
)
"""What runtimes say when an allocation fails: Python, libc (strerror), Go, V8, C++, Rust."""


@functools.cache
def _prlimit() -> str | None:
    """util-linux's `prlimit`, on Linux where it is installed (None: use the shim)."""
    if not sys.platform.startswith("linux"):
        return None
    return shutil.which("prlimit")


@dataclass(frozen=True)
class Limits:
    """The limits one handler's processes run under; None is no limit."""

    memory_mb: int | None = None
    cpu_s: int | None = None
    processes: int | None = None
    """Counted by the gate while it waits for an answer (`WorkerProcess`), not an rlimit:
    RLIMIT_NPROC counts every process of the user, and nothing for root."""

    @classmethod
    def resolve(
        cls, memory_mb: int | None, cpu_s: int | None, processes: int | None = None
    ) -> Limits:
        """As configured: None takes the default, 0 turns the limit off."""
        memory = DEFAULT_MEMORY_LIMIT_MB if memory_mb is None else memory_mb
        cpu = DEFAULT_CPU_LIMIT_S if cpu_s is None else cpu_s
        count = DEFAULT_PROCESS_LIMIT if processes is None else processes
        return cls(memory or None, cpu or None, count or None)

    @property
    def memory_bytes(self) -> int | None:
        return self.memory_mb * 1024 * 1024 if self.memory_mb else None

    def wrap(self, argv: Sequence[str]) -> tuple[str, ...]:
        """`argv`, started under the limits (unchanged when there are none)."""
        if (not self.memory_mb and not self.cpu_s) or not argv:
            return tuple(argv)
        prlimit = _prlimit()
        if prlimit is not None:
            given = [f"--{MEMORY_RLIMIT[7:].lower()}={self.memory_bytes}"] if self.memory_mb else []
            # `soft:` moves the soft limit only, as the shim does
            given += [f"--cpu={self.cpu_s}:"] if self.cpu_s else []
            return (prlimit, *given, "--", *argv)
        memory = str(self.memory_bytes or 0)
        return (sys.executable, "-c", _SHIM, memory, str(self.cpu_s or 0), *argv)

    def crash(self, message: str, cause: str | None = None) -> Outcome:
        """A crash described by `message` (already bounded), with its `cause` when the
        adapter knows it; at a limit, the limit named first, so every report that shows
        the handler's words shows it too."""
        limit = self.reached(message)
        if limit is not None:
            message = f"{limit} limit reached: {message}"
        return Outcome(OutcomeKind.CRASH, message=message, exhausted=limit, cause=cause)

    def reached(self, message: str) -> str | None:
        """The limit a crash with this description (exit status, stderr tail) ran into."""
        if self.cpu_s and "SIGXCPU" in message:
            return f"cpu {self.cpu_s} s"
        if self.memory_mb and _OUT_OF_MEMORY.search(message):
            return f"memory {self.memory_mb} MB"
        return None


def crowded(limits: Limits) -> Outcome:
    """The outcome of a call during which the handler passed its process limit."""
    limit = f"processes {limits.processes}"
    message = f"{limit} limit reached: the handler had more than {limits.processes} running"
    return Outcome(OutcomeKind.CRASH, message=message, exhausted=limit)


def require_executable(program: str, env: Mapping[str, str], cwd: str) -> None:
    """Raise what `Popen` would for `program` (FileNotFoundError, PermissionError): behind
    the shim, a missing executable would otherwise look like a handler exiting on start."""
    if os.sep in program:
        path: str | None = os.path.join(cwd, program)
    else:
        path = shutil.which(program, path=env.get("PATH", os.defpath))
    if path is None or not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    if os.path.isdir(path) or not os.access(path, os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)


def limited(argv: Sequence[str], memory_mb: int | None, cpu_seconds: int | None) -> tuple[str, ...]:
    """`argv` under exactly these limits (None: none; no defaults applied)."""
    return Limits(memory_mb or None, cpu_seconds or None).wrap(argv)


def allow_cpu(pid: int, budget_s: int) -> None:
    """Let `pid` use `budget_s` more seconds of CPU from now (Linux; nothing elsewhere)."""
    prlimit = getattr(resource, "prlimit", None)
    if prlimit is None:
        return
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
        fields = stat[stat.rfind(b")") + 2 :].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        used = -(-ticks // _CLOCK_TICKS)
        hard = prlimit(pid, resource.RLIMIT_CPU)[1]
        soft = used + budget_s
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        prlimit(pid, resource.RLIMIT_CPU, (soft, hard))
    except (OSError, ValueError, IndexError):
        pass  # gone meanwhile: the call will say so
