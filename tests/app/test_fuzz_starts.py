"""`fuzz --mcp` starts a server once: the server that lists the tools is the server the
first tool calls (a real stdio server that logs each of its starts)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli_helpers import invoke

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_tool"
LOGGED = [sys.executable, str(FIXTURES / "start_logged.py"), str(FIXTURES / "mixed_mcp.py")]


def _fuzz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *flags: str) -> tuple[int, int]:
    log = tmp_path / "starts.log"
    monkeypatch.setenv("START_LOG", str(log))
    code, _, err = invoke(
        "fuzz", "--mcp", *flags, "--env", "START_LOG", "--runs", "8",
        "--out", str(tmp_path / "out"), "--", *LOGGED,
    )  # fmt: skip
    assert code in (0, 1), err
    return code, len(log.read_text("utf-8").splitlines())


@pytest.mark.slow
def test_one_tool_of_a_server_starts_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, starts = _fuzz(tmp_path, monkeypatch, "--tool", "count")
    assert code == 0
    assert starts == 1  # listed and called by one process (it was two: one each)


@pytest.mark.slow
def test_every_tool_of_a_server_starts_one_process_each_and_lists_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three tools: two refused by their schemas start nothing; `count` takes over the
    server that listed them."""
    code, starts = _fuzz(tmp_path, monkeypatch)
    assert code == 1  # the refused tools fail the verdict
    assert starts == 1


@pytest.mark.slow
def test_a_reset_still_runs_before_the_server_it_resets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a reset the listing's server is not handed over: the reset comes first."""
    marker = tmp_path / "reset.txt"
    reset = f"{sys.executable} -c \"open({str(marker)!r}, 'a').write('r')\""
    code, starts = _fuzz(tmp_path, monkeypatch, "--tool", "count", "--reset-command", reset)
    assert code == 0
    assert starts == 2 and marker.read_text() == "r"


def test_a_tool_the_server_does_not_list_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--tool` naming no listed tool is a usage error before any tool is attempted."""
    monkeypatch.setenv("START_LOG", str(tmp_path / "starts.log"))
    code, _, err = invoke(
        "fuzz", "--mcp", "--tool", "nope", "--env", "START_LOG",
        "--out", str(tmp_path / "out"), "--", *LOGGED,
    )  # fmt: skip
    assert code == 2 and "the MCP server lists no tool named 'nope'" in err
    assert not (tmp_path / "out").exists()


def test_a_server_that_lists_no_tool_says_so(tmp_path: Path) -> None:
    paged = [sys.executable, str(FIXTURES / "paged_mcp.py"), "--no-tools"]
    code, out, err = invoke("fuzz", "--mcp", "--out", str(tmp_path / "out"), "--", *paged)
    assert code == 2, out + err
    assert "no tool to fuzz: the MCP server lists none" in err, err  # not --exclude-tool's words
