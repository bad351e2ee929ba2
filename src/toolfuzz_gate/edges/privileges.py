"""How the action's gate comes to run handlers as unprivileged users (edge; Linux).

Handlers run as users of their own only where the gate is root (`handlers.confine`). In the
action's container it is. In the composite action it is the runner's user (`runner` on a
GitHub-hosted runner), who may `sudo` without a password and is in the `docker` group; a
handler running as that user could become root, talk to the Docker daemon, append to the
runner's file commands and rewrite the gate's own virtual environment. So where the gate
is not root but `sudo -n` works, the entrypoint re-executes itself as root through
`sudo -n` (`choose`, then `edges.secrets`), and the root gate confines handlers as the
container's does. sudo resets the environment: the job's (without the secrets) and the
secrets cross in the carrier `edges.secrets` reads, never on a command line.

The root gate ends itself when sudo dies (a cancelled step: the runner kills what it can
reach, sudo, not the root gate), closes its own installation to writes by others (a later
gate step runs it as root), and hands what it wrote in the workspace (the output directory)
back to the user who ran sudo at the end (`hand_back`), as the runner's later steps and its
clean-up of the workspace run as that user. Where neither root nor sudo is available (a self-hosted
runner without sudo, a laptop), handlers run as the gate's own user and the gate says so,
with what that lets them do (`SAME_USER_NOTE`).
"""

from __future__ import annotations

import ctypes
import enum
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

SUDO_CHECK_TIMEOUT_S = 10.0
_PR_SET_PDEATHSIG = 1


class Standing(enum.Enum):
    """Where the gate stands, and so how its handlers are confined."""

    ROOT = "root"
    """Root already (the container): handlers as `toolfuzz-handler`/`toolfuzz-base`."""
    SUDO = "sudo"
    """An ordinary user with passwordless sudo (a hosted runner): become root first."""
    SAME_USER = "same-user"
    """Neither: handlers run as the gate's own user."""


def choose(*, linux: bool, euid: int, sudo_works: bool) -> Standing:
    """The gate's standing from what this machine allows (pure)."""
    if not linux:
        return Standing.SAME_USER
    if euid == 0:
        return Standing.ROOT
    return Standing.SUDO if sudo_works else Standing.SAME_USER


def standing() -> Standing:
    """This process's standing (asks sudo only when not root on Linux)."""
    linux = sys.platform.startswith("linux") and hasattr(os, "geteuid")
    euid = os.geteuid() if linux else -1
    if not linux or euid == 0:
        return choose(linux=linux, euid=euid, sudo_works=False)
    return choose(linux=linux, euid=euid, sudo_works=sudo_works())


def sudo_works() -> bool:
    """Does `sudo -n true` succeed: no password, no terminal, not refused?"""
    sudo = shutil.which("sudo")
    if sudo is None:
        return False
    try:
        done = subprocess.run(
            [sudo, "-n", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=SUDO_CHECK_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def sudo_prefix(carrier_variable: str) -> list[str]:
    """What starts a command as root with only `carrier_variable`=0 added to sudo's reset
    environment (the carrier is the command's standard input)."""
    sudo = shutil.which("sudo") or "sudo"
    env = shutil.which("env") or "/usr/bin/env"
    return [sudo, "-n", "--", env, f"{carrier_variable}=0"]


_invoker: list[tuple[int, int]] = []
"""The uid and gid that ran the gate through sudo, once the root gate knows it."""


def became_root(real_environ: Mapping[str, str]) -> None:
    """Called first by the gate re-executed through sudo (`real_environ`: what sudo gave
    it): who ran sudo, an end with sudo, and its own installation closed to others."""
    note_invoker(real_environ)
    die_with_parent()
    seal(Path(sys.prefix))


def seal(top: Path) -> list[Path]:
    """Nothing at or below `top` (the gate's installation: a later gate step in the job
    runs it, as root) writable by others, which the handlers' users are; what was changed.
    Links are not followed."""
    changed: list[Path] = []
    if os.geteuid() != 0 or not top.is_dir():
        return changed
    for folder, directories, files in os.walk(top):
        for path in [Path(folder), *(Path(folder, name) for name in [*directories, *files])]:
            info = path.lstat()
            if not stat.S_ISLNK(info.st_mode) and info.st_mode & stat.S_IWOTH:
                os.chmod(path, stat.S_IMODE(info.st_mode) & ~stat.S_IWOTH)
                changed.append(path)
    return changed


def note_invoker(real_environ: Mapping[str, str]) -> None:
    """Who ran sudo (its SUDO_UID and SUDO_GID), for `hand_back`."""
    uid, gid = real_environ.get("SUDO_UID", ""), real_environ.get("SUDO_GID", "")
    if os.geteuid() == 0 and uid.isdigit() and gid.isdigit() and int(uid) != 0:
        _invoker[:] = [(int(uid), int(gid))]


def die_with_parent() -> bool:
    """SIGTERM to this process when its parent (sudo) dies: the runner ends a cancelled
    step's processes as its own user, which reaches sudo but not the root gate below it,
    so a gate whose sudo was killed ends itself and its handlers. True when in force."""
    if not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if int(libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent:  # it died before the request: nobody will send the signal
        os.kill(os.getpid(), signal.SIGTERM)
    return True


def invoker() -> tuple[int, int] | None:
    """The user this gate became root for (through sudo), or None."""
    return _invoker[0] if _invoker else None


def hand_back(top: Path) -> None:
    """`top` and everything below it owned by the user who ran sudo, when the gate became
    root through sudo (else nothing): the runner's later steps, and its clean-up of the
    workspace, run as that user. Links are not followed."""
    found = invoker()
    if found is None or not top.is_dir() or top.is_symlink():
        return
    uid, gid = found
    for folder, directories, files in os.walk(top):
        os.chown(folder, uid, gid, follow_symlinks=False)
        for name in [*directories, *files]:
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


SAME_USER_NOTE = (
    "handlers run as the gate's own user (uid {uid}): the gate is not root and cannot sudo "
    "without a password, so it cannot run them as an unprivileged user. They can do what "
    "this user can: write the workspace, the output directory and the gate's virtual "
    "environment (which a later gate step in the job would run), append to the runner's "
    "file commands, and use this user's groups (docker) and sudo rules; the gate puts "
    "back the file commands and checks the base's dependencies after them, and fails the "
    "run naming what a handler changed"
)
"""Said in the log (a warning annotation, listed on the run's summary page)."""
