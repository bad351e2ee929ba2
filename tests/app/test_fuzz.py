"""`fuzz` is a policy run of one entry (`app/fuzz.py`): with `--out` it writes what `run
--policy` writes, with `--receipt FILE` the one receipt and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import invoke

FAULTS = Path(__file__).resolve().parents[1] / "fixtures" / "poster_faults"
SCHEMA = FAULTS / "poster_schema.json"
FLAGS = ("fuzz", "--schema", str(SCHEMA), "--handler", "builtin:renderPoster", "--runs", "8")
LAX = (
    "--handler",
    "python:lax_width:render_poster",
    "--rejects",
    "toolfuzz_gate.contract.poster:ToolError",
)


def test_receipt_writes_the_one_receipt_and_nothing_beside_it(tmp_path: Path) -> None:
    receipt = tmp_path / "results" / "one.json"
    code, out, err = invoke(*FLAGS, "--receipt", str(receipt))
    assert code == 0, out + err
    assert sorted(path.name for path in receipt.parent.iterdir()) == ["one.json"]
    assert json.loads(receipt.read_text(encoding="utf-8"))["tool"] == "poster_schema"
    assert "receipt: one.json (sha256 " in out and out.endswith("gate: passed\n")


def test_out_writes_the_summary_and_reports_a_policy_run_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(FAULTS)  # the handler imports from the current directory
    out_dir = tmp_path / "out"
    code, out, err = invoke("fuzz", "--schema", str(SCHEMA), *LAX, "--out", str(out_dir))
    assert code == 1, out + err  # its width check is off by one
    assert sorted(path.name for path in out_dir.iterdir()) == [
        "annotations.txt",
        "comment.md",
        "junit.xml",
        "poster_schema.json",
        "results.sarif",
        "summary.json",
    ]
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["verdict"] == "failed" and summary["rootCauses"]["newGroups"] == 1
    comment = (out_dir / "comment.md").read_text(encoding="utf-8")
    assert "toolfuzz-gate replay " in comment
    assert "--policy" not in comment  # the receipt replays from its own replayCommand
