"""`toolfuzz-gate lint` end to end through `cli.run`: exit status, locations, JSON shape.

The pydantic cases run `model_json_schema()` in a real subprocess (fixtures in
`tests/fixtures/models/`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke
from toolfuzz_gate.contract import poster
from toolfuzz_gate.edges.models import load_model_schema

MODELS = Path(__file__).parents[1] / "fixtures" / "models"

BFCL = {
    "name": "calculate_triangle_area",
    "description": "Calculate the area of a triangle given its base and height.",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer", "description": "The base of the triangle."},
            "height": {"type": "float", "description": "The height of the triangle."},
            "unit": {"type": "string", "description": "The unit.", "optional": True},
        },
        "required": ["base", "height"],
    },
}


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def lint_json(*argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = invoke("lint", "--format", "json", *argv)
    assert err == ""
    return code, json.loads(out)


def line_containing(path: Path, text: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(text)


def test_the_builtin_contract_lints_clean(tmp_path: Path) -> None:
    path = write(tmp_path / "poster.json", poster.SCHEMA)
    code, out, err = invoke("lint", str(path))
    assert (code, err) == (0, "")
    assert out.strip() == "lint: ok: 1 tool(s), 0 error(s), 0 warning(s)"


@pytest.fixture
def pydantic_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(MODELS)
    return write(tmp_path / "search.json", load_model_schema("search_models:SearchRequest"))


def test_a_pydantic_schema_with_defs_and_optional_lints_clean(pydantic_schema: Path) -> None:
    schema = json.loads(pydantic_schema.read_text(encoding="utf-8"))
    assert "$defs" in schema and "anyOf" in schema["properties"]["location"]
    code, report = lint_json(str(pydantic_schema))
    assert (code, report["ok"], report["findings"]) == (0, True, [])
    assert report["tools"][0]["compiles"] is True


def test_a_refused_pydantic_schema_names_each_keyword_with_pointer_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(MODELS)
    path = write(tmp_path / "coded.json", load_model_schema("search_models:Coded"))
    code, report = lint_json(str(path))
    assert code == 2 and report["ok"] is False
    [error] = report["findings"]
    assert (error["severity"], error["code"], error["pointer"], error["keyword"]) == (
        "error",
        "schema.unsupported-pattern",
        "/properties/code/pattern",
        "pattern",
    )
    assert '"pattern"' in path.read_text(encoding="utf-8").splitlines()[error["line"] - 1]


def test_models_through_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(MODELS)
    code, out, _ = invoke("lint", "--model", "search_models:SearchRequest")
    assert code == 0, out
    code, out, _ = invoke("lint", "--model", "search_models:Coded")
    assert code == 2
    assert (
        "--model search_models:Coded: error[schema.unsupported-pattern] "
        "/properties/code/pattern (tool Coded)"
    ) in out
    code, out, _ = invoke("lint", "--model", "search_models:Sloppy")
    assert code == 0
    assert "warning[lint.default-invalid] /properties/nickname/default (tool Sloppy)" in out
    code, out, _ = invoke("lint", "--model", "search_models:NotAModel")
    assert code == 2 and "error[tools.invalid]" in out


def test_a_bfcl_file_without_and_with_its_dialect(tmp_path: Path) -> None:
    path = write(tmp_path / "bfcl.json", [BFCL])
    code, out, _ = invoke("lint", str(path))
    assert code == 2
    height = line_containing(path, '"type": "float"')
    assert (
        f"{path}:{height}: error[schema.unknown-type] /0/parameters/properties/height/type "
        "(tool calculate_triangle_area)"
    ) in out
    assert "`--dialect bfcl` reads 'float' as number" in out
    assert "/0/parameters/properties/unit/optional" in out and "`--dialect bfcl` reads it" in out

    code, report = lint_json(str(path), "--dialect", "bfcl")
    assert code == 0 and report["ok"] is True
    [tool] = report["tools"]
    assert tool["dialect"]["name"] == "bfcl"
    assert {"pointer": "/properties/height/type", "from": "float", "to": "number",
            "dialect": "bfcl"} in tool["dialect"]["rewrites"]  # fmt: skip
    code, out, _ = invoke("lint", str(path), "--dialect", "bfcl")
    assert "note[dialect.bfcl] /0/parameters/properties/height/type" in out
    assert out.rstrip().endswith("lint: ok: 1 tool(s), 0 error(s), 0 warning(s)")


def test_json_output_shape_and_documentation_findings(tmp_path: Path) -> None:
    tools = [
        {
            "name": "search",
            "input_schema": {
                "type": "object",
                "properties": {
                    "q": {"type": "string", "default": None},
                    "mode": {"type": "string", "examples": [3]},
                },
                "required": ["q", "page"],
            },
        },
        {
            "name": "noop",
            "input_schema": {"$schema": "https://json-schema.org/draft/2020-12/schema"},
        },
    ]
    path = write(tmp_path / "anthropic.json", tools)
    code, report = lint_json(str(path))
    assert code == 0  # warnings only
    assert set(report) == {"format", "ok", "tools", "findings"}
    assert report["format"] == "toolfuzz-lint/1" and report["ok"] is True
    assert [(t["tool"], t["form"], t["pointer"], t["compiles"]) for t in report["tools"]] == [
        ("search", "anthropic", "/0/input_schema", True),
        ("noop", "anthropic", "/1/input_schema", True),
    ]
    found = [(f["severity"], f["code"], f["tool"], f["pointer"]) for f in report["findings"]]
    assert found == [
        ("warning", "lint.default-invalid", "search", "/0/input_schema/properties/q/default"),
        ("warning", "lint.example-invalid", "search", "/0/input_schema/properties/mode/examples/0"),
        ("warning", "lint.required-undefined", "search", "/0/input_schema/required/1"),
        ("warning", "lint.empty-schema", "noop", "/1/input_schema"),
    ]
    first = report["findings"][0]
    assert set(first) == {
        "severity",
        "code",
        "file",
        "tool",
        "pointer",
        "line",
        "keyword",
        "message",
    }
    assert first["file"] == str(path)
    assert first["line"] == line_containing(path, '"default": null')


def test_contradictions_fail_and_the_enum_warning_is_not_repeated(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"e": {"type": "string", "enum": ["a", 1]}}}
    code, report = lint_json(str(write(tmp_path / "x.schema.json", schema)))
    assert code == 2
    assert [(f["severity"], f["code"], f["pointer"]) for f in report["findings"]] == [
        ("error", "schema.contradiction", "/properties/e/enum/1")
    ]


def test_a_root_that_is_not_an_object_is_an_error(tmp_path: Path) -> None:
    code, report = lint_json(str(write(tmp_path / "s.json", {"type": "string"})))
    assert code == 2
    assert report["findings"][0]["code"] == "schema.root-not-object"


def test_unreadable_and_malformed_files_are_named_and_others_still_linted(tmp_path: Path) -> None:
    good = write(tmp_path / "good.json", poster.SCHEMA)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    mixed = write(
        tmp_path / "mixed.json",
        [{"name": "a", "input_schema": {}}, {"name": "b", "inputSchema": {}}],
    )
    missing = tmp_path / "missing.json"
    code, report = lint_json(str(good), str(broken), str(mixed), str(missing))
    assert code == 2
    errors = {f["file"]: f for f in report["findings"]}
    assert errors[str(broken)]["code"] == "input.unreadable"
    assert errors[str(missing)]["code"] == "input.unreadable"
    assert errors[str(mixed)]["code"] == "tools.invalid"
    assert errors[str(mixed)]["pointer"] == "/1"
    assert errors[str(mixed)]["line"] == line_containing(mixed, '"name": "b"') - 1
    assert [t["tool"] for t in report["tools"]] == ["good"]  # a bare schema: the file stem


def test_format_assertion_judges_defaults_by_their_format(tmp_path: Path) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"to": {"type": "string", "format": "email"}},
    }
    schema["properties"]["to"]["default"] = "not an address"
    path = write(tmp_path / "mail.json", schema)
    assert lint_json(str(path))[1]["findings"] == []
    code, report = lint_json(str(path), "--format-assertion")
    assert code == 0
    assert [f["code"] for f in report["findings"]] == ["lint.default-invalid"]


def test_usage() -> None:
    code, _, err = invoke("lint")
    assert code == 2 and "lint needs a FILE" in err
    code, _, err = invoke("lint", "x.json", "--dialect", "nope")
    assert code == 2 and "invalid choice" in err


def test_default_draft_reads_schemas_without_dollar_schema(tmp_path: Path) -> None:
    schema = tmp_path / "tuple.schema.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"pair": {"type": "array", "items": [{"type": "string"}]}},
            }
        ),
        encoding="utf-8",
    )
    refused = invoke("lint", str(schema))
    assert refused[0] == 2 and "/properties/pair/items" in refused[1] + refused[2]
    read_as_draft_07 = invoke("lint", "--default-draft", "draft-07", str(schema))
    assert read_as_draft_07[0] == 0, read_as_draft_07
