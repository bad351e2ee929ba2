"""A simulated GitHub Actions runner for `toolfuzz-gate action` (test helper): the entrypoint
installed in a clean virtual environment the way the Dockerfile installs it, and one step run
with the runner's variables, event file, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "docker" / "requirements.lock"
_DELIMITED = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)<<(toolfuzz_[0-9a-f]{32})$")


def clean_venv(directory: Path) -> Path:
    """A new virtual environment holding the hash-locked runtime requirements and the
    package, nothing else (as the container image does); returns its directory."""
    venv = directory / "venv"
    _check([sys.executable, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    _check([*pip, "--require-hashes", "--no-deps", "-r", str(LOCK)])
    _check([*pip, "--no-deps", str(ROOT)])
    _check([str(venv / "bin" / "python"), "-m", "pip", "check"])
    return venv


def may_sudo(uid: int | None = None) -> bool:
    """Can user `uid` (None: this process's, when it is not root) run `sudo -n true` here,
    as a hosted runner's user can? Only then does the gate become root through sudo."""
    if uid is None and os.geteuid() == 0:
        return False
    as_user = [] if uid is None else ["setpriv", f"--reuid={uid}", f"--regid={uid}"]
    as_user += ["--clear-groups", "--"] if as_user else []
    try:
        done = subprocess.run(
            [*as_user, "sudo", "-n", "true"], capture_output=True, timeout=30, check=False
        )
    except OSError:
        return False
    return done.returncode == 0


def _check(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{argv[:5]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


class _Server(Protocol):
    @property
    def requests(self) -> Any: ...


@dataclass(frozen=True)
class ActionRun:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    workspace: Path
    delimiters: tuple[str, ...]

    def assert_token_nowhere(self, token: str, github: _Server) -> None:
        """The token is in no stream, output, summary or file, and the server saw it only
        in Authorization headers. (`::add-mask::` hands it to the runner's log masker: the
        one line that must carry it.)"""
        masked = [line for line in self.stdout.splitlines() if token in line]
        assert masked in ([], [f"::add-mask::{token}"]), masked
        assert token not in self.stderr
        assert token not in json.dumps(self.outputs) and token not in self.summary
        for path in self.workspace.rglob("*"):
            if path.is_file() and ".git" not in path.parts:
                assert token.encode() not in path.read_bytes(), path
        for request in github.requests:
            for line in request.lines():
                assert token not in line or line == f"Authorization: Bearer {token}", line


def run_action(
    venv: Path,
    workspace: Path,
    api_url: str,
    event_name: str,
    event: dict[str, Any],
    inputs: dict[str, str],
    repository: str,
    runtime: dict[str, str] | None = None,
    as_user: int | None = None,
) -> ActionRun:
    """One step: `toolfuzz-gate action` from `venv`, in `workspace`, as the runner starts a
    Docker action (inputs as INPUT_<NAME>, hyphens kept; `runtime`: more variables, such
    as the runner's `ACTIONS_*`). `as_user`: the uid (and gid) the gate runs as, owning the
    workspace and the runner's files, as the composite action runs as the runner's user
    (needs root and `setpriv`); None: as the test does."""
    runner = workspace.parent / f"runner-{workspace.name}"
    runner.mkdir(exist_ok=True)
    searchable_by_others(workspace)
    searchable_by_others(venv)
    (runner / "home").mkdir(exist_ok=True)
    event_path = runner / "event.json"
    event_path.write_text(json.dumps(event))
    output, summary = runner / "output", runner / "summary.md"
    output.write_text("")
    summary.write_text("")
    env = {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(runner / "home"),
        "LANG": "C.UTF-8",
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": repository,
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": "https://github.invalid",
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_RUN_ID": "4242",
        "RUNNER_TEMP": str(runner),
    }
    env.update({f"INPUT_{name.upper()}": value for name, value in inputs.items()})
    env.update(runtime or {})
    argv = [str(venv / "bin" / "toolfuzz-gate"), "action"]
    if as_user is not None:
        for top in (workspace, runner):
            for path in [top, *top.rglob("*")]:
                os.chown(path, as_user, as_user, follow_symlinks=False)
        argv = [
            "setpriv",
            f"--reuid={as_user}",
            f"--regid={as_user}",
            "--clear-groups",
            "--inh-caps=-all",
            "--",
            *argv,
        ]
    done = subprocess.run(
        argv,
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    outputs, delimiters = _parse_outputs(output.read_text())
    return ActionRun(
        done.returncode,
        done.stdout,
        done.stderr,
        outputs,
        summary.read_text(),
        workspace,
        delimiters,
    )


def searchable_by_others(workspace: Path) -> None:
    """Every directory down to `workspace` searchable by others, as a runner's workspace
    is (pytest makes its temporary directories 0700): a gate running as root runs the
    handlers as another user (`edges.handlers.confine`), who must reach the workspace."""
    for directory in [workspace, *workspace.parents]:
        if directory.is_dir() and directory.stat().st_uid == os.geteuid():
            directory.chmod(directory.stat().st_mode | stat.S_IXOTH | stat.S_IROTH)


def _parse_outputs(text: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """GITHUB_OUTPUT as the runner reads it; every entry must use the delimited form."""
    found: dict[str, str] = {}
    delimiters: list[str] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines) and lines[index]:
        match = _DELIMITED.match(lines[index])
        assert match, f"not a delimited output: {lines[index]!r}"
        name, delimiter = match.groups()
        end = lines.index(delimiter, index + 1)
        found[name] = "\n".join(lines[index + 1 : end])
        delimiters.append(delimiter)
        index = end + 1
    assert index >= len(lines) - 1, f"left over in GITHUB_OUTPUT: {lines[index:]!r}"
    return found, tuple(delimiters)
