"""Shared by the CLI tests: the command line run in process, and a repository holding the
poster fixtures (test helper)."""

from __future__ import annotations

import io
import json
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

from toolfuzz_gate.cli import run

FAULTS = Path(__file__).parent / "fixtures" / "poster_faults"
POSTER_CONTRACT = (
    "--rejects",
    "toolfuzz_gate.contract.poster:ToolError",
    "--expected-rejection",
    "policy-pixel-budget",
    "--expected-rejection",
    "policy-duplicate-semantic-intent",
    "--error-codes",
    "^(schema|policy)-",
    "--dry-run",
    "dryRun",
)
"""The `fuzz` flags that declare the poster handlers' contract."""


def free_port() -> int:
    """A loopback port nothing listens on now: a fixed one (the README's 8765) collides with
    another test suite running on the same machine."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def invoke(*argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `toolfuzz-gate ARGV...`, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def poster_repository(tmp_path: Path) -> Path:
    """A repository root (a `.git` directory marks it) with the correct and the lax poster
    handlers beside `schemas/poster.json`, so `python:` handlers import from the root."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "schemas").mkdir()
    for name in ("correct.py", "lax_width.py"):
        shutil.copy(FAULTS / name, root / name)
    shutil.copy(FAULTS / "poster_schema.json", root / "schemas" / "poster.json")
    return root


TWO_POSTERS_POLICY = """\
version: 1
defaults: {runs: 24}
gate: {fail_on: [new-counterexample, unsupported-keyword]}
tools:
  - name: renderPoster
    schema: poster.json
    handler: &poster
      python: "poster_impl:render_poster"
      rejects: ["toolfuzz_gate.contract.poster:ToolError"]
    expected_rejections: &codes [policy-pixel-budget, policy-duplicate-semantic-intent]
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
  - name: renderPosterCopy
    schema: copy.json
    handler: *poster
    expected_rejections: *codes
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
"""
"""Two poster tools on one handler module (`poster_impl.py`): `renderPoster` on poster.json,
`renderPosterCopy` on copy.json; `set_version` makes the handler and copy.json correct or buggy."""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True, timeout=60
    )
    return done.stdout.strip()


def init_repository(root: Path) -> None:
    """A new repository at `root` on branch main, with a committer identity of its own."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "gate@example.invalid")
    git(root, "config", "user.name", "gate")


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def set_version(root: Path, *, buggy: bool) -> None:
    shutil.copy(FAULTS / ("lax_width.py" if buggy else "correct.py"), root / "poster_impl.py")
    schema: dict[str, Any] = json.loads((FAULTS / "poster_schema.json").read_text())
    if buggy:
        schema["contentSchema"] = {"required": ["unexpectedKey"]}
    (root / "copy.json").write_text(json.dumps(schema, indent=2) + "\n")
