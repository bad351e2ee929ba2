"""The base side runs the base's code, for every handler kind (issue 11).

A repository holds a paging tool behind one of four front ends; the base commit is
correct and the head commit plants an off-by-one (`limit` 11 accepted where the schema
says at most 10). `run --policy --baseline BASE` must start the base's own code in the
base worktree, so the counterexample is new and `fail_on: [new-counterexample]` fails,
whether the gate starts in the repository root or somewhere else.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import commit, free_port, init_repository
from toolfuzz_gate.cli import run

PAGER = Path(__file__).parents[1] / "fixtures" / "pager"


def _handler(kind: str, port: int) -> str:
    python = json.dumps(sys.executable)
    if kind == "python":
        return (
            '    schema: limit.json\n    handler:\n      python: "pager:list_items"\n'
            '      rejects: ["pager:Rejected"]\n'
        )
    if kind == "command":  # a relative executable, read from the checkout under test
        return "    schema: limit.json\n    handler:\n      command: [./pager_stdio]\n"
    if kind == "mcp":
        return f"    handler:\n      mcp: [{python}, pager_mcp.py]\n"
    return (
        f"    schema: limit.json\n    handler:\n      http: http://127.0.0.1:{port}/\n"
        f"      server: [{python}, pager_http.py, '{port}']\n"
    )


def _repository(root: Path, kind: str) -> tuple[str, str]:
    """(base, head): the head commit plants the off-by-one in pager.py."""
    init_repository(root)
    for name in ("pager.py", "pager_stdio.py", "pager_mcp.py", "pager_http.py", "limit.json"):
        shutil.copy(PAGER / name, root / name)
    launcher = root / "pager_stdio"
    launcher.write_text(f"#!{sys.executable}\nimport runpy\nrunpy.run_path('pager_stdio.py')\n")
    launcher.chmod(0o755)
    policy = (
        "version: 1\ndefaults: {runs: 12, timeout_ms: 5000}\n"
        "gate: {fail_on: [new-counterexample]}\n"
        f"tools:\n  - name: list_items\n{_handler(kind, free_port())}"
    )
    (root / "toolfuzz.yml").write_text(policy)
    base = commit(root, "a correct pager")
    logic = (root / "pager.py").read_text().replace("LIMIT = 10", "LIMIT = 11")
    (root / "pager.py").write_text(logic)
    return base, commit(root, "an off-by-one")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["python", "command", "mcp", "http"])
@pytest.mark.parametrize("start_in", ["root", "elsewhere"])
def test_the_base_runs_its_own_code(
    kind: str, start_in: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    base, _ = _repository(root, kind)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(root if start_in == "root" else elsewhere)
    out = tmp_path / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["run", "--policy", str(root / "toolfuzz.yml"), "--out", str(out), "--baseline", base]
    code = run(argv, stdout, stderr)
    text = stdout.getvalue() + stderr.getvalue()
    assert "Traceback" not in text, text
    assert code == 1, text
    diff: dict[str, Any] = json.loads((out / "diff.json").read_text())
    assert diff["totals"]["new"] >= 1, diff["totals"]
    assert diff["totals"]["stillFailing"] == 0, diff["totals"]
    new = {(c["failure"], c["path"]) for t in diff["tools"] for c in t["counterexamples"]["new"]}
    assert new == {("hostile-accepted", "/limit")}, new
    assert "new-counterexample" in text
    assert not any(name.startswith("toolfuzz-") for name in os.listdir(root)), os.listdir(root)


def test_a_pythonpath_into_the_head_is_read_in_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI job's `PYTHONPATH=$PWD/src` names the head's checkout; the base side must
    import the base's `src/` instead."""
    root = tmp_path / "repo"
    init_repository(root)
    (root / "src").mkdir()
    shutil.copy(PAGER / "pager.py", root / "src" / "pager.py")
    shutil.copy(PAGER / "limit.json", root / "limit.json")
    (root / "toolfuzz.yml").write_text(
        "version: 1\ndefaults: {runs: 12}\ngate: {fail_on: [new-counterexample]}\n"
        "tools:\n  - name: list_items\n" + _handler("python", 0)
    )
    base = commit(root, "a correct pager")
    logic = (root / "src" / "pager.py").read_text().replace("LIMIT = 10", "LIMIT = 11")
    (root / "src" / "pager.py").write_text(logic)
    commit(root, "an off-by-one")
    monkeypatch.setenv("PYTHONPATH", str(root / "src"))
    out = tmp_path / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["run", "--policy", str(root / "toolfuzz.yml"), "--out", str(out), "--baseline", base]
    code = run(argv, stdout, stderr)
    assert code == 1, stdout.getvalue() + stderr.getvalue()
    diff: dict[str, Any] = json.loads((out / "diff.json").read_text())
    assert (diff["totals"]["new"], diff["totals"]["stillFailing"]) == (1, 0), diff["totals"]
