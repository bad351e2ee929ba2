"""`fuzz` end to end on CrewAI's Daytona file tool (thirteen `if`/`then`s on `action`, from the
corpus): a handler that checks its arguments passes with the `conditional` family tested, one
that ignores the conditionals is caught by their near-misses, and one that reads a member the
schema only requires for another action crashes on a valid call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli_helpers import invoke

DAYTONA = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "corpus"
    / "crewai"
    / "crewai-tools"
    / "DaytonaFileTool.json"
)

HANDLERS = '''"""Three Daytona-like file tools over one schema."""

import json
import pathlib

import jsonschema

SCHEMA = json.loads((pathlib.Path(__file__).parent / "schema.json").read_text())
BASE = {key: value for key, value in SCHEMA.items() if key != "allOf"}


def _checked(arguments, schema):
    try:
        jsonschema.validate(arguments, schema)
    except jsonschema.ValidationError as error:
        raise ValueError(error.message) from None


def correct(**arguments):
    _checked(arguments, SCHEMA)
    content = arguments.get("content") or ""
    return {"action": arguments["action"], "bytes": len(content)}


def lax(**arguments):
    _checked(arguments, BASE)  # the per-action requirements are not checked
    return {"action": arguments["action"]}


def assumes_content(**arguments):
    _checked(arguments, SCHEMA)
    if arguments["action"] in ("write", "append"):
        return {"bytes": len(arguments["content"])}  # `write` does not require it
    return {"action": arguments["action"]}
'''


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(DAYTONA, tmp_path / "schema.json")
    (tmp_path / "daytona.py").write_text(HANDLERS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _fuzz(tool: Path, handler: str) -> tuple[int, str, dict[str, Any]]:
    out = tool / f"out-{handler}"
    code, text, err = invoke(
        "fuzz",
        "--schema",
        str(tool / "schema.json"),
        "--tool",
        "daytona_file",
        "--handler",
        f"python:daytona:{handler}",
        "--runs",
        "60",
        "--out",
        str(out),
    )
    assert "Traceback" not in err + text
    receipt = json.loads((out / "daytona_file.json").read_text(encoding="utf-8"))
    return code, text, receipt


@pytest.mark.slow
def test_a_correct_handler_passes_with_the_conditionals_tested(tool: Path) -> None:
    code, text, receipt = _fuzz(tool, "correct")
    assert code == 0, text
    assert receipt["coverage"]["conditional"] == "tested"
    counts = receipt["mutationCounts"]["conditional"]
    assert counts["confirmed"] > 0 and counts["discarded"] == 0, counts
    assert receipt["invariants"]["oracle-agreement"] is True
    assert receipt["cases"]["valid"] == 60


@pytest.mark.slow
def test_a_handler_that_ignores_the_conditionals_is_caught_by_their_near_misses(
    tool: Path,
) -> None:
    code, text, receipt = _fuzz(tool, "lax")
    assert code == 1, text
    found = [c for c in receipt["counterexamples"] if c["failure"] == "hostile-accepted"]
    assert found, text
    schema = json.loads(DAYTONA.read_text(encoding="utf-8"))
    reference = jsonschema.Draft202012Validator(schema)
    for example in found:
        assert example["keyword"] == "required", example  # each `then` requires a member
        assert not reference.is_valid(example["input"])
    assert receipt["invariants"]["hostile-rejected"] is False


@pytest.mark.slow
def test_a_member_required_for_one_action_only_is_a_crash_on_a_valid_call(tool: Path) -> None:
    code, text, receipt = _fuzz(tool, "assumes_content")
    assert code == 1, text
    crashes = [c for c in receipt["counterexamples"] if c["failure"] == "crash"]
    assert crashes, text
    assert all(c["input"]["action"] == "write" for c in crashes), crashes
    assert all(c["error"]["inputValid"] is True for c in crashes), crashes
    assert any("content" not in c["input"] for c in crashes), crashes
