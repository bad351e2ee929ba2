"""How the action's gate comes to confine handlers (`edges.privileges`): the decision, the
sudo probe, the carrier that crosses sudo's environment reset (real exec), and handing
the output back. The whole path through a real sudo runs in
`tests/cli/test_action_confine.py` and `tests/cli/test_action_composite.py`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolfuzz_gate.edges import privileges
from toolfuzz_gate.edges.privileges import SAME_USER_NOTE, Standing, choose
from toolfuzz_gate.edges.secrets import CARRIER_VARIABLE, TOKEN_VARIABLE


@pytest.mark.parametrize(
    ("linux", "euid", "sudo_works", "expected"),
    [
        (True, 0, False, Standing.ROOT),  # the container: setpriv
        (True, 0, True, Standing.ROOT),  # root never goes through sudo
        (True, 1001, True, Standing.SUDO),  # a hosted runner: sudo -n, then setpriv
        (True, 1001, False, Standing.SAME_USER),  # self-hosted without sudo, a laptop
        (False, 501, True, Standing.SAME_USER),  # macOS: no setpriv, no /proc to guard
    ],
)
def test_the_standing_follows_root_then_sudo_then_nothing(
    linux: bool, euid: int, sudo_works: bool, expected: Standing
) -> None:
    assert choose(linux=linux, euid=euid, sudo_works=sudo_works) is expected


def test_without_a_sudo_program_sudo_does_not_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert privileges.sudo_works() is False


def test_a_refusing_sudo_does_not_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `sudo` that asks for a password (exit 1, as `sudo -n` does) is no way up."""
    fake = tmp_path / "sudo"
    fake.write_text("#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert privileges.sudo_works() is False


def test_the_same_user_note_names_what_handlers_can_then_do() -> None:
    note = SAME_USER_NOTE.format(uid=1001)
    assert note.startswith("handlers run as the gate's own user (uid 1001)")
    for consequence in (
        "write the workspace, the output directory and the gate's virtual environment",
        "append to the runner's file commands",
        "groups (docker) and sudo rules",
        "fails the run naming what a handler changed",
    ):
        assert consequence in note


RECEIVER = """
import json, os, sys
from toolfuzz_gate.edges import privileges, secrets
carrier = os.dup(0)  # as sudo, the gate's parent, keeps it
got = secrets.withhold_secrets(os.environ, ["action"])
with open("/proc/self/environ", "rb") as handle:
    started_with = handle.read().decode()
print(json.dumps({
    "got": got,
    "os_environ": dict(os.environ),
    "started_with": started_with,
    "stdin": os.readlink("/proc/self/fd/0"),
    "carrier_bytes": os.fstat(carrier).st_size,
    "invoker": privileges.invoker(),
}))
"""

SENDER = """
import os, sys
from toolfuzz_gate.edges import privileges, secrets
# sudo's part, without root: a reset environment holding only the carrier variable, and
# the standard input passed on (sudo closes every other descriptor)
privileges.sudo_prefix = lambda name: ["/usr/bin/env", "-i", name + "=0"]
withheld = {name for name in os.environ if secrets.is_secret(name)}
secrets._reexecute(os.environ, withheld, [sys.executable, "-c", sys.argv[1]], True)
"""


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux /proc")
def test_the_job_s_environment_and_the_secrets_cross_an_environment_reset() -> None:
    """What `sudo -n` does to the re-executed gate (`env -i`: nothing of the environment
    survives but what the command line sets) is undone from the carrier on stdin; the
    secrets stay out of the new process's starting environment and its command line."""
    token = "ghs_carriedTokenNeverInAnEnvironment0123"
    environ = {
        "PATH": os.environ["PATH"],
        "GITHUB_WORKSPACE": "/nowhere",
        "INPUT_POLICY": "toolfuzz-gate.yml",
        TOKEN_VARIABLE: token,
        "ACTIONS_RUNTIME_TOKEN": "runtime-secret-0123",
        "MULTI": "line one\nline two=with equals",
        "PYTHONPATH": os.pathsep.join(sys.path),  # the receiver imports this checkout
    }
    done = subprocess.run(
        [sys.executable, "-c", SENDER, RECEIVER],
        env=environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    # what the gate works with: the job's environment and, in memory, the token
    assert found["got"][TOKEN_VARIABLE] == token
    assert found["got"]["MULTI"] == environ["MULTI"]
    assert found["got"]["GITHUB_WORKSPACE"] == "/nowhere"
    assert found["got"]["ACTIONS_RUNTIME_TOKEN"] == "runtime-secret-0123"  # as the token
    # the process's own environment (what git and PATH lookups see): the job's, no secret
    assert found["os_environ"]["GITHUB_WORKSPACE"] == "/nowhere"
    assert CARRIER_VARIABLE not in found["os_environ"]
    assert TOKEN_VARIABLE not in found["os_environ"]
    assert "ACTIONS_RUNTIME_TOKEN" not in found["os_environ"]
    # what it was started with (readable in /proc): the reset environment, the carrier's name
    assert found["started_with"] == f"{CARRIER_VARIABLE}=0\0"
    assert found["stdin"] == os.devnull  # the carrier is gone from its standard input,
    assert found["carrier_bytes"] == 0  # and emptied for whoever still holds it
    assert found["invoker"] is None  # not root through sudo: nothing to hand back


def test_a_carrier_on_stdin_that_is_a_terminal_or_socket_is_not_read() -> None:
    """Only the pipe the gate made, or the nameless file on stdin, is a carrier."""
    import socket

    from toolfuzz_gate.edges.secrets import _read_pipe

    left, right = socket.socketpair()
    with left, right:
        right.sendall(b'{"secrets": {}, "environ": {"PATH": "/evil"}}')
        assert _read_pipe(str(left.fileno())) == ""


def test_hand_back_gives_the_output_to_the_user_who_ran_sudo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving files to another user needs root")
    top = tmp_path / "results"
    (top / "base").mkdir(parents=True)
    (top / "base" / "tool.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.write_text("")
    (top / "link").symlink_to(outside)
    privileges.hand_back(top)  # no invoker: nothing changes
    assert {path.lstat().st_uid for path in [top, *top.rglob("*")]} == {0}
    monkeypatch.setattr(privileges, "_invoker", [(64941, 64941)])
    privileges.hand_back(top)
    assert {path.lstat().st_uid for path in [top, *top.rglob("*")]} == {64941}
    assert outside.stat().st_uid == 0  # a link is not followed


@pytest.mark.parametrize(("mode", "elevates"), [("run", True), ("", True), ("report", False)])
def test_only_a_run_goes_through_sudo(
    monkeypatch: pytest.MonkeyPatch, mode: str, elevates: bool
) -> None:
    """`mode: report` runs nothing from the pull request: no handler to confine, so the
    gate stays the runner's user even where it could sudo."""
    from toolfuzz_gate.edges import secrets

    monkeypatch.setattr(privileges, "standing", lambda: Standing.SUDO)
    monkeypatch.delenv(CARRIER_VARIABLE, raising=False)
    started: list[bool] = []

    def reexecute(environ: object, withheld: object, command: object, elevate: bool) -> None:
        started.append(elevate)
        raise SystemExit(0)  # stands for the exec

    monkeypatch.setattr(secrets, "_reexecute", reexecute)
    environ = {"PATH": "/usr/bin", "INPUT_MODE": mode, "GITHUB_WORKSPACE": "/nowhere"}
    if elevates:
        with pytest.raises(SystemExit):
            secrets.withhold_secrets(environ, ["action"])
        assert started == [True]
    else:
        assert secrets.withhold_secrets(environ, ["action"]) == environ
        assert started == []


PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE, text=True)
print(child.pid, child.stdout.readline().strip(), flush=True)
time.sleep(60)
"""

ARMED = """
import time
from toolfuzz_gate.edges import privileges
print("armed" if privileges.die_with_parent() else "unarmed", flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_gate_whose_sudo_is_killed_ends_itself() -> None:
    """The runner cancels a step by killing its processes as the runner's user: sudo (its
    real uid is the runner's) dies, the root gate below it must not live on. Here a plain
    parent stands for sudo, killed with SIGKILL (no relay)."""
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, ARMED], stdout=subprocess.PIPE, text=True, env=environ
    )
    child = None
    try:
        assert parent.stdout is not None
        pid_text, state = parent.stdout.readline().split()
        child = int(pid_text)
        assert state == "armed"
        assert _alive(child)
        parent.kill()
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _alive(child)
    finally:
        parent.kill()
        parent.wait(timeout=10)
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)


def test_the_root_gate_s_installation_is_closed_to_others(tmp_path: Path) -> None:
    """A handler's user is an "other": what it could write in the gate's installation, a
    later gate step would run as root."""
    if os.geteuid() != 0:
        pytest.skip("sealing is done by the gate that became root")
    venv = tmp_path / "venv"
    (venv / "lib" / "site").mkdir(parents=True)
    module = venv / "lib" / "site" / "gate.py"
    module.write_text("")
    outside = tmp_path / "outside"
    outside.write_text("")
    outside.chmod(0o666)
    (venv / "lib" / "link").symlink_to(outside)
    for path in (venv / "lib", venv / "lib" / "site", module):
        path.chmod(path.stat().st_mode | 0o022)
    changed = privileges.seal(venv)
    assert set(changed) == {venv / "lib", venv / "lib" / "site", module}
    modes = {path: path.lstat().st_mode & 0o777 for path in [venv, *venv.rglob("*")]}
    assert not [path for path, mode in modes.items() if mode & 0o002 and not path.is_symlink()]
    assert module.stat().st_mode & 0o777 == 0o664  # the group's write is the owner's business
    assert outside.stat().st_mode & 0o777 == 0o666  # a link is not followed
    assert privileges.seal(venv) == []
