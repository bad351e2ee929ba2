"""How real schemas are read, end to end through `cli.run`: names JSON Schema does not
define (annotations), long enums and deep nesting, and patterns the engine cannot build for.

The handler is a real worker subprocess that validates with the `jsonschema` library, so a
clean run means every case the gate judged agreed with the reference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

VALIDATING = """
import json
import jsonschema
from toolfuzz_gate.contract.poster import ToolError

VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA))


def call(**arguments):
    if not VALIDATOR.is_valid(arguments):
        raise ToolError("schema-invalid", "", "the arguments are not valid")
    return {"ok": True}
"""


def fuzz_validating(tmp_path: Path, schema: Any, *extra: str) -> tuple[int, str, dict[str, Any]]:
    module = f"SCHEMA = {json.dumps(schema)!r}\n{VALIDATING}"
    (tmp_path / "validating.py").write_text(module, encoding="utf-8")
    (tmp_path / "tool.json").write_text(json.dumps(schema), encoding="utf-8")
    receipt = tmp_path / "receipt.json"
    code, out, err = invoke(
        "fuzz",
        "--schema",
        str(tmp_path / "tool.json"),
        "--handler",
        "python:validating:call",
        "--rejects",
        "toolfuzz_gate.contract.poster:ToolError",
        "--error-codes",
        "^schema-",
        "--runs",
        "20",
        "--receipt",
        str(receipt),
        *extra,
    )
    assert "Traceback" not in out + err
    return code, out + err, json.loads(receipt.read_text(encoding="utf-8"))


COOKBOOK = {
    "type": "object",
    "properties": {
        "ticker": {"types": "string", "example": "AAPL"},
        "days": {"type": "integer", "minimum": 1, "maximum": 30, "optional": True},
    },
    "required": ["ticker"],
}


def test_names_json_schema_does_not_define_are_fuzzed_recorded_and_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, said, receipt = fuzz_validating(tmp_path, COOKBOOK)
    assert code == 0, said
    assert receipt["unsupported"] == [] and "refused" not in receipt
    assert receipt["schemaReading"]["ignoredKeywords"] == [
        {"keyword": "types", "pointer": "/properties/ticker/types"},
        {"keyword": "example", "pointer": "/properties/ticker/example"},
        {"keyword": "optional", "pointer": "/properties/days/optional"},
    ]
    code, out, _ = invoke("lint", str(tmp_path / "tool.json"))
    assert code == 0  # warnings never change the exit status
    assert "warning[lint.unknown-keyword] /properties/ticker/types" in out
    assert "did you mean 'type'?" in out
    assert "did you mean 'examples'?" in out
    assert "`--dialect bfcl` reads it" in out
    assert out.rstrip().endswith("0 error(s), 3 warning(s)")


def nested(levels: int, leaf: Any) -> Any:
    """`levels` objects, each holding the next as its one required property `a`, and an
    array of them on the way down: nesting like LINE Flex boxes or MongoDB pipelines."""
    schema = leaf
    for level in range(levels):
        if level % 3 == 2:
            schema = {"type": "array", "items": schema, "minItems": 1, "maxItems": 2}
        else:
            schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return schema


COUNTRY_CODES = [f"{a}{b}" for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJ"][:249]


def test_long_enums_and_deep_nesting_are_fuzzed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    schema = {
        "type": "object",
        "properties": {
            "country": {"type": "string", "enum": COUNTRY_CODES},
            "blocks": nested(24, {"type": "string", "enum": ["text", "image"]}),
        },
        "required": ["country", "blocks"],
        "additionalProperties": False,
    }
    code, said, receipt = fuzz_validating(tmp_path, schema)
    assert code == 0, said
    assert "refused" not in receipt and receipt["counterexamples"] == []
    assert receipt["cases"]["valid"] == 20 and receipt["coverage"]["enum"] == "tested"
    assert (receipt["limits"]["maxEnum"], receipt["limits"]["maxDepth"]) == (1024, 32)


JOB_ID = (
    "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
    "|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$"
)
FIRECRAWL_STATUS = {
    "type": "object",
    "properties": {"jobId": {"type": "string", "format": "uuid", "pattern": JOB_ID}},
    "required": ["jobId"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("extra", [(), ("--format-assertion",)])
def test_firecrawls_job_id_is_fuzzed_not_called_a_contradiction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, said, receipt = fuzz_validating(tmp_path, FIRECRAWL_STATUS, *extra)
    assert code == 0, said
    assert "refused" not in receipt and receipt["counterexamples"] == []
    assert receipt["coverage"]["pattern"] == "tested"


def test_a_pattern_the_engine_cannot_build_for_is_unbuildable_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "pattern": "^(abc)+$", "maxLength": 5, "minLength": 4}
        },
        "required": ["code"],
    }
    code, said, receipt = fuzz_validating(tmp_path, schema)
    assert code == 1
    assert "schema.unbuildable at /properties/code/pattern" in said
    assert "schema.contradiction" not in said and "admits no value" not in said
    assert [r["code"] for r in receipt["refused"]["reasons"]] == ["schema.unbuildable"]
    assert "could not build a value" in receipt["refused"]["reasons"][0]["hint"]
