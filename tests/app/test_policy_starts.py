"""`run --policy` starts an MCP server once per side for a whole-server entry: the server
started to list the entry's tools is the one its first tool calls (or, for tools that
promise to change nothing, the one they share), as `fuzz --mcp` does
(`tests/app/test_fuzz_starts.py`). A real stdio server logs each of its starts. The
stateful campaign, which starts the server fresh for its own sequences, is off here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import invoke

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_tool"
LOGGED = [sys.executable, str(FIXTURES / "start_logged.py"), str(FIXTURES / "mixed_mcp.py")]


def _starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handler: str, seeds: str) -> int:
    """How many times a policy run of one whole-server entry started the server."""
    log = tmp_path / "starts.log"
    monkeypatch.setenv("START_LOG", str(log))
    policy = tmp_path / "policy.yml"
    policy.write_text(
        f"version: 1\ndefaults: {{runs: 8, seeds: {seeds}}}\nstateful: {{enabled: false}}\n"
        f"tools:\n  - handler: {{{handler}, env: [START_LOG]}}\n",
        encoding="utf-8",
    )
    code, out, err = invoke("run", "--policy", str(policy), "--out", str(tmp_path / "out"))
    assert code == 1, out + err  # the two tools refused by their schemas fail the verdict
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    fuzzed = [entry for entry in summary["tools"] if not entry["refused"]]
    assert {entry["tool"] for entry in fuzzed} == {"count"}, out  # every seed of it fuzzed
    assert len(fuzzed) == len(json.loads(seeds)) and summary["counts"]["counterexamples"] == 0
    return len(log.read_text("utf-8").splitlines())


@pytest.mark.slow
def test_the_listing_server_is_the_first_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three tools listed: two refused by their schemas start nothing, `count` takes over
    the server that listed them (it was two starts: one to list, one to call)."""
    assert _starts(tmp_path, monkeypatch, f"mcp: {json.dumps(LOGGED)}", "[41]") == 1


@pytest.mark.slow
def test_a_second_seed_starts_its_own_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool that may change things never shares: its second seed's run starts a fresh
    server (it was three starts)."""
    assert _starts(tmp_path, monkeypatch, f"mcp: {json.dumps(LOGGED)}", "[41, 7]") == 2


@pytest.mark.slow
def test_read_only_tools_share_the_listing_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tools that promise to change nothing share one process: the listing's (it was two)."""
    argv = json.dumps([*LOGGED[:2], str(FIXTURES / "read_only_mcp.py")])
    assert _starts(tmp_path, monkeypatch, f"mcp: {argv}", "[41, 7]") == 1


@pytest.mark.slow
def test_a_reset_still_runs_before_the_server_it_resets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a reset the listing's server is not handed over: the reset comes first."""
    marker = tmp_path / "reset.txt"
    reset = [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('r')"]
    handler = f"mcp: {json.dumps(LOGGED)}, reset_command: {json.dumps(reset)}"
    assert _starts(tmp_path, monkeypatch, handler, "[41]") == 2
    assert marker.read_text() == "r"
