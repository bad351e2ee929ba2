"""`mode: report` end to end: the comment rendered from another run's results says whose
report it is (the forged-receipt properties of `report_document` are in
`tests/app/test_action_report.py`)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import FAULTS, POSTER_CONTRACT, invoke
from toolfuzz_gate.app.action_report import report_document
from toolfuzz_gate.cli import run
from toolfuzz_gate.core.agent.agent_receipt import build_agent_receipt
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.markdown import MIN_BUDGET, render_markdown
from toolfuzz_gate.edges.files import write_document

HEAD_SHA = "a" * 40


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A receipt the engine really wrote, with a counterexample (the lax width handler)."""
    out = tmp_path_factory.mktemp("genuine")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(FAULTS)
        code, _, err = invoke(
            "fuzz",
            "--schema",
            str(FAULTS / "poster_schema.json"),
            "--tool",
            "renderPoster",
            "--handler",
            "python:lax_width:render_poster",
            *POSTER_CONTRACT,
            "--runs",
            "24",
            "--out",
            str(out),
        )
    assert code == 1, err
    receipt: dict[str, Any] = json.loads((out / "renderPoster.json").read_text())
    assert receipt["counterexamples"]
    return receipt


def test_the_report_says_who_vouches_for_the_results(
    genuine: dict[str, Any], tmp_path: Path
) -> None:
    """Issue 12: in the workflow_run pattern the fork controls the run that made the
    receipts (their hash is no signature), so the comment says whose report it is."""
    results = tmp_path / "results"
    write_document(results / "renderPoster.json", genuine)
    summary = tmp_path / "summary.md"
    (tmp_path / "event.json").write_text(
        json.dumps({"workflow_run": {"head_sha": HEAD_SHA, "conclusion": "failure"}})
    )
    environ = {
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_REPOSITORY": "octo/tools",
        "GITHUB_STEP_SUMMARY": str(summary),
        "INPUT_MODE": "report",
        "INPUT_RESULTS-DIR": "results",
        "INPUT_OUTPUT-DIR": "out",
    }
    out, err = io.StringIO(), io.StringIO()
    assert run(["action"], out, err, environ) == 0, out.getvalue() + err.getvalue()
    label = "## toolfuzz-gate: \u274c failed (reported by the pull request's own run)"
    body = (tmp_path / "out" / "report" / "comment.md").read_text(encoding="utf-8")
    assert body.splitlines()[2] == label, body[:400]
    assert label in summary.read_text(encoding="utf-8")
    document = report_document(results, HEAD_SHA)
    context = ReportContext(failed=True, reported_by="reported by the pull request's own run")
    assert label in render_markdown(document, context, MIN_BUDGET)


def _report(tmp_path: Path) -> tuple[int, str, str]:
    (tmp_path / "event.json").write_text(
        json.dumps({"workflow_run": {"head_sha": HEAD_SHA, "conclusion": "failure"}})
    )
    environ = {
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_REPOSITORY": "octo/tools",
        "INPUT_MODE": "report",
        "INPUT_RESULTS-DIR": "results",
        "INPUT_OUTPUT-DIR": "out",
    }
    out, err = io.StringIO(), io.StringIO()
    code = run(["action"], out, err, environ)
    return code, out.getvalue(), err.getvalue()


def _agent_receipt(prompt: str) -> dict[str, Any]:
    reached: JSONObject = {
        "kind": "counterexample",
        "agentReachable": True,
        "outcome": "reachable",
        "fingerprint": "69c8a3b551e4aa29103272c7",
        "failure": "crash",
        "path": "/width",
        "prompt": prompt,
    }
    erroneous: JSONObject = {
        "erroneous": True,
        "template": "Render a poster [A] wide",
        "prompts": ["Render a poster 10 wide", "Render a poster ten wide"],
        "failingPrompts": ["Render a poster ten wide"],
        "underspecified": ["width"],
        "refinement": None,
    }
    model: JSONObject = {"model": "stand-in", "baseUrl": "http://127.0.0.1:1/v1", "parameters": {}}
    budget: JSONObject = {"maxRequests": 1, "maxTokens": 1, "requests": 1, "tokens": 1}
    return build_agent_receipt(
        "renderPoster",
        {"file": "renderPoster.json"},
        model,
        None,
        budget,
        [reached],
        [],
        [],
        [erroneous],
    )


def test_report_mode_renders_the_agent_sections_from_the_first_runs_agent_receipts(
    genuine: dict[str, Any], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    write_document(results / "renderPoster.json", genuine)
    hostile = "Make it <img src=x onerror=alert(1)> wide, cc @octocat, ::error::"
    write_document(results / "agent" / "renderPoster.json", _agent_receipt(hostile))
    code, out, err = _report(tmp_path)
    assert code == 0, out + err
    body = (tmp_path / "out" / "report" / "comment.md").read_text(encoding="utf-8")
    assert "<details><summary>Agent-reachable (1)</summary>" in body
    (row,) = [
        line for line in body.splitlines() if line.startswith("| on head | renderPoster | crash")
    ]
    assert "<img" not in row and "@octocat" not in row and "&lt;img" in row
    assert "<details><summary>Documentation: agent correctness (1)</summary>" in body
    assert "\u201cRender a poster ten wide\u201d (fails)" in body
    # an edited agent receipt is refused, naming it
    forged = _agent_receipt("Make it wide")
    forged["findings"][0]["fingerprint"] = "0" * 24
    write_document(results / "agent" / "renderPoster.json", forged)
    code, out, err = _report(tmp_path)
    assert code == 2 and "agent receipt" in err and "does not match" in err


def test_report_mode_without_agent_receipts_has_no_agent_section(
    genuine: dict[str, Any], tmp_path: Path
) -> None:
    write_document(tmp_path / "results" / "renderPoster.json", genuine)
    code, out, err = _report(tmp_path)
    assert code == 0, out + err
    body = (tmp_path / "out" / "report" / "comment.md").read_text(encoding="utf-8")
    assert "Agent-reachable" not in body and "agent correctness" not in body
