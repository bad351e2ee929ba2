"""Handlers as an unprivileged user when the gate runs as root (edge; Linux).

In the action's container the gate is root with every capability, and a handler is the
pull request's code: as root it could read the gate's environment and memory
(`/proc/<pid>/environ`, where the model's key may still be), write the output directory,
the runner's file commands and the dependencies lent to the base, or reach the Docker
socket. So while `confine_handlers` is in force every process the gate starts for a
handler (`WorkerProcess`: handlers, servers, pydantic models; `run_helper`: the reset and
effects commands a policy names) runs as the user `toolfuzz-handler`, the base's as
`toolfuzz-base` (the action's image creates both; `FALLBACK_ID` and `BASE_FALLBACK_ID`
where no such users exist): no supplementary groups, no capabilities, no-new-privileges
(setuid programs and file capabilities grant nothing). Two users, so that the head's
handlers cannot signal or trace the base's while both run at once.
It reads what others may read (the workspace, the base's worktree, the installed
runtimes) and writes its own home (its HOME and TMPDIR, removed afterwards), the
scratch directories the gate makes for it (`handlers_own`) and world-writable places. It
cannot read a root process's `/proc` entries, signal the gate, or open what only root or
the runner's user may (the Docker socket, the file-command directory, which the gate
closes to others for the run with the listing of `RUNNER_TEMP`: `withhold`).

The switch is made in the child, after fork, by util-linux's `setpriv` exec'd before the
handler's command (nothing runs between fork and exec in the gate's process: it has
threads), else by a small Python shim doing the same. On a runner whose user may sudo the
gate became root before this (`edges.privileges`); there the directories down to the
workspace are made searchable by others for the run (a runner's home may be 0750) and put
back after. Where the gate is not root it cannot switch users, and `confine_handlers` says
so: handlers then run as the gate's user.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import grp
import os
import pwd
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolfuzz_gate.edges.privileges import SAME_USER_NOTE
from toolfuzz_gate.errors import UsageError

HANDLER_USER = "toolfuzz-handler"
FALLBACK_ID = 64930
"""The uid and gid the head's handlers run as where no `toolfuzz-handler` user exists."""
BASE_USER = "toolfuzz-base"
BASE_FALLBACK_ID = 64931
"""The same for the base's handlers: another user, so that the head's handlers cannot
signal, trace or write to the base's while both run at once."""
SIDES = {"head": (HANDLER_USER, FALLBACK_ID), "base": (BASE_USER, BASE_FALLBACK_ID)}

_SHIM = (
    "import ctypes, os, sys\n"
    "uid, gid = int(sys.argv[1]), int(sys.argv[2])\n"
    "if ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) != 0:\n"  # NO_NEW_PRIVS
    "    sys.exit('toolfuzz-gate: cannot set no-new-privileges')\n"
    "os.setgroups([])\n"
    "os.setresgid(gid, gid, gid)\n"
    "os.setresuid(uid, uid, uid)\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)


@dataclass(frozen=True)
class HandlerUser:
    """Who handlers run as, and their home (HOME and TMPDIR)."""

    uid: int
    gid: int
    home: Path

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """`argv`, started as this user with no capabilities and no-new-privileges."""
        setpriv = _setpriv()
        if setpriv is not None:
            return [
                setpriv,
                f"--reuid={self.uid}",
                f"--regid={self.gid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--no-new-privs",
                "--",
                *argv,
            ]
        return [sys.executable, "-c", _SHIM, str(self.uid), str(self.gid), *argv]

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` with HOME and TMPDIR in the handler's own home, unless they already name
        a directory the gate gave this user (a sandbox's box): the gate's are not its."""
        result = dict(env)
        for name in ("HOME", "TMPDIR"):
            if not self._owns(result.get(name)):
                result[name] = str(self.home)
        return result

    def _owns(self, path: str | None) -> bool:
        try:
            return path is not None and os.stat(path).st_uid == self.uid
        except OSError:
            return False


@dataclass(frozen=True)
class Confinement:
    """What `confine_handlers` put in force: the user, or why there is none."""

    user: HandlerUser | None
    note: str | None = None
    """Why handlers run as the gate's own user (None when they do not)."""
    widened: tuple[str, ...] = ()
    """Directories made searchable by others for the run (`widen`), put back after."""
    withheld: tuple[str, ...] = ()
    """The runner's directories closed to others for the run (`withhold`), put back after."""


_in_force: dict[str, HandlerUser] = {}
_side: contextvars.ContextVar[str] = contextvars.ContextVar("toolfuzz_side", default="head")
"""Which side's handlers the current thread starts (`base_side`; `app.jobs` carries it
into its worker threads)."""


def _user() -> HandlerUser | None:
    return _in_force.get(_side.get())


def confined(argv: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
    """A handler process's command and environment: as its side's handler user while
    `confine_handlers` is in force, else unchanged."""
    user = _user()
    if user is None:
        return list(argv), dict(env)
    return user.wrap(argv), user.environment(env)


def handlers_own(directory: str) -> str:
    """`directory` (a scratch directory the gate made for a handler), given to its side's
    handler user while `confine_handlers` is in force; returned as is."""
    user = _user()
    if user is not None:
        os.chown(directory, user.uid, user.gid)
    return directory


def handlers_own_tree(top: Path) -> None:
    """Everything at and below `top` (a sandbox's tree: `workspace`), given to the current
    side's handler user while `confine_handlers` is in force: a write out of the allowed
    root must land, to be seen, not fail. Links are not followed."""
    user = _user()
    if user is None:
        return
    for folder, directories, files in os.walk(top):
        os.chown(folder, user.uid, user.gid)
        for name in [*directories, *files]:
            os.chown(os.path.join(folder, name), user.uid, user.gid, follow_symlinks=False)


@contextlib.contextmanager
def base_side() -> Iterator[None]:
    """The handlers started inside (in this thread) are the base's."""
    token = _side.set("base")
    try:
        yield
    finally:
        _side.reset(token)


@contextlib.contextmanager
def confine_handlers(
    workspace: Path, *, widen: bool = False, withhold: Sequence[tuple[Path, int]] = ()
) -> Iterator[Confinement]:
    """Every handler started inside runs as its side's handler user, when the gate is
    root on Linux; `workspace` must be readable by them, or (`widen`: the gate became root
    for the runner's user) is made so for the run. Each directory of `withhold` loses the
    permission bits for others it names for the run (`edges.runner_files.runner_private`),
    but search where the workspace or the gate's own installation lies below it. Not
    reentrant."""
    if not sys.platform.startswith("linux") or not hasattr(os, "geteuid"):
        yield Confinement(None, f"handlers run as the gate's own user ({sys.platform})")
        return
    if os.geteuid() != 0:
        yield Confinement(None, SAME_USER_NOTE.format(uid=os.geteuid()))
        return
    users: dict[str, HandlerUser] = {}
    widened = _widen(workspace) if widen else []
    withheld: list[tuple[Path, int]] = []
    try:
        withheld = _withhold(withhold, (workspace, Path(__file__)))
        for side in SIDES:
            uid, gid = handler_ids(side)
            _require_reachable(workspace, uid, gid)
            home = Path(tempfile.mkdtemp(prefix=f"toolfuzz-{side}-home-"))
            users[side] = HandlerUser(uid, gid, home)
            os.chown(home, uid, gid)
        _in_force.update(users)
        yield Confinement(
            users["head"],
            widened=tuple(str(path) for path, _ in widened),
            withheld=tuple(str(path) for path, _ in withheld),
        )
    finally:
        _in_force.clear()
        for user in users.values():
            shutil.rmtree(user.home, ignore_errors=True)
        for path, mode in [*reversed(withheld), *reversed(widened)]:
            with contextlib.suppress(OSError):
                os.chmod(path, mode)


def _widen(workspace: Path) -> list[tuple[Path, int]]:
    """Search for others on the directories down to `workspace`, and read too on it, where
    they lack them; each changed directory with its mode before."""
    top = workspace.resolve()
    changed: list[tuple[Path, int]] = []
    for directory in (*reversed(top.parents), top):
        mode = stat.S_IMODE(directory.stat().st_mode)
        wanted = mode | stat.S_IXOTH | (stat.S_IROTH if directory == top else 0)
        if wanted != mode:
            os.chmod(directory, wanted)
            changed.append((directory, mode))
    return changed


def _withhold(
    places: Sequence[tuple[Path, int]], reached: Sequence[Path]
) -> list[tuple[Path, int]]:
    """Take the named bits for others away on each directory, never through a link: all
    of them, but search (and reading, on the place itself) where a path handlers must
    reach lies at or below it; each changed directory with its mode before."""
    changed: list[tuple[Path, int]] = []
    for directory, bits in places:
        if directory.is_symlink() or not directory.is_dir():
            continue
        for path in (item.resolve() for item in reached):
            if directory.resolve() == path:
                bits &= ~(stat.S_IXOTH | stat.S_IROTH)
            elif directory.resolve() in path.parents:
                bits &= ~stat.S_IXOTH
        mode = stat.S_IMODE(directory.lstat().st_mode)
        if mode & bits:
            os.chmod(directory, mode & ~bits)
            changed.append((directory, mode))
    return changed


def handler_ids(side: str = "head") -> tuple[int, int]:
    """The uid and gid `side`'s handlers run as: its user's (`toolfuzz-handler`,
    `toolfuzz-base`), else its fallback id; never one another account holds."""
    name, fallback = SIDES[side]
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        pass
    else:
        if entry.pw_uid != 0 and entry.pw_gid != 0:
            return entry.pw_uid, entry.pw_gid
    for taken in (_taken_uid(fallback), _taken_gid(fallback)):
        if taken is not None:
            raise UsageError(
                f"handlers cannot run as uid/gid {fallback}: {taken} holds it",
                hint=f"create a user {name!r} for the {side}'s handlers to run as",
            )
    return fallback, fallback


def _taken_uid(uid: int) -> str | None:
    try:
        return f"the user {pwd.getpwuid(uid).pw_name!r}"
    except KeyError:
        return None


def _taken_gid(gid: int) -> str | None:
    try:
        return f"the group {grp.getgrgid(gid).gr_name!r}"
    except KeyError:
        return None


def _require_reachable(workspace: Path, uid: int, gid: int) -> None:
    """Refuse to start when the handler user could not read the workspace: every handler
    would fail to start, each with a confusing error."""
    for directory in (workspace.resolve(), *workspace.resolve().parents):
        if not _allows(directory, uid, gid, search=True):
            raise UsageError(
                f"handlers run as uid {uid}, which cannot reach the workspace: {directory} "
                "is not searchable by others",
                hint="make the directories down to the workspace searchable (chmod o+x), "
                "as a runner's are",
            )
    if not _allows(workspace, uid, gid, search=False):
        raise UsageError(f"handlers run as uid {uid}, which cannot read the workspace")


def _allows(directory: Path, uid: int, gid: int, *, search: bool) -> bool:
    info = directory.stat()
    mode = info.st_mode
    if info.st_uid == uid:
        bit = stat.S_IXUSR if search else stat.S_IRUSR
    elif info.st_gid == gid:
        bit = stat.S_IXGRP if search else stat.S_IRGRP
    else:
        bit = stat.S_IXOTH if search else stat.S_IROTH
    return bool(mode & bit)


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv")
