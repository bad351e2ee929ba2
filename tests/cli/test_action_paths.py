"""The action's path inputs are checked as text (no `..`, not absolute) and then resolved:
a symlink in the workspace that leads out of it is refused (issue 12), as the policy's own
schema, cwd and corpus paths are."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from toolfuzz_gate.cli import run


@pytest.mark.parametrize(
    ("name", "link", "mode"),
    [
        ("output-dir", "toolfuzz-gate-results", "run"),
        ("policy", "toolfuzz-gate.yml", "run"),
        ("output-dir", "toolfuzz-gate-results", "report"),
        ("results-dir", "results", "report"),
    ],
)
def test_a_path_input_through_a_symlink_out_of_the_workspace_is_refused(
    tmp_path: Path, name: str, link: str, mode: str
) -> None:
    workspace, outside = tmp_path / "workspace", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "policy.yml").write_text("version: 1\ntools: []\n")
    target = outside / "policy.yml" if name == "policy" else outside
    (workspace / link).symlink_to(target)
    event = {"workflow_run": {"head_sha": "a" * 40, "conclusion": "success"}}
    (tmp_path / "event.json").write_text(json.dumps(event if mode == "report" else {}))
    environ = {
        "GITHUB_EVENT_NAME": "workflow_run" if mode == "report" else "workflow_dispatch",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "octo/tools",
        "INPUT_MODE": mode,
        "INPUT_BASELINE": "none",
        "INPUT_RESULTS-DIR": "results",
    }
    out, err = io.StringIO(), io.StringIO()
    code = run(["action"], out, err, environ)
    assert code == 2, out.getvalue() + err.getvalue()
    assert f"input {name}" in err.getvalue() and "out of the workspace" in err.getvalue()
    assert sorted(p.name for p in outside.iterdir()) == ["policy.yml"], "nothing written"
