"""A bug in the gate (issue 12): the short message stays, and the traceback is kept where a
user can attach it to a report: `internal-error.txt` in the output directory and, on an
Actions runner, the step summary."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import toolfuzz_gate.app.action
import toolfuzz_gate.cli
from toolfuzz_gate.cli import run


def _bug(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a planted bug")


def _quoting_bug(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a planted bug quoting ghs_secretTokenValue42")


def test_the_traceback_is_written_to_the_output_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolfuzz_gate.cli, "gate_policy", _bug)
    out, err = io.StringIO(), io.StringIO()
    code = run(["run", "--policy", "p.yml", "--out", str(tmp_path / "out")], out, err)
    assert code == 3
    assert "internal error: RuntimeError: a planted bug" in err.getvalue()
    saved = tmp_path / "out" / "internal-error.txt"
    assert str(saved) in err.getvalue()
    text = saved.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "def _bug" not in text
    assert "in _bug" in text and "RuntimeError: a planted bug" in text
    assert "Traceback" not in err.getvalue(), "stderr keeps the short message"


def test_the_action_keeps_the_traceback_in_its_results_and_the_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolfuzz_gate.app.action, "parse_event", _quoting_bug)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_STEP_SUMMARY": str(summary),
        "INPUT_OUTPUT-DIR": "results",
        "INPUT_GITHUB-TOKEN": "ghs_secretTokenValue42",
    }
    out, err = io.StringIO(), io.StringIO()
    assert run(["action"], out, err, environ) == 3
    saved = tmp_path / "results" / "internal-error.txt"
    assert "RuntimeError: a planted bug quoting ***" in saved.read_text(encoding="utf-8")
    shown = summary.read_text(encoding="utf-8")
    assert "ghs_secretTokenValue42" not in shown + err.getvalue()
    assert "internal error: RuntimeError: a planted bug quoting ***" in err.getvalue()
    assert shown.startswith("earlier step\n")
    assert "<details>" in shown and "```text\n" in shown and "in _quoting_bug" in shown
