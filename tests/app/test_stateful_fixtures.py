"""Fixtures in stateful campaigns, on a real MCP server over stdio: the row store's planted
crash (clear the file, then read its last row) lies behind "file not found", so it is found
only when the policy lays the file; each sequence starts from the fixture as the repository
has it; the correct reference is clean (slow: real servers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.workspace import fixture_digest
from toolfuzz_gate.edges.stateful_server import McpServerTools

FIXTURES = Path(__file__).parents[1] / "fixtures" / "stateful"
SERVER = str(FIXTURES / "rows_mcp.py")
TOOLS = ("add_row", "clear_rows", "last_row")
ROWS = (FIXTURES / "data" / "rows.txt").read_bytes()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rows.txt").write_bytes(ROWS)
    return tmp_path


def run(repo: Path, *, bug: bool, fixtures: bool, out: str = "out") -> dict[str, Any]:
    argv = [sys.executable, SERVER, *(["--bug"] if bug else [])]
    tools = []
    for name in TOOLS:
        tool: dict[str, Any] = {"name": name, "handler": {"mcp": argv}}
        if fixtures:
            tool["fixtures"] = {"/file": ["data/rows.txt"]}
        tools.append(tool)
    policy = {"version": 1, "defaults": {"runs": 5}, "tools": tools}
    (repo / "policy.yml").write_text(json.dumps(policy), encoding="utf-8")
    _, _, err = invoke("run", "--policy", str(repo / "policy.yml"), "--out", str(repo / out))
    assert "Traceback" not in err, err
    receipt: dict[str, Any] = json.loads((repo / out / "stateful_rows_mcp.json").read_bytes())
    return receipt


@pytest.mark.slow
def test_a_fixture_backed_sequence_reaches_the_crash_behind_file_not_found(repo: Path) -> None:
    bare = run(repo, bug=True, fixtures=False, out="bare")
    assert bare["counterexamples"] == [] and "fixtures" not in bare

    laid = run(repo, bug=True, fixtures=True)
    found = laid["counterexamples"]
    assert [(c["failure"], c["path"]) for c in found] == [("sequence-crash", "/last_row")]
    calls = [(step["tool"], step["arguments"]) for step in found[0]["sequence"]]
    assert calls == [("clear_rows", {"file": "rows.txt"}), ("last_row", {"file": "rows.txt"})]
    assert (repo / "data" / "rows.txt").read_bytes() == ROWS  # the calls wrote into a copy
    digest = fixture_digest(repo / "data" / "rows.txt")
    recorded = [{"name": "rows.txt", "sha256": digest}]
    assert laid["fixtures"] == {tool: {"/file": recorded} for tool in TOOLS}


@pytest.mark.slow
def test_the_reference_with_fixtures_is_clean_and_its_receipt_the_same_twice(
    repo: Path,
) -> None:
    first = run(repo, bug=False, fixtures=True, out="a")
    assert first["counterexamples"] == [] and all(first["invariants"].values())
    run(repo, bug=False, fixtures=True, out="b")
    assert (repo / "a" / "stateful_rows_mcp.json").read_bytes() == (
        repo / "b" / "stateful_rows_mcp.json"
    ).read_bytes()


@pytest.mark.slow
def test_each_sequence_begins_with_the_fixtures_laid_again(repo: Path) -> None:
    config = HandlerConfig(
        "mcp", "", argv=(sys.executable, SERVER), fixtures=(str(repo / "data" / "rows.txt"),)
    )
    server = McpServerTools(config, list(TOOLS))
    try:
        server.begin()
        assert server.call("clear_rows", {"file": "rows.txt"}).kind is OutcomeKind.ACCEPTED
        emptied = server.call("last_row", {"file": "rows.txt"})
        assert emptied.kind is OutcomeKind.REJECTED and "empty" in (emptied.message or "")
        server.begin()  # the next sequence
        again = server.call("last_row", {"file": "rows.txt"})
        assert again.kind is OutcomeKind.ACCEPTED and "beta" in (again.output_text or "")
    finally:
        server.close()
