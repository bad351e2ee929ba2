"""Near-misses a business rule would mask, end to end against a real worker process
(`tests/fixtures/handlers/notebook.py`): a create tool refuses every name a valid call
took before it reads the argument the near-miss breaks, so the bug behind that argument is
found only by building the near-miss again on a fresh base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_helpers import invoke

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 40},
        "priority": {"type": "integer", "minimum": 1, "maximum": 3},
    },
    "required": ["name", "priority"],
    "additionalProperties": False,
}


def fuzz_notebook(tmp_path: Path, *declared: str) -> dict[str, Any]:
    schema, receipt = tmp_path / "schema.json", tmp_path / "receipt.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    code, _, err = invoke(
        "fuzz",
        "--schema",
        str(schema),
        "--handler",
        "python:tests.fixtures.handlers.notebook:create_note",
        "--rejects",
        "tests.fixtures.handlers.notebook:Refused",
        *declared,
        "--runs",
        "24",
        "--receipt",
        str(receipt),
    )
    assert code in (0, 1), err
    document: dict[str, Any] = json.loads(receipt.read_text(encoding="utf-8"))
    return document


def test_a_bug_behind_already_exists_is_found_on_a_fresh_base(tmp_path: Path) -> None:
    receipt = fuzz_notebook(tmp_path, "--expected-rejection", "already-exists")
    crashes = [c for c in receipt["counterexamples"] if c["failure"] == "crash"]
    assert [(c["cause"], c["path"], c["mutation"]) for c in crashes] == [
        ("KeyError", "/priority", "bounds")
    ], receipt["counterexamples"]
    [crash] = crashes
    assert crash["input"]["priority"] in (0, 4)
    assert crash["replay"]["stream"] == "retry"
    assert crash["reproduced"] == {"runs": 3, "failed": 3}
    assert receipt["mutationCounts"]["bounds"]["retried"] > 0


def test_without_the_business_code_declared_no_near_miss_is_built_again(tmp_path: Path) -> None:
    """The same run, `already-exists` not declared: every near-miss of the priority is
    refused for its name, none is retried, and the bug stays hidden."""
    receipt = fuzz_notebook(tmp_path)
    assert all(counts["retried"] == 0 for counts in receipt["mutationCounts"].values())
    assert not [c for c in receipt["counterexamples"] if c["failure"] == "crash"]
