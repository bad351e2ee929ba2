"""`edges.handlers.confine`: as root, handlers run as their side's unprivileged user; a
sandbox's tree is theirs, so a write out of the allowed root lands and is seen."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.action_env import searchable_by_others
from tests.edges.handlers.test_workspace import FIXTURES, run_policy, sandboxed
from toolfuzz_gate.edges.handlers.confine import (
    HandlerUser,
    base_side,
    confine_handlers,
    confined,
    handler_ids,
)
from toolfuzz_gate.errors import UsageError

as_root = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="needs root on Linux"
)


def test_outside_confinement_nothing_changes() -> None:
    assert confined(["tool", "--x"], {"PATH": "/bin"}) == (["tool", "--x"], {"PATH": "/bin"})


def test_home_and_tmpdir_are_the_handler_s_unless_it_owns_them(tmp_path: Path) -> None:
    user = HandlerUser(os.geteuid(), os.getegid(), tmp_path / "home")
    given = {"HOME": "/nonexistent", "TMPDIR": str(tmp_path), "PATH": "/bin"}
    assert user.environment(given) == {
        "HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path),  # owned by this user: a sandbox's box, kept
        "PATH": "/bin",
    }


@as_root
def test_each_side_runs_as_its_own_user(tmp_path: Path) -> None:
    searchable_by_others(tmp_path)
    with confine_handlers(tmp_path) as confinement:
        assert confinement.user is not None and confinement.note is None
        head, _ = confined(["id"], {})
        with base_side():
            base, _ = confined(["id"], {})
    assert f"--reuid={handler_ids('head')[0]}" in head and "--no-new-privs" in head
    assert f"--reuid={handler_ids('base')[0]}" in base
    assert confined(["id"], {}) == (["id"], {})  # over once the block ends
    assert not confinement.user.home.exists()


@pytest.mark.slow
@as_root
@pytest.mark.parametrize("careful", [True, False])
def test_a_sandboxed_handler_s_escape_is_seen_when_it_runs_as_its_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, careful: bool
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "write_file.json").write_bytes((FIXTURES / "write_file.json").read_bytes())
    searchable_by_others(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    with confine_handlers(tmp_path):
        code, receipt = run_policy(tmp_path, sandboxed("python", careful=careful))
    escaped = [c for c in receipt["counterexamples"] if c["failure"] == "write-outside-root"]
    if careful:
        assert code == 0 and escaped == [], receipt["counterexamples"]
    else:
        assert code == 1
        assert [c["error"]["written"] for c in escaped] == [["../.staging"]]


def test_a_gate_that_is_not_root_says_handlers_run_as_its_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1001)
    with confine_handlers(tmp_path) as confinement:
        assert confined(["tool"], {"HOME": "/home/runner"}) == (["tool"], {"HOME": "/home/runner"})
    assert confinement.user is None
    assert confinement.note is not None and "own user (uid 1001)" in confinement.note


@as_root
def test_a_workspace_the_handler_user_cannot_reach_stops_the_run_first(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "workspace").mkdir(parents=True)
    searchable_by_others(hidden / "workspace")
    hidden.chmod(0o700)
    with pytest.raises(UsageError, match=f"cannot reach the workspace: {hidden} is not searchable"):
        with confine_handlers(hidden / "workspace"):
            raise AssertionError("not reached")
    assert confined(["id"], {}) == (["id"], {})


@as_root
@pytest.mark.parametrize("setpriv", [True, False])
def test_the_switch_drops_the_user_groups_and_capabilities(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setpriv: bool
) -> None:
    """By `setpriv`, or by the Python shim where it is missing."""
    if not setpriv:
        monkeypatch.setattr("toolfuzz_gate.edges.handlers.confine._setpriv", lambda: None)
    searchable_by_others(tmp_path)
    status = "grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status"
    probe = ["/bin/sh", "-c", f"id -u; id -G; {status}"]
    with confine_handlers(tmp_path):
        argv, env = confined(probe, {"PATH": "/usr/bin:/bin"})
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    uid, gid = handler_ids("head")
    assert argv[0].endswith("setpriv") == setpriv
    assert done.stdout.split() == [
        str(uid),
        str(gid),
        "CapPrm:",
        "0000000000000000",
        "CapEff:",
        "0000000000000000",
        "NoNewPrivs:",
        "1",
    ]


@as_root
def test_a_gate_that_became_root_for_the_runner_widens_the_way_to_the_workspace(
    tmp_path: Path,
) -> None:
    """A runner's home may be 0750: only a gate that became root through sudo (`widen`)
    gives others search on the way down, and read on the workspace, for the run."""
    searchable_by_others(tmp_path)
    home = tmp_path / "home"
    workspace = home / "work" / "repo"
    workspace.mkdir(parents=True)
    home.chmod(0o750)
    workspace.chmod(0o750)
    with pytest.raises(UsageError, match="is not searchable by others"):
        with confine_handlers(workspace):
            pass
    with confine_handlers(workspace, widen=True) as confinement:
        assert confinement.widened == (str(home), str(workspace))
        assert home.stat().st_mode & 0o777 == 0o751
        assert workspace.stat().st_mode & 0o777 == 0o755
        head, environment = confined(["test", "-r", str(workspace)], {"PATH": "/usr/bin:/bin"})
        assert subprocess.run(head, env=environment, check=False).returncode == 0
    assert home.stat().st_mode & 0o777 == 0o750  # put back
    assert workspace.stat().st_mode & 0o777 == 0o750
