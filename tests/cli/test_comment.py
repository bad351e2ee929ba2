"""What the reviewer sees (issue 11): every bug, the handler's words, a replay that works.

A repository's MCP server (the pager fixture) gains two independent bugs in one pull
request: an off-by-one on `limit` and a crash on `limit: 3`. The gate, run as the action
runs it (receipts under the repository, the base rerun), must report both as new, show
the server's error, and print replay commands that run verbatim from the repository root.
The comment is a golden file, and docs/reports-and-receipts.md shows that very comment.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import commit, init_repository
from toolfuzz_gate.cli import run

PAGER = Path(__file__).parents[1] / "fixtures" / "pager"
GOLDEN = Path(__file__).parents[1] / "golden" / "action" / "comment.md"
DOCS_PAGE = Path(__file__).parents[2] / "docs" / "reports-and-receipts.md"
POLICY = """\
version: 1
defaults: {runs: 24}
gate: {fail_on: [new-counterexample]}
tools:
  - name: list_items
    handler:
      mcp: [python3, pager_mcp.py]
"""
CRASH = '    if limit == 3:\n        raise KeyError("page")\n'


@pytest.fixture
def two_bugs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """(root, base sha); the head is checked out and the gate starts in the root."""
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):  # the same shas on every run
        monkeypatch.setenv(name, "2026-01-01T00:00:00+0000")
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    root = tmp_path / "repo"
    init_repository(root)
    for name in ("pager.py", "pager_mcp.py"):
        shutil.copy(PAGER / name, root / name)
    (root / "toolfuzz.yml").write_text(POLICY)
    base = commit(root, "a correct pager")
    logic = (root / "pager.py").read_text().replace("LIMIT = 10", "LIMIT = 11")
    logic = logic.replace('    return {"items"', CRASH + '    return {"items"')
    (root / "pager.py").write_text(logic)
    commit(root, "two bugs")
    monkeypatch.chdir(root)
    return root, base


def _gate(*argv: str) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout, stderr)
    return code, stdout.getvalue() + stderr.getvalue()


def test_both_bugs_are_new_with_evidence_and_replays_that_run(two_bugs: tuple[Path, str]) -> None:
    root, base = two_bugs
    code, text = _gate(
        "run", "--policy", "toolfuzz.yml", "--out", "toolfuzz-gate-results", "--baseline", base
    )
    assert code == 1, text
    comment = (root / "toolfuzz-gate-results" / "comment.md").read_text()
    if os.environ.get("TOOLFUZZ_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(comment, encoding="utf-8", newline="\n")
    assert comment == GOLDEN.read_text(encoding="utf-8")
    assert "### New root causes (2, 2 counterexamples)" in comment
    assert "KeyError: 'page'" in comment  # the server's own words
    assert " 0 " not in comment.split("### ")[0]  # no zero counts
    commands = re.findall(r"^toolfuzz-gate replay .*$", comment, flags=re.MULTILINE)
    assert len(commands) == 2
    for command in commands:
        replayed, said = _gate(*shlex.split(command)[1:])
        assert replayed == 1, said  # the bug is still there: replay says so
        assert "still-failing" in said, said


def test_the_docs_show_the_golden_comment() -> None:
    golden = GOLDEN.read_text(encoding="utf-8")
    page = DOCS_PAGE.read_text(encoding="utf-8")
    assert golden.rstrip("\n") in page, f"paste {GOLDEN.name} into {DOCS_PAGE.name}"
