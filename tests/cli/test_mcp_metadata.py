"""What an MCP server says about a tool beyond its schema is honoured end to end (issue 14),
through `cli.run` against a real stdlib server (`meta_mcp.py`): a tool that requires task
augmentation is skipped with a note and the gate passes, a long tool that reports progress
is no timeout, and the hints a server declares are in the receipt and on the console."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

SERVER = [
    sys.executable,
    str(Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "meta_mcp.py"),
]
SLOW_TOOLS = ("--exclude-tool", "long", "--exclude-tool", "hush", "--exclude-tool", "forever")


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_fuzz_mcp_skips_a_task_tool_and_records_the_hints(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    argv = ("fuzz", "--mcp", "--runs", "8", *SLOW_TOOLS, "--out", str(out_dir), "--", *SERVER)
    code, out, err = invoke(*argv)
    assert code == 0, out + err
    research, annotated, plain = (
        read(out_dir / f"{n}.json") for n in ("research", "annotated", "plain")
    )
    assert research["refused"]["code"] == "handler.task-required"
    assert research["cases"] == {} and research["counterexamples"] == []
    assert "research: not fuzzed, skipped (a note, not a failure)" in out
    assert "handler.task-required: the MCP tool 'research' requires task augmentation" in out
    assert annotated["counterexamples"] == [] and sum(annotated["cases"].values()) > 0
    assert annotated["annotations"] == {
        "destructiveHint": True,
        "openWorldHint": True,
        "readOnlyHint": False,
    }
    assert "annotations" not in plain  # a tool declaring none: the receipt as before
    assert plain["counterexamples"] == []
    assert (
        "note: the server declares openWorldHint: true: it may reach outside the machine; "
        "decide whether it may run in CI"
    ) in out
    assert "note: the server declares destructiveHint: true" in out
    assert out.count("note: the server declares") == 2  # annotated's, not plain's


def test_a_policy_run_passes_with_a_skipped_tool_and_lists_it(tmp_path: Path) -> None:
    server = json.dumps(SERVER)
    policy = tmp_path / "policy.yml"
    policy.write_text(
        "version: 1\ndefaults: {runs: 8}\ntools:\n"
        f"  - name: research\n    handler: {{mcp: {server}}}\n"
        f"  - name: plain\n    handler: {{mcp: {server}}}\n",
        encoding="utf-8",
    )
    out_dir = tmp_path / "out"
    code, out, err = invoke("run", "--policy", str(policy), "--out", str(out_dir))
    assert code == 0, out + err
    summary = read(out_dir / "summary.json")
    assert summary["verdict"] == "passed"
    assert any(
        reason.startswith("skipped: 1 tool(s) not fuzzed, by design: research")
        for reason in summary["reasons"]
    )
    comment = (out_dir / "comment.md").read_text(encoding="utf-8")
    assert "| research | handler.task-required |" in comment
    assert "skipped (not a failure)" in comment
    junit = (out_dir / "junit.xml").read_text(encoding="utf-8")
    assert "<skipped " in junit and "<failure" not in junit
    results = read(out_dir / "results.sarif")["runs"][0]["results"]
    assert [r["level"] for r in results if r["ruleId"] == "refused"] == ["note"]


@pytest.mark.slow
def test_a_long_tool_that_reports_progress_is_no_timeout(tmp_path: Path) -> None:
    # Each call of `long` with `{}` works 5 x 0.3 s, past the 0.4 s timeout and past the
    # 1.2 s the confirmation allows; its progress notifications keep it alive. `hush` does
    # the same work silently: the control, a confirmed timeout, told `slow` (it answers,
    # only long past its budget).
    found = {}
    for tool in ("long", "hush"):
        out_dir = tmp_path / tool
        argv = ("fuzz", "--mcp", "--tool", tool, "--runs", "1", "--timeout-ms", "400")
        code, _, _ = invoke(*argv, "--out", str(out_dir), "--", *SERVER, "--step", "0.3")
        receipt = read(out_dir / f"{tool}.json")
        found[tool] = (code, {c["failure"] for c in receipt["counterexamples"]})
    assert found["long"] == (0, set())
    assert found["hush"] == (1, {"slow"})
