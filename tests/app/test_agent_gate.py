"""Agent mode in the gate: `run --policy` runs it when `fail_on` lists an agent check, and
its findings fail the gate only then. The model is the example's scripted stand-in on
127.0.0.1, recording (so the test does not depend on the committed cassette)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from tests.action_env import searchable_by_others
from tests.app.test_agent_example import example_copy, stand_in
from tests.llm_server import dead_endpoint
from toolfuzz_gate.cli import run
from toolfuzz_gate.core.jsonutil.canonical import digest
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.exitcodes import ExitCode


def _gate(policy: Path, fail_on: str, out: Path) -> tuple[int, str, str]:
    text = policy.read_text("utf-8").replace("tools:\n", f"gate:\n  fail_on: {fail_on}\ntools:\n")
    policy.write_text(text, "utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["run", "--policy", str(policy), "--root", str(policy.parent), "--out", str(out)]
    code = run(argv, stdout, stderr, {})
    return code, stdout.getvalue(), stderr.getvalue()


def test_fail_on_agent_correctness_runs_the_agent_and_fails_on_the_erroneous_set(
    tmp_path: Path,
) -> None:
    example = example_copy(tmp_path)
    with stand_in(example) as policy:
        code, out, err = _gate(policy, "[agent-correctness]", tmp_path / "out")
    assert code == ExitCode.FAILED, err
    assert (
        "  - agent-correctness: erroneous prompt sets: 1 in geocode (1); underspecified: "
        "geocode country; description fixes verified: 1 of 1\n" in out
    )
    assert "  - invariant:" not in out  # the crash alone does not fail it here
    receipt = json.loads((tmp_path / "out" / "agent" / "geocode.json").read_text("utf-8"))
    assert receipt["summary"]["erroneous"] == 1
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    assert summary["verdict"] == "failed" and len(summary["reasons"]) == 1
    comment = (tmp_path / "out" / "comment.md").read_text("utf-8")
    assert "<details><summary>Documentation: agent correctness (1)</summary>" in comment
    (row,) = [
        line for line in comment.splitlines() if line.startswith("| on head | geocode | Where is")
    ]
    assert "| country | tool: Find the coordinates of a city. Many city names" in row
    assert "country: The country the city is in" in row and row.endswith("| yes (0.6667 → 0.0) |")


def test_fail_on_agent_reachable_counts_the_reached_counterexample(tmp_path: Path) -> None:
    example = example_copy(tmp_path)
    with stand_in(example) as policy:
        code, out, err = _gate(policy, "[agent-reachable]", tmp_path / "out")
    assert code == ExitCode.FAILED, err
    assert (
        "  - agent-reachable: counterexamples an agent reaches and documentation probes "
        "failing: 1 in geocode (1)\n" in out
    )
    assert "agent-correctness" not in out


def test_without_an_agent_check_the_gate_never_runs_the_agent(tmp_path: Path) -> None:
    example = example_copy(tmp_path)
    (example / "cassette.json").unlink()  # replay would stop on the missing cassette
    code, out, err = _gate(example / "toolfuzz.yml", "[invariant]", tmp_path / "out")
    assert code == ExitCode.FAILED, err
    assert "agent mode" not in out and not (tmp_path / "out" / "agent").exists()
    assert "  - invariant: counterexamples on head: 1 in geocode (1)\n" in out


def test_an_agent_check_without_an_llm_section_is_a_usage_error(tmp_path: Path) -> None:
    example = example_copy(tmp_path)
    policy = example / "toolfuzz.yml"
    policy.write_text(policy.read_text("utf-8").split("llm:")[0], "utf-8")
    code, _, err = _gate(policy, "[invariant, agent-reachable]", tmp_path / "out")
    assert code == ExitCode.USAGE
    assert "fail_on lists agent-reachable, which needs agent mode" in err


def test_a_model_that_cannot_be_used_still_leaves_every_report(tmp_path: Path) -> None:
    example = example_copy(tmp_path)
    (example / "cassette.json").unlink()  # replay: the first request is a cassette miss
    code, out, err = _gate(example / "toolfuzz.yml", "[invariant, agent-reachable]", tmp_path / "o")
    assert code == ExitCode.MODEL, err  # the exit code names the cause, as before
    assert "agent mode unavailable: llm.cassette-" in out
    summary = json.loads((tmp_path / "o" / "summary.json").read_text("utf-8"))
    reasons = summary["reasons"]
    assert summary["verdict"] == "failed"
    assert reasons[0] == "invariant: counterexamples on head: 1 in geocode (1)"
    assert reasons[1].startswith("agent-reachable: agent mode unavailable: llm.cassette-")
    comment = (tmp_path / "o" / "comment.md").read_text("utf-8")
    assert "agent mode unavailable" in comment  # 0.5.0 wrote no summary, comment or SARIF
    assert (tmp_path / "o" / "results.sarif").is_file()


@pytest.mark.slow
def test_against_a_stored_baseline_agent_findings_are_new_still_or_fixed(tmp_path: Path) -> None:
    example = example_copy(tmp_path)
    fail_on = "[agent-reachable, agent-correctness]"
    code, _, err = _gate(example / "toolfuzz.yml", fail_on, tmp_path / "base")
    assert code == ExitCode.FAILED, err
    # the base reached another counterexample (sealed again, as the gate writes it)
    stored = tmp_path / "base" / "agent" / "geocode.json"
    receipt = json.loads(stored.read_text("utf-8"))
    receipt["findings"][0]["fingerprint"] = "0" * 24
    del receipt["agentReceiptHash"]
    receipt["agentReceiptHash"] = digest(receipt)
    write_document(stored, receipt)
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["run", "--policy", str(example / "toolfuzz.yml"), "--root", str(example)]
    argv += ["--out", str(tmp_path / "head"), "--baseline-dir", str(tmp_path / "base")]
    code = run(argv, stdout, stderr, {})
    assert code == ExitCode.FAILED, stderr.getvalue()
    out = stdout.getvalue()
    assert (
        "documentation probes failing: 1 in geocode (1); against the base: 1 new, 0 still\n" in out
    )
    assert "description fixes verified: 1 of 1; against the base: 0 new, 1 still\n" in out
    assert (
        "  - agent-reachable: fixed against the base: geocode counterexample crash at /country "
        "(000000000000000000000000)\n" in out
    )
    summary = json.loads((tmp_path / "head" / "summary.json").read_text("utf-8"))
    assert any(reason.startswith("agent-reachable: fixed against") for reason in summary["reasons"])
    comment = (tmp_path / "head" / "comment.md").read_text("utf-8")
    assert (
        "| new | geocode | crash at /country (69c8a3b551e4aa29103272c7) | Find the coordinates "
        "of Springfield in Freedonia. |" in comment
    )
    assert "| fixed | geocode | crash at /country (000000000000000000000000) |" in comment
    assert "| still | geocode | Where is \\[A\\]?: \u201cWhere is Paris?\u201d (fails);" in comment
    # an edited base agent receipt (not sealed again) is refused, naming it
    receipt["findings"][0]["fingerprint"] = "1" * 24
    write_document(stored, receipt)
    code = run(argv, io.StringIO(), stderr := io.StringIO(), {})
    assert code == ExitCode.USAGE and "agent receipt" in stderr.getvalue()
    assert "agentReceiptHash` does not match" in stderr.getvalue()


@pytest.mark.slow
def test_a_dead_endpoint_stops_at_the_run_deadline_and_every_report_is_still_written(
    tmp_path: Path,
) -> None:
    example = example_copy(tmp_path)
    policy = example / "toolfuzz.yml"
    with dead_endpoint() as url:
        text = policy.read_text("utf-8").replace("http://127.0.0.1:8765/v1", url)
        text = text.replace("mode: replay", "mode: live\n  run_deadline_s: 0.3")
        policy.write_text(text, "utf-8")
        code, out, err = _gate(policy, "[invariant, agent-reachable]", tmp_path / "o")
    assert code == ExitCode.MODEL, err
    assert "agent mode unavailable: llm.run-deadline: agent mode ran past its 0.3 s" in out
    directory = tmp_path / "o"
    summary = json.loads((directory / "summary.json").read_text("utf-8"))
    assert summary["verdict"] == "failed"
    assert summary["reasons"][1].startswith("agent-reachable: agent mode unavailable: llm.run-")
    for name in ("comment.md", "annotations.txt"):  # the verdict's reasons, where they go
        assert "agent mode unavailable: llm.run-deadline" in (directory / name).read_text("utf-8")
    # the schema campaign's crash is reported as ever
    assert "crash on a schema-valid call" in (directory / "junit.xml").read_text("utf-8")
    sarif = json.loads((directory / "results.sarif").read_text("utf-8"))
    assert "crash" in [r["ruleId"] for r in sarif["runs"][0]["results"]]


@pytest.mark.slow
def test_the_action_against_a_stored_baseline_diffs_the_agent_findings(tmp_path: Path) -> None:
    workspace = example_copy(tmp_path)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    searchable_by_others(workspace)  # as root the action runs the handler as another user
    policy = workspace / "toolfuzz.yml"
    code, _, err = _gate(policy, "[agent-reachable]", workspace / "stored")
    assert code == ExitCode.FAILED, err
    stored = workspace / "stored" / "agent" / "geocode.json"
    receipt = json.loads(stored.read_text("utf-8"))
    receipt["findings"][0]["fingerprint"] = "0" * 24  # the base reached another crash
    del receipt["agentReceiptHash"]
    receipt["agentReceiptHash"] = digest(receipt)
    write_document(stored, receipt)
    (tmp_path / "event.json").write_text("{}")
    environ = {
        "GITHUB_EVENT_NAME": "workflow_dispatch",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "octo/tools",
        "INPUT_POLICY": "toolfuzz.yml",
        "INPUT_BASELINE": "dir:stored",
        "INPUT_COMMENT": "off",
    }
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["action"], stdout, stderr, environ) == ExitCode.FAILED, stderr.getvalue()
    assert "; against the base: 1 new, 0 still\n" in stdout.getvalue()
    comment = (workspace / "toolfuzz-gate-results" / "comment.md").read_text("utf-8")
    assert "| new | geocode | crash at /country (69c8a3b551e4aa29103272c7) |" in comment
    assert "| fixed | geocode | crash at /country (000000000000000000000000) |" in comment
