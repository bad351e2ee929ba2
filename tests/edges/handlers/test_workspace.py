"""The sandbox's write oracle and fixtures, end to end through `run --policy`: a planted
write outside the allowed root is found for each handler kind the gate starts (python,
command, mcp), a handler that writes only inside its root is not blamed, fixtures are laid
and recorded by digest, and the receipts are byte-identical between runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke
from toolfuzz_gate.edges.handlers.workspace import Workspace, fixture_digest

FIXTURES = Path(__file__).parents[2] / "fixtures" / "sandbox"
STAGING = str(FIXTURES / "staging.py")


def handler_of(kind: str, careful: bool) -> dict[str, Any]:
    extra = ["--careful"] if careful else []
    if kind == "python":
        function = "write_file_careful" if careful else "write_file"
        return {"python": f"staging:{function}", "rejects": ["staging:ToolError"]}
    if kind == "command":
        return {"command": [sys.executable, STAGING, *extra]}
    return {"mcp": [sys.executable, STAGING, "--mcp", *extra], "tool": "write_file"}


def run_policy(repo: Path, tool: dict[str, Any], out: str = "out") -> tuple[int, dict[str, Any]]:
    policy = {"version": 1, "defaults": {"runs": 30}, "tools": [tool]}
    (repo / "policy.yml").write_text(json.dumps(policy), encoding="utf-8")
    code, _printed, err = invoke(
        "run", "--policy", str(repo / "policy.yml"), "--out", str(repo / out)
    )
    assert "Traceback" not in err, err
    receipt = json.loads((repo / out / f"{tool['name']}.json").read_text(encoding="utf-8"))
    return code, receipt


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "write_file.json").write_bytes((FIXTURES / "write_file.json").read_bytes())
    return tmp_path


def sandboxed(kind: str, careful: bool) -> dict[str, Any]:
    handler = {**handler_of(kind, careful), "sandbox": True, "env": ["PYTHONPATH"]}
    tool = {"name": "write_file", "handler": handler}
    if kind != "mcp":
        tool["schema"] = "write_file.json"
    return tool


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["python", "command", "mcp"])
def test_a_write_outside_the_root_is_found_for_each_kind(
    repo: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    code, receipt = run_policy(repo, sandboxed(kind, careful=False))
    assert code == 1
    escaped = [c for c in receipt["counterexamples"] if c["failure"] == "write-outside-root"]
    assert len(escaped) == 1, receipt["counterexamples"]
    assert escaped[0]["input"]["path"] == ""
    assert escaped[0]["error"]["written"] == ["../.staging"]
    assert receipt["invariants"]["writes-inside-root"] is False
    assert receipt["handler"]["sandbox"] is True


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["python", "command", "mcp"])
def test_writes_inside_the_root_are_not_findings(
    repo: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    code, receipt = run_policy(repo, sandboxed(kind, careful=True))
    assert receipt["invariants"]["writes-inside-root"] is True
    assert not [c for c in receipt["counterexamples"] if c["failure"] == "write-outside-root"]
    assert code == 0, receipt["counterexamples"]


def test_without_a_sandbox_the_invariant_is_not_claimed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    tool = {
        "name": "write_file",
        "schema": "write_file.json",
        "handler": handler_of("python", True),
    }
    _, receipt = run_policy(repo, tool)
    assert "writes-inside-root" not in receipt["invariants"]
    assert "sandbox" not in receipt["handler"]


def test_the_workspace_sees_creations_changes_and_removals_around_the_root() -> None:
    workspace = Workspace()
    try:
        root = workspace.root
        assert workspace.escaped_writes() == ()
        (root / "inside.txt").write_text("fine")
        (root.parent / "home" / ".config").write_text("scratch")
        (root.parent / "tmp" / "t").write_text("scratch")
        assert workspace.escaped_writes() == ()
        (root.parent / "root-sibling" / "x").write_text("prefix bug")
        (root.parent.parent / "outside" / "canary.txt").write_text("changed")
        (root.parent / "canary.txt").unlink()
        assert workspace.escaped_writes() == (
            "../../outside/canary.txt",
            "../canary.txt",
            "../root-sibling/x",
        )
        # laid out again: the next call starts clean
        assert workspace.escaped_writes() == ()
        assert (root.parent / "canary.txt").exists()
        assert (root / "inside.txt").read_text() == "fine"
    finally:
        workspace.close()
    assert not workspace.top.exists()


def test_fixture_digests_cover_names_and_contents(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "a.txt").write_text("a")
    first = fixture_digest(tree)
    (tree / "sub" / "a.txt").write_text("b")
    assert fixture_digest(tree) != first
    (tree / "sub" / "a.txt").write_text("a")
    assert fixture_digest(tree) == first
    (tree / "sub" / "a.txt").rename(tree / "sub" / "b.txt")
    assert fixture_digest(tree) != first
