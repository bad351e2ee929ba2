"""One tool's problem never stops the others (issue 18), through `cli.run` at every entry
point: `fuzz --schema`, `fuzz --tools`, `fuzz --mcp` against a real MCP server with broken
tools, and `run --policy` with a tools-file entry and with two servers of which one does
not start. Sound tools are fuzzed, each broken one is refused in its own receipt naming
its problem (code, pointer, line, hint), and the exit code is the verdict's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import POSTER_CONTRACT, invoke, poster_repository
from toolfuzz_gate.core.campaign.receipt_read import problems

MCP = Path(__file__).parents[1] / "fixtures" / "mcp_tool"
POSTER_REJECTS = '["toolfuzz_gate.contract.poster:ToolError"]'
CONTRACT = """\
    expected_rejections: [policy-pixel-budget, policy-duplicate-semantic-intent]
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
"""


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def five_tools(repo: Path) -> Path:
    """A tools file of five poster tools: two sound, one with a dangling `$ref`, one with
    `minimum > maximum`, one with a 1,025-member enum (the engine supports 1,024)."""
    schema = read(repo / "schemas" / "poster.json")

    def variant(**properties: Any) -> dict[str, Any]:
        changed: dict[str, Any] = json.loads(json.dumps(schema))
        for name, extra in properties.items():
            changed["properties"][name] = {**changed["properties"].get(name, {}), **extra}
        return changed

    declared = {
        "tools": [
            {"name": "first", "inputSchema": schema},
            {"name": "dangling", "inputSchema": variant(title={"$ref": "#/$defs/missing"})},
            {"name": "second", "inputSchema": schema},
            {"name": "inverted", "inputSchema": variant(width={"minimum": 300, "maximum": 100})},
            {
                "name": "countries",
                "inputSchema": variant(format={"enum": [f"c{i}" for i in range(1025)]}),
            },
        ]
    }
    path = repo / "tools.json"
    path.write_text(json.dumps(declared, indent=2), encoding="utf-8")
    return path


EXPECTED = {
    "dangling": ("schema.unresolvable-ref", "/properties/title/$ref", '"$ref"'),
    "inverted": ("schema.contradiction", "/properties/width/minimum", '"minimum": 300'),
    "countries": ("schema.limit-enum", "/properties/format/enum", '"enum"'),
}


def check_five(out_dir: Path, tools_file: Path) -> None:
    """Both sound tools fuzzed, each broken one refused for its own problem, located."""
    text = tools_file.read_text(encoding="utf-8").splitlines()
    for name in ("first", "second"):
        receipt = read(out_dir / f"{name}.json")
        assert "refused" not in receipt and receipt["cases"]["valid"] > 0
        assert receipt["counterexamples"] == []
    for name, (code, pointer, on_line) in EXPECTED.items():
        receipt = read(out_dir / f"{name}.json")
        assert problems(receipt) == []
        reason, *more = receipt["refused"]["reasons"]
        assert (reason["code"], reason["pointer"]) == (code, pointer), reason
        assert all(other["code"] == code for other in more)  # the consequences, if any
        assert on_line in text[reason["line"] - 1], (reason, text[reason["line"] - 1])
        assert reason["hint"] and reason["message"]
        assert receipt["counterexamples"] == [] and receipt["cases"] == {}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = poster_repository(tmp_path)
    monkeypatch.chdir(root)  # `python:` handlers import from here
    return root


def test_fuzz_schema_refuses_its_one_tool_and_exits_by_the_verdict(repo: Path) -> None:
    tools = five_tools(repo)
    schema = repo / "inverted.json"
    schema.write_text(json.dumps(read(tools)["tools"][3]["inputSchema"]), encoding="utf-8")
    receipt = repo / "inverted.receipt.json"
    argv = ["fuzz", "--schema", str(schema), "--handler", "python:correct:render_poster"]
    code, out, err = invoke(*argv, "--receipt", str(receipt))
    assert code == 1, err
    assert "schema.contradiction at /properties/width/minimum (line 1)" in out
    assert "hint: the keyword contradicts another one" in out
    assert read(receipt)["refused"]["code"] == "schema.contradiction"


def test_fuzz_tools_fuzzes_the_sound_tools_and_refuses_each_broken_one(repo: Path) -> None:
    tools = five_tools(repo)
    out_dir = repo / "out"
    code, out, err = invoke(
        "fuzz",
        "--tools",
        str(tools),
        "--handler",
        "python:correct:render_poster",
        *POSTER_CONTRACT,
        "--runs",
        "16",
        "--out",
        str(out_dir),
    )
    assert code == 1, err
    assert err == ""
    check_five(out_dir, tools)
    assert out.count(": not fuzzed, refused for ") == 3
    assert out.index("first:") < out.index("dangling:") < out.index("second:")


def test_fuzz_mcp_refuses_the_servers_broken_tools_and_fuzzes_the_sound_one(
    tmp_path: Path,
) -> None:
    out_dir = tmp_path / "out"
    server = [sys.executable, str(MCP / "mixed_mcp.py")]
    code, out, err = invoke("fuzz", "--mcp", "--runs", "24", "--out", str(out_dir), "--", *server)
    assert code == 1, err
    count = read(out_dir / "count.json")
    assert "refused" not in count and count["counterexamples"] == []
    assert count["cases"]["valid"] == 24
    refused = {
        name: read(out_dir / f"{name}.json")["refused"]["reasons"] for name in ("country", "lookup")
    }
    assert [(r["code"], r["pointer"], r["line"]) for r in refused["country"]] == [
        ("schema.limit-enum", "/properties/code/enum", None)
    ]
    assert [r["code"] for r in refused["lookup"]] == ["schema.unresolvable-ref"]
    assert "gate: FAILED" in out


def policy_file(repo: Path, body: str, gate: str = "") -> Path:
    path = repo / "policy.yml"
    path.write_text(f"version: 1\ndefaults: {{runs: 16}}\n{gate}tools:\n{body}", encoding="utf-8")
    return path


def run_policy(policy: Path, out_dir: Path) -> tuple[int, str, str]:
    return invoke("run", "--policy", str(policy), "--out", str(out_dir))


def test_a_policy_tools_file_entry_runs_every_tool_and_refuses_the_broken_ones(
    repo: Path,
) -> None:
    tools = five_tools(repo)
    entry = (
        "  - name: posters\n"
        "    tools: tools.json\n"
        f'    handler: {{python: "correct:render_poster", rejects: {POSTER_REJECTS}}}\n'
        f"{CONTRACT}"
    )
    out_dir = repo / "out"
    code, _, err = run_policy(policy_file(repo, entry), out_dir)
    assert code == 1, err
    check_five(out_dir, tools)
    summary = read(out_dir / "summary.json")
    assert summary["counts"]["refused"] == 3 and summary["counts"]["receipts"] == 5
    assert summary["reasons"] == [
        "refused: 3 tool(s) not fuzzed, no baseline, every refusal counts as new: "
        "countries (schema.limit-enum); dangling (schema.unresolvable-ref); "
        "inverted (schema.contradiction)"
    ]
    comment = (out_dir / "comment.md").read_text(encoding="utf-8")
    assert "| inverted | schema.contradiction |" in comment
    sarif = read(out_dir / "results.sarif")["runs"][0]["results"]
    located = {
        r["message"]["text"].split(":")[0]: r["locations"][0]["physicalLocation"]
        for r in sarif
        if r["ruleId"] == "refused"
    }
    inverted = read(out_dir / "inverted.json")["refused"]["reasons"][0]
    assert located["inverted"] == {
        "artifactLocation": {"uri": "tools.json"},
        "region": {"startLine": inverted["line"]},
    }
    annotations = (out_dir / "annotations.txt").read_text(encoding="utf-8")
    assert f"file=tools.json,line={inverted['line']}" in annotations
    # a team that accepts the known gaps says so, code by code
    allowing = (
        "gate: {fail_on: [invariant, {allow-refused: [schema.limit-enum, "
        "schema.unresolvable-ref, schema.contradiction]}]}\n"
    )
    code, _, err = run_policy(policy_file(repo, entry, allowing), repo / "allowed")
    assert code == 0, err


def test_two_servers_one_does_not_start_its_tools_are_refused_the_other_runs(
    tmp_path: Path,
) -> None:
    mixed = json.dumps([sys.executable, str(MCP / "mixed_mcp.py")])
    dead = json.dumps([sys.executable, str(MCP / "paged_mcp.py"), "--exit-on-start"])
    body = (
        f"  - name: count\n    handler: {{mcp: {mixed}}}\n"
        f"  - name: echo\n    handler: {{mcp: {dead}}}\n"
        f"  - name: text\n    handler: {{mcp: {dead}}}\n"
        f"  - name: lookup\n    handler: {{mcp: {mixed}}}\n"
    )
    out_dir = tmp_path / "out"
    code, out, err = run_policy(policy_file(tmp_path, body), out_dir)
    assert code == 1, err
    assert "Traceback" not in err + out
    count = read(out_dir / "count.json")
    assert "refused" not in count and count["counterexamples"] == []
    [echo], [text] = (read(out_dir / f"{n}.json")["refused"]["reasons"] for n in ("echo", "text"))
    assert echo["code"] == "handler.unusable" and echo == text  # the same reason for both
    assert "exited" in echo["message"] or "cannot open the database" in echo["message"]
    [lookup] = read(out_dir / "lookup.json")["refused"]["reasons"]
    assert lookup["code"] == "schema.unresolvable-ref"
    assert out.count("handler.unusable: ") == 2
