"""Keep the gate's secrets out of the handlers' reach (edge; the process parts are Linux/POSIX).

Scrubbing a handler's own environment is not enough: a handler runs as the gate's user, so
it can read the gate's `/proc/<pid>/environ`, which shows the environment the process was
*started* with (unsetting a variable later does not change it). So the action entrypoint
starts over: it re-executes itself without the token and the runner's `ACTIONS_*`
variables, handing the token to the new process through a pipe, and keeps it only in memory.
It also makes itself non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`), so that without
CAP_SYS_PTRACE (Docker does not grant it) no other process of its user can read its memory
or its `/proc` entries.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
from collections.abc import Mapping, Sequence

from toolfuzz_gate.edges.handlers.environment import is_refused

TOKEN_VARIABLE = "INPUT_GITHUB-TOKEN"
CARRIER_VARIABLE = "TOOLFUZZ_GATE_SECRET_FD"
"""Names the pipe the re-executed entrypoint reads its token from (never the token)."""
MAX_TOKEN_BYTES = 4096
_PR_SET_DUMPABLE = 4


def is_secret(name: str) -> bool:
    """Is `name` a variable the gate's own process environment must not keep? The token
    input, GITHUB_TOKEN and the Actions runtime's `ACTIONS_*` (other inputs are harmless)."""
    upper = name.upper()
    return upper == TOKEN_VARIABLE or (is_refused(upper) and not upper.startswith("INPUT_"))


def make_undumpable() -> bool:
    """Mark this process non-dumpable (Linux); True when that worked. Inherited by forks,
    reset by exec: the handlers' own processes stay ordinary."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def withhold_secrets(environ: Mapping[str, str], argv: Sequence[str]) -> dict[str, str]:
    """The entrypoint's environment with the token (as `INPUT_GITHUB-TOKEN`, in memory only).

    The first call in a process whose environment holds a secret does not return: it
    re-executes `python -m toolfuzz_gate ARGV` without the secrets. The re-executed process
    reads the token from the pipe, removes the carrier variable and returns."""
    make_undumpable()
    carrier = environ.get(CARRIER_VARIABLE)
    if carrier is not None:
        kept = {k: v for k, v in environ.items() if k != CARRIER_VARIABLE and not is_secret(k)}
        os.environ.pop(CARRIER_VARIABLE, None)
        token = _read_carrier(carrier)
        return {**kept, TOKEN_VARIABLE: token} if token else kept
    if os.name != "posix" or not any(is_secret(name) for name in environ):
        return dict(environ)
    _reexecute(environ, argv)
    raise AssertionError("unreachable: exec does not return")


def _reexecute(environ: Mapping[str, str], argv: Sequence[str]) -> None:
    token = environ.get(TOKEN_VARIABLE, "").encode("utf-8", "replace")[:MAX_TOKEN_BYTES]
    read_end, write_end = os.pipe()  # a pipe holds 4 KiB without a reader
    try:
        os.write(write_end, token)
    finally:
        os.close(write_end)
    os.set_inheritable(read_end, True)
    clean = {k: v for k, v in environ.items() if not is_secret(k)}
    clean[CARRIER_VARIABLE] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    # -P: the current directory is the pull request's checkout; nothing is imported from it
    os.execve(sys.executable, [sys.executable, "-P", "-m", "toolfuzz_gate", *argv], clean)


def _read_carrier(value: str) -> str:
    if not value.isdigit():
        return ""
    descriptor = int(value)
    chunks: list[bytes] = []
    try:
        if not stat.S_ISFIFO(os.fstat(descriptor).st_mode):
            return ""  # not the pipe `_reexecute` made: read nothing from it
        while sum(map(len, chunks)) <= MAX_TOKEN_BYTES:
            chunk = os.read(descriptor, MAX_TOKEN_BYTES + 1)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(descriptor)
    except OSError:
        return ""
    return b"".join(chunks)[:MAX_TOKEN_BYTES].decode("utf-8", "replace")
