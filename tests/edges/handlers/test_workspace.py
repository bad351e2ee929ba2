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
        # a temporary file written beside the root and removed within the call
        (root.parent / "root.1f2e.tmp").write_text("caller content")
        (root.parent / "root.1f2e.tmp").unlink()
        assert workspace.escaped_writes() == ("../",)
        (root / "sub").mkdir()
        (root / "sub" / "t").write_text("inside")
        (root / "sub" / "t").unlink()
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


# --- fixtures -----------------------------------------------------------------------------------


def sheet_tool(fixtures: dict[str, list[str]] | None) -> dict[str, Any]:
    handler = {"python": "sheets:read_cell", "rejects": ["sheets:ToolError"], "env": ["PYTHONPATH"]}
    tool: dict[str, Any] = {"name": "read_cell", "schema": "read_cell.json", "handler": handler}
    if fixtures is not None:
        tool["fixtures"] = fixtures
    return tool


@pytest.fixture
def sheets_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    (tmp_path / ".git").mkdir()
    (tmp_path / "read_cell.json").write_bytes((FIXTURES / "read_cell.json").read_bytes())
    (tmp_path / "data").mkdir()
    for name in ("book.csv", "empty.csv"):
        (tmp_path / "data" / name).write_bytes((FIXTURES / "data" / name).read_bytes())
    return tmp_path


@pytest.mark.slow
def test_a_fixture_reaches_the_bug_behind_file_not_found(sheets_repo: Path) -> None:
    code, bare = run_policy(sheets_repo, sheet_tool(None), "bare")
    # without the fixture no valid call gets past "file not found": unreached, no finding
    assert code == 1 and bare["counterexamples"] == []
    summary = json.loads((sheets_repo / "bare" / "summary.json").read_text(encoding="utf-8"))
    assert [r for r in summary["reasons"] if r.startswith("unreached: 1 tool(s)")]
    assert "file-not-found" in {note["cause"] for note in bare["underSpecified"]}
    assert "fixtures" not in bare

    code, laid = run_policy(sheets_repo, sheet_tool({"/file": ["data/book.csv"]}), "laid")
    assert code == 1
    crashes = [c for c in laid["counterexamples"] if c["failure"] == "crash"]
    # row 3 of a three-line file (valid), and row 10 (a near-miss past maximum: the same bug)
    assert {(c["cause"], c["input"]["file"]) for c in crashes} == {("IndexError", "book.csv")}
    assert [c["input"]["row"] for c in crashes if c["mutation"] == "valid"] == [3]
    digest = fixture_digest(sheets_repo / "data" / "book.csv")
    assert laid["fixtures"] == {"/file": [{"name": "book.csv", "sha256": digest}]}
    # no near-miss replaces the fixture argument: the ones that would are not made
    assert all(c["input"]["file"] == "book.csv" for c in laid["counterexamples"])


@pytest.mark.slow
def test_fixtures_take_turns_and_receipts_are_byte_identical(sheets_repo: Path) -> None:
    tool = sheet_tool({"/file": ["data/book.csv", "data/empty.csv"]})
    run_policy(sheets_repo, {**tool, "handler": {**tool["handler"], "sandbox": True}}, "one")
    _, receipt = run_policy(
        sheets_repo, {**tool, "handler": {**tool["handler"], "sandbox": True}}, "two"
    )
    one = (sheets_repo / "one" / "read_cell.json").read_bytes()
    assert one == (sheets_repo / "two" / "read_cell.json").read_bytes()
    assert [item["name"] for item in receipt["fixtures"]["/file"]] == ["book.csv", "empty.csv"]
    assert receipt["invariants"]["writes-inside-root"] is True
    causes = {c["cause"] for c in receipt["counterexamples"]}
    assert causes == {"IndexError"}  # on both: the empty file has no row 0 either


def test_a_fixture_the_schema_does_not_admit_is_a_policy_error(sheets_repo: Path) -> None:
    name = "x" * 70 + ".csv"  # the schema's maxLength is 64
    (sheets_repo / "data" / name).touch()
    policy = {"version": 1, "tools": [sheet_tool({"/file": [f"data/{name}"]})]}
    (sheets_repo / "policy.yml").write_text(json.dumps(policy), encoding="utf-8")
    code, _printed, err = invoke("run", "--policy", str(sheets_repo / "policy.yml"))
    assert code == 2
    assert "fixtures" in err and "maxLength at /file" in err


@pytest.mark.parametrize(
    ("fixtures", "message"),
    [
        ({"/file": ["data/book.csv", "other/book.csv"]}, "another fixture is laid as"),
        ({"/file": ["../outside.csv"]}, "escapes the repository root"),
        ({"/file": ["data/missing.csv"]}, "no such path"),
    ],
)
def test_fixture_paths_are_checked(
    sheets_repo: Path, fixtures: dict[str, list[str]], message: str
) -> None:
    (sheets_repo / "other").mkdir()
    (sheets_repo / "other" / "book.csv").touch()
    policy = {"version": 1, "tools": [sheet_tool(fixtures)]}
    (sheets_repo / "policy.yml").write_text(json.dumps(policy), encoding="utf-8")
    code, _printed, err = invoke("run", "--policy", str(sheets_repo / "policy.yml"))
    assert code == 2 and message in err, err


# --- the link out of the root -------------------------------------------------------------------


def test_a_sandbox_lays_a_link_out_of_the_root_and_sees_writes_through_it() -> None:
    workspace = Workspace(link=True)
    try:
        link = workspace.root / "toolfuzz-link"
        assert link.is_symlink() and link.resolve() == workspace.top / "outside"
        (link / "toolfuzz-escape").write_text("through the link")
        assert workspace.escaped_writes() == ("../../outside/toolfuzz-escape",)
        assert not (link / "toolfuzz-escape").exists()  # laid out again
        link.unlink()  # a call that removes the link finds it again at the next call
        assert workspace.escaped_writes() == ()
        assert link.is_symlink() and link.resolve() == workspace.top / "outside"
        link.unlink()
        link.mkdir()  # a directory the handler made of that name is its own
        (link / "note").write_text("inside")
        assert workspace.escaped_writes() == ()
        assert (link / "note").read_text() == "inside"
    finally:
        workspace.close()
    assert not Workspace(link=False).root.joinpath("toolfuzz-link").exists()


def note_tool(function: str) -> dict[str, Any]:
    handler = {
        "python": f"linked:{function}",
        "rejects": ["linked:ToolError"],
        "sandbox": True,
        "env": ["PYTHONPATH"],
    }
    return {"name": "save_note", "schema": "save_note.json", "handler": handler}


@pytest.mark.slow
def test_a_handler_that_follows_the_link_writes_outside_and_is_found(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES))
    (repo / "save_note.json").write_bytes((FIXTURES / "save_note.json").read_bytes())
    code, receipt = run_policy(repo, note_tool("save_note"))
    assert code == 1
    escaped = [c for c in receipt["counterexamples"] if c["failure"] == "write-outside-root"]
    # reached by the traversal value, shrunk to one letter under the link
    assert [c["input"]["path"] for c in escaped] == ["toolfuzz-link/t"]
    assert escaped[0]["error"]["written"] == ["../../outside/t"]
    assert receipt["invariants"]["writes-inside-root"] is False

    code, receipt = run_policy(repo, note_tool("save_note_no_links"), "sound")
    assert receipt["invariants"]["writes-inside-root"] is True
    assert code == 0, receipt["counterexamples"]
