"""`fuzz --tools`, `--model` and `--dialect` through `cli.run`, with real handler workers."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke
from toolfuzz_gate.contract import poster

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
MODELS = Path(__file__).parents[1] / "fixtures" / "models"
POSTER_HANDLER = (
    "--handler",
    "python:correct:render_poster",
    "--rejects",
    "toolfuzz_gate.contract.poster:ToolError",
    "--expected-rejection",
    "policy-pixel-budget",
    "--expected-rejection",
    "policy-duplicate-semantic-intent",
    "--runs",
    "6",
)


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture
def tools_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(FAULTS)
    path = tmp_path / "tools.json"
    tools = [
        {"type": "function", "function": {"name": name, "parameters": poster.SCHEMA}}
        for name in ("renderPoster", "renderPosterAgain")
    ]
    path.write_text(json.dumps(tools), encoding="utf-8")
    return path


def test_every_tool_in_a_tools_file_gets_its_receipt(tools_file: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "receipts"
    code, out, err = invoke(
        "fuzz", "--tools", str(tools_file), *POSTER_HANDLER, "--out", str(out_dir)
    )
    assert code == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "annotations.txt",  # the reports a policy run writes: `fuzz` is one
        "comment.md",
        "junit.xml",
        "renderPoster.json",
        "renderPosterAgain.json",
        "results.sarif",
        "summary.json",
    ]
    summary = read(out_dir / "summary.json")
    assert [t["receipt"] for t in summary["tools"]] == [
        "renderPoster.json",
        "renderPosterAgain.json",
    ]
    assert read(out_dir / "renderPosterAgain.json")["tool"] == "renderPosterAgain"
    assert "dialect" not in read(out_dir / "renderPoster.json")
    assert out.count("gate: passed") == 1


def test_tool_picks_one_and_unknown_names_are_usage_errors(
    tools_file: Path, tmp_path: Path
) -> None:
    receipt = tmp_path / "one.json"
    code, _, err = invoke(
        "fuzz", "--tools", str(tools_file), "--tool", "renderPosterAgain", *POSTER_HANDLER,
        "--receipt", str(receipt),
    )  # fmt: skip
    assert code == 0, err
    assert read(receipt)["tool"] == "renderPosterAgain"
    code, _, err = invoke("fuzz", "--tools", str(tools_file), "--tool", "nope", *POSTER_HANDLER)
    assert code == 2
    assert "declares no tool named 'nope'" in err and "renderPosterAgain" in err


def test_schema_sources_conflict(tools_file: Path) -> None:
    code, _, err = invoke(
        "fuzz", "--tools", str(tools_file), "--schema", "poster_schema.json", *POSTER_HANDLER
    )
    assert code == 2 and "--schema and --tools conflict" in err
    code, _, err = invoke("fuzz", "--model", "a:B", "--tools", str(tools_file), *POSTER_HANDLER)
    assert code == 2 and "--tools and --model conflict" in err
    code, _, err = invoke("fuzz", *POSTER_HANDLER)
    assert code == 2 and "--schema, --tools or --model is required" in err


def test_a_malformed_tools_file_names_file_pointer_and_line(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        '[\n  {"name": "a", "input_schema": {}},\n  {"name": "a", "input_schema": {}}\n]'
    )
    code, _, err = invoke("fuzz", "--tools", str(path), *POSTER_HANDLER)
    assert code == 2
    assert f"error[tools.invalid]: {path}:3: tool 'a' is declared twice at /1" in err


def test_dialect_rewrites_reach_the_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(FAULTS)
    schema = copy.deepcopy(poster.SCHEMA)
    schema["type"] = "dict"
    path = tmp_path / "bfcl_poster.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    code, out, err = invoke(
        "fuzz", "--schema", str(path), *POSTER_HANDLER, "--out", str(tmp_path / "o")
    )
    assert code == 1 and "`--dialect bfcl` reads 'dict' as object" in out, err
    receipt = tmp_path / "r.json"
    code, _, err = invoke(
        "fuzz",
        "--schema",
        str(path),
        "--dialect",
        "bfcl",
        *POSTER_HANDLER,
        "--receipt",
        str(receipt),
    )
    assert code == 0, err
    body = read(receipt)
    assert body["dialect"] == {
        "name": "bfcl",
        "rewrites": [{"pointer": "/type", "from": "dict", "to": "object", "dialect": "bfcl"}],
    }
    assert "--dialect bfcl" in body["replayCommand"]


def test_a_pydantic_model_is_fuzzed_through_its_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(MODELS)
    receipt = tmp_path / "flat.json"
    code, _, err = invoke(
        "fuzz", "--model", "search_models:Flat", "--handler", "python:search_handler:search",
        "--runs", "8", "--receipt", str(receipt),
    )  # fmt: skip
    assert code == 0, err
    body = read(receipt)
    assert body["tool"] == "Flat"
    assert body["counterexamples"] == []
    assert body["cases"]["hostile"] > 0


def test_an_unusable_model_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(MODELS)
    code, _, err = invoke("fuzz", "--model", "search_models:NotAModel", *POSTER_HANDLER)
    assert code == 2
    assert "error[tools.invalid]: --model search_models:NotAModel:" in err
