"""Confirmation end to end, against a real `command:` process (`tests/fixtures/confirm/`):
two bugs in one tool both reported, a crash on one call in three reported as flaky and
failing the gate, a call slow only under load not reported, and the timeout breaker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

CONFIRM = Path(__file__).parents[1] / "fixtures" / "confirm"
SCHEMA = str(CONFIRM / "listing_schema.json")
LISTING = str(CONFIRM / "listing.py")


def fuzz_listing(
    tmp_path: Path, mode: str, *extra: str, name: str = "receipt"
) -> tuple[int, dict[str, Any]]:
    code, receipt, _ = fuzz_listing_printed(tmp_path, mode, *extra, name=name)
    return code, receipt


def fuzz_listing_printed(
    tmp_path: Path, mode: str, *extra: str, name: str = "receipt"
) -> tuple[int, dict[str, Any], str]:
    """The exit code, the receipt and what the command printed."""
    receipt = tmp_path / f"{name}.json"
    code, out, err = invoke(
        "fuzz",
        "--schema",
        SCHEMA,
        "--receipt",
        str(receipt),
        *extra,
        "--command",
        "--",
        sys.executable,
        LISTING,
        mode,
    )
    assert code in (0, 1), err
    return code, json.loads(receipt.read_text(encoding="utf-8")), out


def valid_crashes(receipt: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        c
        for c in receipt["counterexamples"]
        if c["failure"] == "crash" and c["inputKind"] == "valid"
    ]


@pytest.mark.slow
def test_two_independent_bugs_in_one_tool_are_both_reported(tmp_path: Path) -> None:
    code, receipt = fuzz_listing(tmp_path, "two-bugs", "--runs", "12")
    assert code == 1
    crashes = {c["cause"]: c for c in valid_crashes(receipt)}
    # The off-by-one at page_size 100 and the crash on an empty prefix: the second used to
    # hide behind the first, and appear only once the first was fixed.
    assert set(crashes) == {"IndexError", "ZeroDivisionError"}, receipt["counterexamples"]
    assert crashes["IndexError"]["input"]["page_size"] == 100
    assert crashes["ZeroDivisionError"]["input"]["prefix"] == ""
    assert crashes["ZeroDivisionError"]["path"] == "/prefix"
    # Each swap of page_size put in the other bug's empty prefix: blamed once that member is
    # held at a value that passed. Both get a verified schema fix.
    assert crashes["IndexError"]["path"] == "/page_size"
    assert crashes["IndexError"]["input"]["prefix"] != ""
    fixes = {c["cause"]: c["suggestion"] for c in crashes.values()}
    assert fixes["IndexError"]["patch"][0]["path"] == "/properties/page_size/maximum"
    assert fixes["ZeroDivisionError"]["patch"][0]["path"] == "/properties/prefix/minLength"
    assert all(fix["verified"] for fix in fixes.values())
    assert crashes["IndexError"]["fingerprint"] != crashes["ZeroDivisionError"]["fingerprint"]
    for crash in crashes.values():
        assert crash["reproduced"] == {"runs": 3, "failed": 3}
        assert crash["flaky"] is False


@pytest.mark.slow
def test_confirmed_receipts_of_a_deterministic_process_are_byte_identical(
    tmp_path: Path,
) -> None:
    fuzz_listing(tmp_path, "two-bugs", "--runs", "12", name="first")
    fuzz_listing(tmp_path, "two-bugs", "--runs", "12", name="second")
    assert (tmp_path / "first.json").read_bytes() == (tmp_path / "second.json").read_bytes()


def test_a_crash_on_one_call_in_three_is_flaky_with_its_rate_and_fails_the_gate(
    tmp_path: Path,
) -> None:
    code, receipt, printed = fuzz_listing_printed(tmp_path, "flaky", "--runs", "3")
    assert code == 1, "an intermittent crash is still a defect"
    assert "[flaky: failed " in printed
    crashes = [c for c in receipt["counterexamples"] if c["failure"] == "crash"]
    assert crashes
    for crash in crashes:
        assert crash["cause"] == "RuntimeError"
        assert crash["flaky"] is True, crash
        assert crash["reproduced"]["runs"] == 3
        assert 1 <= crash["reproduced"]["failed"] <= 2, crash


@pytest.mark.slow
def test_a_call_slow_only_under_load_is_not_reported(tmp_path: Path) -> None:
    code, receipt = fuzz_listing(
        tmp_path, "slow-once", "--runs", "3", "--timeout-ms", "300", "--diagnostics"
    )
    assert code == 0, receipt["counterexamples"]
    assert receipt["counterexamples"] == []
    assert receipt["invariants"]["no-timeout"] is True
    # Each first call overran the timeout and answered at once when replayed.
    assert receipt["diagnostics"]["dismissedTimeouts"] >= 3


@pytest.mark.slow
def test_the_breaker_stops_a_tool_that_always_times_out(tmp_path: Path) -> None:
    code, receipt, printed = fuzz_listing_printed(
        tmp_path, "hang", "--runs", "50", "--timeout-ms", "200"
    )
    assert code == 1
    assert "breaker: stopped the valid stream after 3 timeouts" in printed
    [timeout] = receipt["counterexamples"]
    # It did not answer given six times the timeout either: hung, not merely slow.
    assert timeout["failure"] == "hung"
    assert timeout["reproduced"] == {"runs": 3, "failed": 3}
    assert receipt["breaker"]["after"] == 3
    assert "notRun counts what was cut" in receipt["breaker"]["note"]
    # The near-misses still ran after the breaker, with the short timeout, until three of
    # them hung too (this tool sleeps on every call, schema-valid or not).
    assert receipt["cases"] == {"valid": 3, "hostile": 3, "seam": 0}
    assert receipt["breaker"]["hostileAfter"] == {"ran": 3, "timeoutFactor": 0.25, "timedOut": 3}
    assert receipt["breaker"]["notRun"]["valid"] == 47
    assert receipt["coverage"]["type"] == "untested"
