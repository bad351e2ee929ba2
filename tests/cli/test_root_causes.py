"""Findings a reviewer can act on (issue 31), on real MCP servers built with the official SDK
(`tests/fixtures/causes/`): one cause in ten tools is one root cause; a server answering its
rejections as successes is said once; a tool no valid call gets past fails the gate and says
what stopped it. Each shows the PR comment, SARIF and the console."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.cli import run

pytestmark = pytest.mark.slow

SERVERS = Path(__file__).parents[1] / "fixtures" / "causes"
LAX = [f"count_{name}" for name in "abcdefghij"]


def _policy(directory: Path, server: str, tools: list[str], extra: str = "") -> Path:
    argv = json.dumps([sys.executable, str(SERVERS / server)])
    lines = ["version: 1", "defaults: {runs: 20" + extra + "}", "tools:"]
    lines += [f"  - name: {tool}\n    handler: {{mcp: {argv}}}" for tool in tools]
    path = directory / f"{server}.{len(tools)}.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _gate(policy: Path, out: Path, *more: str) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["run", "--policy", str(policy), "--root", str(policy.parent), "--out", str(out)]
    code = run([*argv, *more], stdout, stderr)
    return code, stdout.getvalue() + stderr.getvalue()


def _sarif_results(out: Path) -> list[dict[str, Any]]:
    log = json.loads((out / "results.sarif").read_text(encoding="utf-8"))
    results: list[dict[str, Any]] = log["runs"][0]["results"]
    return results


def test_one_coercion_in_ten_tools_is_one_root_cause(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, console = _gate(_policy(tmp_path, "lax_sdk_mcp.py", LAX), out)
    assert code == 1, console
    receipts = [json.loads((out / f"{tool}.json").read_text()) for tool in LAX]
    # the receipts keep every instance, each in the reviewer's words
    instances = [cx for r in receipts for cx in r["counterexamples"]]
    assert len(instances) == 10
    assert {cx["error"]["reason"] for cx in instances} == {
        'accepted the string "0" where an integer is required (at /n)'
    }
    comment = (out / "comment.md").read_text(encoding="utf-8")
    assert "### New root causes (1, 10 counterexamples)" in comment
    rows = [line for line in comment.splitlines() if line.startswith("| 1 |")]
    assert rows == [
        "| 1 | hostile-accepted | count\\_a, count\\_b, count\\_c, count\\_d +6 | 10 | accepted "
        "the string &quot;0&quot; where an integer is required (at /n) |"  # GitHub shows "0"
    ]
    assert "<details><summary>10 instance(s)</summary>" in comment
    assert comment.count("toolfuzz-gate replay ") == 1  # one evidence block, not ten
    results = [r for r in _sarif_results(out) if r["ruleId"] == "hostile-accepted"]
    assert len(results) == 1 and "10 instance(s)" in results[0]["message"]["text"]
    assert "root causes: 10 counterexample(s) in 1 group(s)" in console
    assert "[new] hostile-accepted x10 in count_a, count_b, count_c, count_d +6" in console
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rootCauses"]["groups"] == 1 and summary["counts"]["counterexamples"] == 10


def test_a_new_instance_of_a_known_cause_is_not_new(tmp_path: Path) -> None:
    """Base has the coercion in five tools; head in ten: the group diffs as one unit."""
    base_out, head_out = tmp_path / "base", tmp_path / "head"
    _gate(_policy(tmp_path, "lax_sdk_mcp.py", LAX[:5]), base_out)
    policy = _policy(tmp_path, "lax_sdk_mcp.py", LAX)
    text = policy.read_text().replace(
        "tools:\n", "gate: {fail_on: [new-counterexample]}\ntools:\n", 1
    )
    policy.write_text(text)
    code, console = _gate(policy, head_out, "--baseline-dir", str(base_out))
    assert code == 0, console
    diff = json.loads((head_out / "diff.json").read_text())
    assert diff["totals"]["new"] == 0 and diff["totals"]["stillFailing"] == 10
    known = [
        cx
        for entry in diff["tools"]
        for cx in entry["counterexamples"]["stillFailing"]
        if cx.get("knownGroup") is True
    ]
    assert sorted(cx["tool"] for cx in known) == LAX[5:]
    # unless the policy counts every instance
    policy.write_text(text.replace("{fail_on:", "{instances: each, fail_on:"))
    code, console = _gate(policy, tmp_path / "each", "--baseline-dir", str(base_out))
    assert code == 1 and "new-counterexample: not on base: 5 in" in console


def test_a_server_answering_rejections_as_successes_is_said_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    tools = ["get_item", "rename", "query"]
    code, console = _gate(_policy(tmp_path, "answers_sdk_mcp.py", tools), out)
    assert code == 1, console
    comment = (out / "comment.md").read_text(encoding="utf-8")
    callouts = [line for line in comment.splitlines() if "answers rejections as successes" in line]
    assert len(callouts) == 1, comment
    assert "get\\_item" in callouts[0] and "`rejection_answer`" in callouts[0]
    assert "Error: no item" in callouts[0]
    # its accepted near-misses, in two tools, are one root cause of that class
    groups = json.loads((out / "summary.json").read_text())["rootCauses"]
    assert groups["groups"] == 1 and groups["answering"] == ["mcp python answers_sdk_mcp.py"]
    assert "| rejection-as-success | get\\_item, rename |" in comment
    rules = [r["ruleId"] for r in _sarif_results(out)]
    assert rules.count("rejection-as-success") == 2  # the server, and its group
    assert "answers rejections as successes (get_item, query, rename)" in console
    # `query` answers every valid call with an error: nothing got past it
    assert "query never got past: Database error: no such table (20 of 20" in console
    # read its answers, and the near-misses are rejections: only the door remains
    read = _policy(tmp_path, "answers_sdk_mcp.py", tools, ', rejection_answer: "rror: "')
    code, console = _gate(read, tmp_path / "read")
    assert code == 1, console
    receipts = [json.loads((tmp_path / "read" / f"{t}.json").read_text()) for t in tools]
    assert [len(r["counterexamples"]) for r in receipts] == [0, 0, 0]
    assert receipts[0]["contract"]["rejectionAnswer"] == "rror: "
    assert "answers rejections as successes" not in console
    assert "unreached: 1 tool(s) no valid call got past: query" in console


def test_a_tool_no_valid_call_gets_past_fails_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "out"
    policy = _policy(tmp_path, "door_sdk_mcp.py", ["search_notes", "ping"])
    code, console = _gate(policy, out)
    assert code == 1, console
    reach = json.loads((out / "search_notes.json").read_text())["reach"]
    assert reach["valid"]["calls"] == 20 and reach["valid"]["reached"] == 0
    assert reach["commonest"]["count"] == 20
    assert reach["commonest"]["cause"] == "tool-error unknown vault"
    assert reach["hostile"]["rejectedForSchema"] > 0
    comment = (out / "comment.md").read_text(encoding="utf-8")
    top = comment.split("**base**")[0]  # said before anything else
    assert "**search\\_notes** never got past: Unknown vault: " in top
    assert "(20 of 20 valid calls)" in top and "ping" not in top
    unreached = [r for r in _sarif_results(out) if r["ruleId"] == "unreached"]
    assert len(unreached) == 1 and "search_notes never got past" in unreached[0]["message"]["text"]
    assert "unreached: search_notes never got past: Unknown vault: " in console
    # a policy that accepts it: noted, not failing
    text = policy.read_text().replace(
        "tools:\n",
        "gate: {fail_on: [invariant, unreached, {allow-unreached: true, "
        "tools: [search_notes]}]}\ntools:\n",
        1,
    )
    policy.write_text(text)
    code, console = _gate(policy, tmp_path / "allowed")
    assert code == 0, console
    assert "unreached: allowed by the policy: search_notes" in console
