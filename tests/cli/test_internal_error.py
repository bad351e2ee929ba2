"""A bug in the gate (issue 12): the short message stays, and the traceback is kept where a
user can attach it to a report: `internal-error.txt` in the output directory and, on an
Actions runner, the step summary."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

import toolfuzz_gate.app.action
import toolfuzz_gate.app.fuzz
import toolfuzz_gate.app.lint
import toolfuzz_gate.app.policy_gate
from toolfuzz_gate.cli import run


def _bug(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a planted bug")


def _quoting_bug(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a planted bug quoting ghs_secretTokenValue42")


def test_the_traceback_is_written_to_the_output_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolfuzz_gate.app.policy_gate, "gate_policy", _bug)
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


def test_fuzz_without_out_keeps_the_traceback_in_its_receipts_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: `fuzz` writes its receipts to `toolfuzz-receipts/` unless told otherwise, so
    its crash file goes there too (it went to a temporary file), or beside `--receipt`."""
    monkeypatch.setattr(toolfuzz_gate.app.fuzz, "fuzz", _bug)
    monkeypatch.chdir(tmp_path)
    schema = ["--schema", "s.json", "--handler", "python:json:dumps"]
    for extra, saved in (
        ([], Path("toolfuzz-receipts") / "internal-error.txt"),
        (["--receipt", "r/t.json"], Path("r") / "internal-error.txt"),
        (["--out", "o"], Path("o") / "internal-error.txt"),
    ):
        out, err = io.StringIO(), io.StringIO()
        assert run(["fuzz", *schema, *extra], out, err) == 3
        assert f"please report it with {saved}" in err.getvalue()
        assert "RuntimeError: a planted bug" in (tmp_path / saved).read_text(encoding="utf-8")


def test_lint_names_the_temporary_file_it_keeps_the_traceback_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lint` has no output directory: the traceback goes to a fresh temporary file, named."""
    monkeypatch.setattr(toolfuzz_gate.app.lint, "lint", _bug)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    assert run(["lint", "s.json"], out, err) == 3
    (saved,) = tmp_path.glob("toolfuzz-gate-internal-error-*.txt")
    assert f"please report it with {saved}" in err.getvalue()
    assert "toolfuzz-gate lint s.json" in saved.read_text(encoding="utf-8")


ISSUE_15_SCHEMAS = {
    # the `oneOf` near-miss conjoining two `const` branches (ZeroDivisionError)
    "one-of-consts": {
        "type": "object",
        "properties": {"k": {"oneOf": [{"const": "a"}, {"const": "b"}]}},
        "required": ["k"],
    },
    # pydantic's `set[Model]` (AttributeError)
    "set-of-models": {
        "type": "object",
        "properties": {"s": {"type": "array", "uniqueItems": True, "items": {"$ref": "#/$defs/M"}}},
        "$defs": {"M": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    },
    # a root without `type: object` (AssertionError at the handler seam)
    "untyped-root": {"properties": {"path": {"type": "string"}}, "required": ["path"]},
}


@pytest.mark.parametrize("name", sorted(ISSUE_15_SCHEMAS))
def test_the_schemas_that_crashed_are_fuzzed(tmp_path: Path, name: str) -> None:
    schema = tmp_path / f"{name}.json"
    schema.write_text(json.dumps(ISSUE_15_SCHEMAS[name]), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    argv = ["fuzz", "--schema", str(schema), "--handler", "python:json:dumps", "--runs", "4"]
    code = run([*argv, "--out", str(tmp_path / "out")], out, err)
    assert code in (0, 1), err.getvalue()
    assert "internal error" not in err.getvalue()
    assert (tmp_path / "out" / f"{name}.json").is_file()
    assert run(["lint", str(schema)], io.StringIO(), io.StringIO()) == 0


def test_a_lone_surrogate_in_a_string_is_refused_not_a_crash(tmp_path: Path) -> None:
    """Issue 15: given as JSON text with the escape, in a `required` name or an `enum`."""
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object", "properties": {"a": {"enum": ["\\ud800"]}}}')
    out, err = io.StringIO(), io.StringIO()
    argv = ["fuzz", "--schema", str(schema), "--handler", "python:json:dumps"]
    assert run([*argv, "--out", str(tmp_path / "out")], out, err) == 1
    assert "schema.lone-surrogate at /properties/a/enum/0" in out.getvalue() + err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert run(["lint", str(schema)], out, err) == 2
    assert "error[schema.lone-surrogate] /properties/a/enum/0" in out.getvalue()


def test_credential_variables_are_masked_in_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def _quoting_key(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a planted bug quoting sk-modelKey1234 and hf_readToken99")

    monkeypatch.setattr(toolfuzz_gate.app.policy_gate, "gate_policy", _quoting_key)
    out, err = io.StringIO(), io.StringIO()
    environ = {"OPENAI_API_KEY": "sk-modelKey1234", "HF_TOKEN": "hf_readToken99", "LANG": "C"}
    argv = ["run", "--policy", "p.yml", "--out", str(tmp_path / "out")]
    assert run(argv, out, err, environ) == 3
    text = (tmp_path / "out" / "internal-error.txt").read_text(encoding="utf-8")
    for shown in (err.getvalue(), text):
        assert "quoting *** and ***" in shown
        assert "sk-modelKey1234" not in shown and "hf_readToken99" not in shown
