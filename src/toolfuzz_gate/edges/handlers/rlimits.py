"""CPU and memory limits for handler processes, where the platform has them (edge; POSIX).

A tiny Python shim sets the limits on itself and then execs the handler's command, so the
limits hold for the handler and nothing runs between fork and exec in the gate's process
(`preexec_fn` is unsafe once the gate has threads). RLIMIT_CPU counts the process's whole
life: a persistent handler that uses it up is killed (a crash) and restarted.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

_SHIM = (
    "import os, resource, sys\n"
    "memory, cpu = int(sys.argv[1]), int(sys.argv[2])\n"
    "if memory: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))\n"
    "if cpu: resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)


def limited(argv: Sequence[str], memory_mb: int | None, cpu_seconds: int | None) -> tuple[str, ...]:
    """`argv`, started under the limits (unchanged when there are none)."""
    if (not memory_mb and not cpu_seconds) or not argv:
        return tuple(argv)
    memory = (memory_mb or 0) * 1024 * 1024
    return (sys.executable, "-c", _SHIM, str(memory), str(cpu_seconds or 0), *argv)
