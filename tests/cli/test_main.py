"""The command line end to end, through `cli.run` with injected streams.

Handlers named `python:...` run in real worker subprocesses; fixtures live in
`tests/fixtures/poster_faults/` (renderPoster with one planted bug each).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli_helpers import POSTER_CONTRACT, invoke
from toolfuzz_gate.contract import poster

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"


def fuzz_fault(tmp_path: Path, module: str, *extra: str) -> tuple[int, dict[str, Any]]:
    receipt = tmp_path / f"{module}.json"
    code, _, err = invoke(
        "fuzz",
        "--schema",
        str(FAULTS / "poster_schema.json"),
        "--handler",
        f"python:{module}:render_poster",
        *POSTER_CONTRACT,
        "--runs",
        "40",
        "--receipt",
        str(receipt),
        *extra,
    )
    assert code in (0, 1), err
    return code, json.loads(receipt.read_text(encoding="utf-8"))


POSTER_FAMILIES = {
    "type",
    "enum",
    "bounds",
    "length",
    "array-size",
    "required",
    "additionalProperties",
}
"""The mutation families the built-in contract's schema reaches."""


@pytest.fixture
def in_faults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FAULTS)


def test_run_default_passes_and_is_byte_identical(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    code, out, err = invoke("run", "--out", str(first))
    assert code == 0, err
    assert "gate: passed" in out
    assert invoke("run", "--out", str(second))[0] == 0
    name = f"{poster.TOOL_NAME}.json"
    assert (first / name).read_bytes() == (second / name).read_bytes()
    assert (first / "summary.json").read_bytes() == (second / "summary.json").read_bytes()
    receipt = json.loads((first / name).read_text(encoding="utf-8"))
    assert receipt["seed"] == 41 and receipt["runs"] == 24
    assert receipt["counterexamples"] == []
    assert all(receipt["invariants"].values())
    tested = {family for family, state in receipt["coverage"].items() if state == "tested"}
    assert tested == POSTER_FAMILIES
    assert set(receipt["coverage"].values()) == {"tested", "not-applicable"}


def test_run_seed_changes_the_valid_cases(tmp_path: Path) -> None:
    invoke("run", "--out", str(tmp_path / "a"), "--cases", str(tmp_path / "a.jsonl"))
    invoke(
        "run", "--seed", "42", "--out", str(tmp_path / "b"), "--cases", str(tmp_path / "b.jsonl")
    )

    def valid_inputs(path: Path) -> list[Any]:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [line["input"] for line in lines if line["family"] == "valid"]

    a, b = valid_inputs(tmp_path / "a.jsonl"), valid_inputs(tmp_path / "b.jsonl")
    assert len(a) == len(b) == 24
    assert a != b


def test_cases_file_records_every_executed_case(tmp_path: Path) -> None:
    invoke("run", "--out", str(tmp_path), "--cases", str(tmp_path / "cases.jsonl"))
    lines = [json.loads(x) for x in (tmp_path / "cases.jsonl").read_text("utf-8").splitlines()]
    receipt = json.loads((tmp_path / f"{poster.TOOL_NAME}.json").read_text("utf-8"))
    assert len(lines) == sum(receipt["cases"].values())
    families = {line["family"] for line in lines}
    assert {"valid", "seam", "required", "enum", "type", "bounds", "length"} <= families
    assert all({"input", "family", "path", "outcome"} <= set(line) for line in lines)


@pytest.mark.usefixtures("in_faults")
def test_commit_before_validate_is_mutation_on_rejection(tmp_path: Path) -> None:
    code, receipt = fuzz_fault(tmp_path, "commit_first", "--effects", "commit_first:snapshot")
    assert code == 1
    failures = {c["failure"] for c in receipt["counterexamples"]}
    assert "mutation-on-rejection" in failures
    assert receipt["invariants"]["no-mutation-on-rejection"] is False
    hostile = [
        c
        for c in receipt["counterexamples"]
        if c["failure"] == "mutation-on-rejection" and c["inputKind"] == "hostile"
    ]
    assert hostile
    for example in hostile:
        assert example["sizes"][-1] <= example["sizes"][0]
        assert not jsonschema.Draft202012Validator(poster.SCHEMA).is_valid(example["input"])


@pytest.mark.usefixtures("in_faults")
def test_width_401_accepted_is_hostile_accepted_and_shrunk(tmp_path: Path) -> None:
    code, receipt = fuzz_fault(tmp_path, "lax_width")
    assert code == 1
    [example] = receipt["counterexamples"]
    assert example["failure"] == "hostile-accepted"
    assert example["path"] == "/width"
    assert example["mutation"] == "bounds"
    assert example["input"]["width"] == 401
    # Shrunk: only required members, each at its simplest value.
    assert set(example["input"]) == {"title", "format", "width", "height", "palette"}
    assert example["input"]["height"] == 64
    assert len(example["input"]["title"]) == 1
    assert example["sizes"] == sorted(example["sizes"], reverse=True)


@pytest.mark.usefixtures("in_faults")
def test_crash_on_one_character_title_is_a_valid_input_crash(tmp_path: Path) -> None:
    code, receipt = fuzz_fault(tmp_path, "short_title")
    assert code == 1
    crashes = [
        c
        for c in receipt["counterexamples"]
        if c["failure"] == "crash" and c["inputKind"] == "valid"
    ]
    [example] = crashes
    assert len(example["input"]["title"]) == 1
    assert example["error"]["inputValid"] is True
    assert "IndexError" in example["error"]["message"]
    assert jsonschema.Draft202012Validator(poster.SCHEMA).is_valid(example["input"])


@pytest.mark.usefixtures("in_faults")
def test_random_nonce_is_replay_unstable(tmp_path: Path) -> None:
    code, receipt = fuzz_fault(tmp_path, "nonce", "--deterministic")
    assert code == 1
    failures = [c["failure"] for c in receipt["counterexamples"]]
    assert failures == ["replay-unstable"]
    [example] = receipt["counterexamples"]
    assert set(example["input"]) == {"title", "format", "width", "height", "palette"}


@pytest.mark.usefixtures("in_faults")
def test_correct_handler_through_the_worker_has_no_findings(tmp_path: Path) -> None:
    code, receipt = fuzz_fault(tmp_path, "correct", "--effects", "correct:snapshot")
    assert code == 0
    assert receipt["counterexamples"] == []
    assert receipt["handler"] == {
        "spec": "python:correct:render_poster",
        "rejects": ["toolfuzz_gate.contract.poster:ToolError"],
        "effects": "correct:snapshot",
    }


def test_receipts_are_deterministic_through_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(FAULTS)
    _, first = fuzz_fault(tmp_path / "a", "lax_width")
    _, second = fuzz_fault(tmp_path / "b", "lax_width")
    assert first == second


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "--bogus"], "unrecognized arguments"),
        (["run", "--seed", "1", "--seed", "2"], "--seed was given twice"),
        (["run", "--runs", "0"], "runs 0 is outside 1..1000"),
        (["run", "--runs", "1001"], "runs 1001 is outside 1..1000"),
        (["run", "--seed", str(2**31)], "not a signed 32-bit integer"),
        (["fuzz", "--handler", "python:x:y"], "required"),
        (
            ["fuzz", "--schema", "s.json", "--process-limit", "-1", "--command", "--", "x"],
            "--process-limit must be 0 (no limit) or positive",
        ),
        (["nope"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_without_traceback(argv: list[str], needle: str) -> None:
    code, out, err = invoke(*argv)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err + out


def test_schema_errors_name_every_keyword_and_pointer(tmp_path: Path) -> None:
    schema = tmp_path / "tool.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "contentSchema": {"const": "a"},
                        "pattern": "(?i)^a",
                    },
                    "tags": {"type": "array", "items": {"type": "string", "unevaluatedItems": {}}},
                },
                "unevaluatedProperties": False,
            }
        ),
        encoding="utf-8",
    )
    receipt = tmp_path / "tool.receipt.json"
    code, out, err = invoke(
        "fuzz",
        "--schema",
        str(schema),
        "--handler",
        "builtin:renderPoster",
        "--receipt",
        str(receipt),
    )
    assert code == 1, err  # refused: the verdict fails, the run did not stop
    assert "schema.unsupported-keyword at /properties/name/contentSchema (line 1)" in out
    assert "schema.unsupported-pattern at /properties/name/pattern" in out
    assert "schema.unsupported-keyword at /properties/tags/items/unevaluatedItems" in out
    assert "schema.unsupported-keyword at /unevaluatedProperties" in out
    assert f"({receipt.name}):" in out  # the file named as `run --policy` names a receipt
    assert "hint:" in out
    assert "Traceback" not in err + out
    reasons = json.loads(receipt.read_text(encoding="utf-8"))["refused"]["reasons"]
    assert {(r["code"], r["pointer"]) for r in reasons} >= {
        ("schema.unsupported-pattern", "/properties/name/pattern"),
        ("schema.unsupported-keyword", "/unevaluatedProperties"),
    }


def test_unreadable_schema_files_exit_2(tmp_path: Path) -> None:
    missing = invoke("fuzz", "--schema", str(tmp_path / "no.json"), "--handler", "python:a:b")
    assert missing[0] == 2 and "cannot read schema" in missing[2]
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "object", "type": "string"}', encoding="utf-8")
    duplicate = invoke("fuzz", "--schema", str(bad), "--handler", "python:a:b")
    assert duplicate[0] == 2 and "duplicate key" in duplicate[2]
    bad.write_text('{"minimum": NaN}', encoding="utf-8")
    nan = invoke("fuzz", "--schema", str(bad), "--handler", "python:a:b")
    assert nan[0] == 2 and "NaN" in nan[2]


def test_an_unimportable_handler_refuses_the_tool(tmp_path: Path) -> None:
    schema = tmp_path / "tool.json"
    schema.write_text(json.dumps(poster.SCHEMA), encoding="utf-8")
    receipt = tmp_path / "receipt.json"
    code, out, err = invoke(
        "fuzz",
        "--schema",
        str(schema),
        "--handler",
        "python:no_such_module_xyz:fn",
        "--runs",
        "1",
        "--receipt",
        str(receipt),
    )
    assert code == 1, err
    assert "handler.unusable: " in out and "no_such_module_xyz" in out
    assert "Traceback" not in err + out
    [reason] = json.loads(receipt.read_text(encoding="utf-8"))["refused"]["reasons"]
    assert reason["code"] == "handler.unusable" and "no_such_module_xyz" in reason["message"]


@pytest.mark.usefixtures("in_faults")
def test_crash_past_64_characters_gets_a_verified_maxlength_64(tmp_path: Path) -> None:
    code, receipt = fuzz_fault(tmp_path, "long_title")
    assert code == 1
    [example] = [c for c in receipt["counterexamples"] if c["inputKind"] == "valid"]
    assert example["failure"] == "crash"
    assert example["path"] == "/title"
    assert "OverflowError" in example["error"]["message"]
    assert example["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/title/maxLength", "value": 64}
    ]
    assert example["suggestion"]["verified"] is True


MCP_SERVER = Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "poster_mcp.py"


@pytest.mark.slow
def test_fuzz_mcp_fuzzes_every_listed_tool_and_names_each(tmp_path: Path) -> None:
    import sys

    out = tmp_path / "receipts"
    code, text, err = invoke(
        "fuzz", "--runs", "4", "--out", str(out), "--strict", "--mcp", "--",
        sys.executable, str(MCP_SERVER), "--log-stdout",
    )  # fmt: skip
    # the business rules are not declared as expected rejections, and --strict says the
    # schemas are complete: their rejections are counterexamples
    assert code == 1, err
    names = sorted(path.stem for path in out.glob("*.json") if path.name != "summary.json")
    assert names == ["echo_text", "render_poster", "state"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert sorted(str(entry["tool"]) for entry in summary["tools"]) == names
    for name in names:  # its progress line, then its summary
        assert text.count(f"{name}: seed 41, 4 runs ...") == 1
        assert text.count(f"{name}: seed 41, 4 valid") == 1
    receipt = json.loads((out / "render_poster.json").read_text(encoding="utf-8"))
    assert receipt["handler"]["mcp"]["tool"] == "render_poster"
    assert receipt["handlerNotes"]["stdoutNoiseLines"] > 0
    assert "non-protocol line(s) on stdout" in text
    assert receipt["schemaDigest"]  # the schema came from tools/list


LAX_DATES = """
from toolfuzz_gate.contract.poster import ToolError


def book(**arguments):
    if set(arguments) != {"when"}:
        raise ToolError("schema-shape", "", "exactly one argument: when")
    if not isinstance(arguments["when"], str):
        raise ToolError("schema-type", "/when", "when must be a string")
    return {"booked": arguments["when"]}  # never checks that `when` is a date
"""
BOOKING = {
    "type": "object",
    "properties": {"when": {"type": "string", "format": "date"}},
    "required": ["when"],
    "additionalProperties": False,
}


def fuzz_booking(tmp_path: Path, *extra: str) -> tuple[int, str, dict[str, Any], list[Any]]:
    (tmp_path / "lax_dates.py").write_text(LAX_DATES, encoding="utf-8")
    (tmp_path / "book.json").write_text(json.dumps(BOOKING), encoding="utf-8")
    receipt, cases = tmp_path / "receipt.json", tmp_path / "cases.jsonl"
    code, _, err = invoke(
        "fuzz",
        "--schema",
        str(tmp_path / "book.json"),
        "--handler",
        "python:lax_dates:book",
        "--rejects",
        "toolfuzz_gate.contract.poster:ToolError",
        "--error-codes",
        "^schema-",
        "--runs",
        "12",
        "--receipt",
        str(receipt),
        "--cases",
        str(cases),
        *extra,
    )
    lines = [json.loads(line) for line in cases.read_text(encoding="utf-8").splitlines()]
    return code, err, json.loads(receipt.read_text(encoding="utf-8")), lines


def test_format_is_an_annotation_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err, receipt, lines = fuzz_booking(tmp_path)
    assert code == 0, err
    assert receipt["coverage"]["format"] == "not-applicable"
    assert "format" not in {line["family"] for line in lines}
    # Still, the valid calls carry real dates: that is what callers send.
    dates = jsonschema.Draft202012Validator(
        BOOKING, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    valid = [line["input"] for line in lines if line["family"] == "valid"]
    assert len(valid) == 12 and all(dates.is_valid(value) for value in valid)


def test_format_assertion_flag_finds_the_unchecked_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err, receipt, _ = fuzz_booking(tmp_path, "--format-assertion")
    assert code == 1, err
    assert receipt["coverage"]["format"] == "tested"
    found = [c for c in receipt["counterexamples"] if c["mutation"] == "format"]
    assert found and all(c["failure"] == "hostile-accepted" for c in found)
    dates = jsonschema.Draft202012Validator(
        BOOKING, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    for example in found:
        assert example["path"] == "/when"
        assert not dates.is_valid(example["input"])
        assert jsonschema.Draft202012Validator(BOOKING).is_valid(example["input"])


def test_format_assertion_refuses_unknown_formats_and_is_given_once(tmp_path: Path) -> None:
    schema = tmp_path / "tool.json"
    schema.write_text(
        json.dumps({"type": "object", "properties": {"n": {"type": "integer", "format": "int32"}}}),
        encoding="utf-8",
    )
    args = ("fuzz", "--schema", str(schema), "--handler", "builtin:renderPoster")
    code, out, err = invoke(*args, "--format-assertion", "--out", str(tmp_path / "out"))
    assert code == 1, err
    assert "schema.unsupported-format at /properties/n/format" in out
    assert "int32" in out and "without --format-assertion" in out
    twice = invoke(*args, "--format-assertion", "--format-assertion")
    assert twice[0] == 2 and "--format-assertion was given twice" in twice[2]
    run_twice = invoke("run", "--format-assertion", "--format-assertion")
    assert run_twice[0] == 2 and "given twice" in run_twice[2]


@pytest.mark.usefixtures("in_faults")
def test_a_random_nonce_is_no_finding_for_a_tool_not_declared_deterministic(
    tmp_path: Path,
) -> None:
    code, receipt = fuzz_fault(tmp_path, "nonce")
    assert code == 0
    assert receipt["counterexamples"] == []
    assert receipt["checks"]["replay"]["applies"] is False
    assert "replay-stable" not in receipt["invariants"]
