"""An MCP tool's declared `outputSchema` is a promise about every accepted call (issue 14),
through `cli.run` against a real MCP server over stdio (`output_mcp.py`): a tool that keeps
its output schema holds `output-schema-valid`, one that breaks it on odd inputs, or answers
without `structuredContent`, is an `output-schema-violation` shrunk and confirmed, and a tool
that declares none is judged as before."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli_helpers import invoke

SERVER = [
    sys.executable,
    str(Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "output_mcp.py"),
]
APPLIED = {"applied": True, "reason": "declared by the server's tools/list"}


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_fuzz_mcp_holds_each_tool_to_its_declared_output_schema(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, out, err = invoke("fuzz", "--mcp", "--runs", "32", "--out", str(out_dir), "--", *SERVER)
    assert code == 1, err
    square, half, bare, plain = (
        read(out_dir / f"{n}.json") for n in ("square", "half", "bare", "plain")
    )
    assert square["outputSchema"] == APPLIED
    assert square["counterexamples"] == []
    assert square["invariants"]["output-schema-valid"] is True
    [broken] = half["counterexamples"]
    assert (broken["failure"], broken["cause"], broken["path"]) == (
        "output-schema-violation",
        "type at /half",
        "",
    )
    assert broken["input"]["n"] % 2 == 1
    assert broken["input"]["n"] < broken["originalInput"]["n"]  # shrunk
    assert broken["reproduced"]["failed"] == broken["reproduced"]["runs"] > 0
    assert half["invariants"]["output-schema-valid"] is False
    [missing] = bare["counterexamples"]
    assert (missing["failure"], missing["cause"]) == (
        "output-schema-violation",
        "structuredContent missing",
    )
    assert missing["input"] == {"n": 91}
    assert "outputSchema" not in plain
    assert "output-schema-valid" not in plain["invariants"]
    assert plain["counterexamples"] == []
    assert "output-schema-violation" in out


def test_a_policy_run_reads_the_output_schema_from_the_server(tmp_path: Path) -> None:
    server = json.dumps(SERVER)
    path = tmp_path / "policy.yml"
    path.write_text(
        "version: 1\ndefaults: {runs: 32}\ntools:\n"
        f"  - name: half\n    handler: {{mcp: {server}}}\n"
        f"  - name: square\n    handler: {{mcp: {server}}}\n",
        encoding="utf-8",
    )
    out_dir = tmp_path / "out"
    code, _, err = invoke("run", "--policy", str(path), "--out", str(out_dir))
    assert code == 1, err
    half, square = read(out_dir / "half.json"), read(out_dir / "square.json")
    assert half["outputSchema"] == square["outputSchema"] == APPLIED
    assert [(c["failure"], c["cause"]) for c in half["counterexamples"]] == [
        ("output-schema-violation", "type at /half")
    ]
    assert square["counterexamples"] == []
    assert square["invariants"]["output-schema-valid"] is True


def test_replaying_a_receipt_reads_the_output_schema_from_the_server_again(
    tmp_path: Path,
) -> None:
    out_dir = tmp_path / "out"
    code, _, err = invoke(
        "fuzz", "--mcp", "--tool", "half", "--runs", "32", "--out", str(out_dir), "--", *SERVER
    )
    assert code == 1, err
    code, out, err = invoke("replay", str(out_dir / "half.json"))
    assert code == 1, err
    assert "still-failing: half output-schema-violation" in out
    assert "replay: 1 of 1 still fail" in out
