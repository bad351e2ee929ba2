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
import json
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from toolfuzz_gate.edges.handlers.environment import is_refused

TOKEN_VARIABLE = "INPUT_GITHUB-TOKEN"
CARRIER_VARIABLE = "TOOLFUZZ_GATE_SECRET_FD"
"""Names the pipe the re-executed entrypoint reads its token from (never the token)."""
MAX_TOKEN_BYTES = 4096
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

    The first call in a process whose environment holds a secret does not return: it
    re-executes `python -m toolfuzz_gate ARGV` without the secrets. The re-executed process
    reads them from the pipe, removes the carrier variable and returns."""
    make_undumpable()
    carrier = environ.get(CARRIER_VARIABLE)
    if carrier is not None:
        kept = {k: v for k, v in environ.items() if k != CARRIER_VARIABLE and not is_secret(k)}
        os.environ.pop(CARRIER_VARIABLE, None)
        return {**kept, **_read_carrier(carrier)}
    withheld = {name for name in environ if is_secret(name)} | model_key_variables(environ)
    if os.name != "posix" or not withheld:
        return dict(environ)
    _reexecute(environ, withheld, argv)
    raise AssertionError("unreachable: exec does not return")


def _reexecute(environ: Mapping[str, str], withheld: set[str], argv: Sequence[str]) -> None:
    secrets = {name: environ[name] for name in sorted(withheld) if environ.get(name)}
    payload = json.dumps(secrets).encode("utf-8", "replace")
    if len(payload) > MAX_TOKEN_BYTES:  # never cut a secret: the token alone, then nothing
        payload = json.dumps({TOKEN_VARIABLE: environ.get(TOKEN_VARIABLE, "")}).encode()
        payload = payload if len(payload) <= MAX_TOKEN_BYTES else b"{}"
    read_end, write_end = os.pipe()  # a pipe holds 4 KiB without a reader
    try:
        os.write(write_end, payload)
    finally:
        os.close(write_end)
    os.set_inheritable(read_end, True)
    clean = {k: v for k, v in environ.items() if k not in withheld}
    clean[CARRIER_VARIABLE] = str(read_end)
    sys.stdout.flush()
    sys.stderr.flush()
    # -P: the current directory is the pull request's checkout; nothing is imported from it
    os.execve(sys.executable, [sys.executable, "-P", "-m", "toolfuzz_gate", *argv], clean)


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


def _read_carrier(value: str) -> dict[str, str]:
    text = _read_pipe(value)
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str) and v}


def _read_pipe(value: str) -> str:
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
