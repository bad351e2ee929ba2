"""Keep the gate's secrets out of the handlers' reach (edge; the process parts are Linux/POSIX).

Scrubbing a handler's own environment is not enough: a handler that runs as the gate's user
can read the gate's `/proc/<pid>/environ`, which shows the environment the process was
*started* with (unsetting a variable later does not change it). So the action entrypoint
starts over: it re-executes itself without the token and the runner's `ACTIONS_*`
variables, handing the token to the new process through a pipe, and keeps it only in memory.
It also makes itself non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`), so that without
CAP_SYS_PTRACE (Docker does not grant it) no other process of its user can read its memory
or its `/proc` entries.

Where the gate is not root but may sudo without a password (a hosted runner), the same
re-execution goes through `sudo -n` (`edges.privileges`): the new gate is root, so its
handlers run as unprivileged users. sudo resets the environment and closes every descriptor
but the standard ones, so the carrier is the standard input and holds the job's environment
too (without the secrets): nothing crosses on a command line.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from toolfuzz_gate.edges import privileges
from toolfuzz_gate.edges.handlers.environment import is_refused

TOKEN_VARIABLE = "INPUT_GITHUB-TOKEN"
CARRIER_VARIABLE = "TOOLFUZZ_GATE_SECRET_FD"
"""Names the pipe the re-executed entrypoint reads its token from (never the token)."""
MAX_TOKEN_BYTES = 4096
MAX_CARRIED_BYTES = 4 * 1024 * 1024
"""The job's environment carried through sudo: far more than a runner's (tens of KiB)."""
MAX_POLICY_PEEK_BYTES = 256 * 1024
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
    """The entrypoint's environment with the token (as `INPUT_GITHUB-TOKEN`) and the model's
    key (under the name the policy's `llm.api_key_env` gives it), in memory only.

    The first call in a process whose environment holds a secret, or that can become root
    through sudo (`edges.privileges`), does not return: it re-executes `python -m
    toolfuzz_gate ARGV` without the secrets (as root, through sudo, when it can). The
    re-executed process reads them from the carrier, removes the carrier variable and
    returns."""
    make_undumpable()
    carrier = environ.get(CARRIER_VARIABLE)
    if carrier is not None:
        return _received(environ, carrier)
    withheld = {name for name in environ if is_secret(name)} | model_key_variables(environ)
    # a report runs nothing from the pull request: no handler to confine
    running = environ.get("INPUT_MODE", "").strip() != "report"
    elevate = running and os.name == "posix" and privileges.standing() is privileges.Standing.SUDO
    if os.name != "posix" or not (withheld or elevate):
        return dict(environ)
    # -P: the current directory is the pull request's checkout; nothing is imported from it
    _reexecute(environ, withheld, [sys.executable, "-P", "-m", "toolfuzz_gate", *argv], elevate)
    raise AssertionError("unreachable: exec does not return")


def _received(environ: Mapping[str, str], carrier: str) -> dict[str, str]:
    """The re-executed gate's environment: its own, or (through sudo, which reset it) the
    one carried; the secrets from the carrier."""
    secrets, carried = _read_carrier(carrier)
    os.environ.pop(CARRIER_VARIABLE, None)
    base: Mapping[str, str] = environ
    if carried is not None:
        privileges.became_root(environ)
        base = carried
        os.environ.clear()  # what the gate's own calls (PATH lookups, git) see is the job's
        os.environ.update({k: v for k, v in carried.items() if not is_secret(k)})
        _forget_standard_input()
    kept = {k: v for k, v in base.items() if k != CARRIER_VARIABLE and not is_secret(k)}
    return {**kept, **secrets}


def _reexecute(
    environ: Mapping[str, str], withheld: set[str], command: Sequence[str], elevate: bool
) -> None:
    """Execute `command` without the `withheld` variables, which it reads from the carrier;
    `elevate`: as root, through sudo, the job's environment in the carrier too."""
    secrets = {name: environ[name] for name in sorted(withheld) if environ.get(name)}
    payload = json.dumps(secrets).encode("utf-8", "replace")
    if len(payload) > MAX_TOKEN_BYTES:  # never cut a secret: the token alone, then nothing
        payload = json.dumps({TOKEN_VARIABLE: environ.get(TOKEN_VARIABLE, "")}).encode()
        payload = payload if len(payload) <= MAX_TOKEN_BYTES else b"{}"
    clean = {k: v for k, v in environ.items() if k not in withheld}
    sys.stdout.flush()
    sys.stderr.flush()
    if elevate:
        carried = json.dumps({"secrets": json.loads(payload), "environ": clean}).encode()
        _carry_on_standard_input(carried)
        through = privileges.sudo_prefix(CARRIER_VARIABLE)
        os.execv(through[0], [*through, *command])
    read_end, write_end = os.pipe()  # a pipe holds 4 KiB without a reader
    try:
        os.write(write_end, payload)
    finally:
        os.close(write_end)
    os.set_inheritable(read_end, True)
    clean[CARRIER_VARIABLE] = str(read_end)
    os.execve(command[0], list(command), clean)


def _carry_on_standard_input(data: bytes) -> None:
    """`data` as the standard input of what this process executes next: a file with no
    name (only the descriptor reaches it), rewound."""
    with tempfile.TemporaryFile() as carrier:
        carrier.write(data)
        carrier.flush()
        os.lseek(carrier.fileno(), 0, os.SEEK_SET)
        os.dup2(carrier.fileno(), 0)


def _forget_standard_input() -> None:
    """The carrier was the standard input: emptied (sudo, the gate's parent, still holds
    it open for the step's length) and /dev/null from now on."""
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.fstat(0).st_mode):
            os.ftruncate(0, 0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def model_key_variables(environ: Mapping[str, str]) -> set[str]:
    """The variable the workspace's policy names as the model's key (`llm.api_key_env`),
    when the environment holds it: read before anything else runs, so it leaves the
    process environment as the token does. The policy is the pull request's file; the
    base's name is enforced by value later (`app.model_key`)."""
    workspace = Path(environ.get("GITHUB_WORKSPACE") or ".")
    policy = workspace / (environ.get("INPUT_POLICY") or "toolfuzz-gate.yml")
    try:
        with policy.open("rb") as handle:
            document = yaml.safe_load(handle.read(MAX_POLICY_PEEK_BYTES))
    except (OSError, yaml.YAMLError, ValueError, RecursionError):
        return set()
    llm = document.get("llm") if isinstance(document, dict) else None
    name = llm.get("api_key_env") if isinstance(llm, dict) else None
    return {name} if isinstance(name, str) and environ.get(name) else set()


def _read_carrier(value: str) -> tuple[dict[str, str], dict[str, str] | None]:
    """The secrets, and the job's environment when it was carried (through sudo)."""
    text = _read_pipe(value)
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}, None
    if not isinstance(found, dict):
        return {}, None
    carried = None
    if isinstance(found.get("environ"), dict) and isinstance(found.get("secrets"), dict):
        carried, found = _strings(found["environ"]), found["secrets"]
    return {k: v for k, v in _strings(found).items() if v}, carried


def _strings(found: dict[object, object]) -> dict[str, str]:
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def _read_pipe(value: str) -> str:
    if not value.isdigit():
        return ""
    descriptor = int(value)
    chunks: list[bytes] = []
    try:
        mode = os.fstat(descriptor).st_mode
        # the pipe `_reexecute` made, or (through sudo) the nameless file on stdin
        if not (stat.S_ISFIFO(mode) or (descriptor == 0 and stat.S_ISREG(mode))):
            return ""
        limit = MAX_CARRIED_BYTES if descriptor == 0 else MAX_TOKEN_BYTES
        while sum(map(len, chunks)) <= limit:
            chunk = os.read(descriptor, limit + 1)
            if not chunk:
                break
            chunks.append(chunk)
        if descriptor != 0:
            os.close(descriptor)
    except OSError:
        return ""
    data = b"".join(chunks)
    if len(data) > limit:
        return ""  # cut JSON is no environment: start with none rather than part of one
    return data.decode("utf-8", "replace")
