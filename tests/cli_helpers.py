"""Shared by the CLI tests: the command line run in process, and a repository holding the
poster fixtures (test helper)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

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
