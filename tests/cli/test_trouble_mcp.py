"""Issue 31's findings a reviewer can act on, end to end against a real MCP server written for
the purpose (`tests/fixtures/mcp_tool/trouble_mcp.py`, stdlib): a read slowed by the state
the campaign's own calls grew is state-dependent, not a confirmed hang; a server that dies
after answering is blamed on the call it answered; after the timeout breaker the hostile
families still run; a JSON-RPC internal error the server lives through is no crash.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

SERVER = Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "trouble_mcp.py"


def fuzz_tool(
    tmp_path: Path, tool: str, *extra: str, name: str = "receipt", server: tuple[str, ...] = ()
) -> tuple[int, dict[str, Any], str]:
    """The exit code, the receipt and what `fuzz --mcp` printed for one tool."""
    receipt = tmp_path / f"{name}.json"
    code, out, err = invoke(
        "fuzz",
        "--tool",
        tool,
        "--receipt",
        str(receipt),
        *extra,
        "--mcp",
        "--",
        sys.executable,
        str(SERVER),
        *server,
    )
    assert code in (0, 1), err
    return code, json.loads(receipt.read_text(encoding="utf-8")), out


@pytest.mark.slow
def test_a_read_slowed_by_the_campaigns_own_state_is_state_dependent_not_a_hang(
    tmp_path: Path,
) -> None:
    # Each call appends to a file the next call reads; from the 30th line on, a read takes
    # 1.2 s against a 0.3 s timeout. A fresh server (a new working directory) answers at once.
    code, receipt, printed = fuzz_tool(
        tmp_path,
        "log_entry",
        "--runs",
        "60",
        "--timeout-ms",
        "300",
        server=("--slow-seconds", "1.2"),
    )
    [slow] = receipt["counterexamples"]
    # Given six times the timeout it answered: slow, not hung.
    assert slow["failure"] == "slow"
    assert slow["stateDependent"]["fresh"] == {"runs": 1, "failed": 0}
    # Two failures on the state the campaign had grown (the call and its longer replay).
    assert slow["reproduced"] == {"runs": 3, "failed": 2}
    assert slow["flaky"] is False
    assert slow["suggestion"] is None, "no member is blamed for what the state did"
    assert "[state-dependent: never failed on a handler started afresh]" in printed
    assert code == 0, "a state-dependent hang is noted, never failing"


@pytest.mark.slow
def test_a_server_that_dies_after_answering_is_blamed_on_the_call_it_answered(
    tmp_path: Path,
) -> None:
    # `lint` answers a source over 30 characters, then exits; the next call met it dead.
    code, receipt, printed = fuzz_tool(tmp_path, "lint", "--runs", "30")
    assert code == 1
    [crash] = receipt["counterexamples"]
    assert crash["failure"] == "crash"
    assert crash["cause"] == "died after answering"
    # Shrunk through the pair (the call, then a ping): the shortest source that kills it.
    assert crash["input"] == {"source": "a" * 31}
    assert crash["reproduced"] == {"runs": 3, "failed": 3}
    assert crash["flaky"] is False
    assert crash["error"]["blamedFrom"]["stream"] == "valid"
    assert "that call alone passed" in crash["error"]["reason"]
    # The suggestion was found and verified on the same pair.
    suggestion = crash["suggestion"]
    assert suggestion["patch"] == [
        {"op": "replace", "path": "/properties/source/maxLength", "value": 30}
    ]
    assert suggestion["verified"] is True
    assert "answered, then died before answering a ping" in printed


@pytest.mark.slow
def test_blamed_receipts_stay_byte_identical(tmp_path: Path) -> None:
    fuzz_tool(tmp_path, "lint", "--runs", "30", name="first")
    fuzz_tool(tmp_path, "lint", "--runs", "30", name="second")
    assert (tmp_path / "first.json").read_bytes() == (tmp_path / "second.json").read_bytes()


@pytest.mark.slow
def test_after_the_breaker_the_hostile_families_still_run(tmp_path: Path) -> None:
    # `convert` never answers a schema-valid call and refuses the others at once.
    code, receipt, printed = fuzz_tool(tmp_path, "convert", "--runs", "60", "--timeout-ms", "300")
    assert code == 1
    [hung] = receipt["counterexamples"]
    assert hung["failure"] == "hung"
    breaker = receipt["breaker"]
    assert breaker["stream"] == "valid"
    after = breaker["hostileAfter"]
    assert after == {"ran": receipt["cases"]["hostile"], "timeoutFactor": 0.25, "timedOut": 0}
    assert after["ran"] > 0
    # Every hostile family was tested (each near-miss refused), none left untested.
    assert "untested" not in receipt["coverage"].values()
    assert {f for f, state in receipt["coverage"].items() if state == "tested"} == {
        "type",
        "bounds",
        "required",
        "additionalProperties",
    }
    # What the breaker cut is in the receipt.
    assert breaker["notRun"]["valid"] == 60 - receipt["cases"]["valid"]
    assert breaker["notRun"]["hostile"] > 0 and breaker["notRun"]["seam"] > 0
    assert "near-misses still ran" in printed


@pytest.mark.slow
def test_an_internal_error_the_server_lives_through_is_not_a_crash(tmp_path: Path) -> None:
    code, receipt, _ = fuzz_tool(tmp_path, "open_file", "--runs", "10")
    assert code == 1
    [error] = receipt["counterexamples"]
    assert error["failure"] == "internal-error"
    assert error["cause"] == "json-rpc -32603 ENOENT"
    assert receipt["invariants"]["no-crash"] is False
