"""`run --policy` end to end through `cli.run`: malformed policies exit 2 naming the file,
the line and the key; policy runs write receipts and `summary.json` and pick the verdict.

Each test builds a small repository in a temp directory (a `.git` directory marks its
root) holding copies of the poster fixtures, so `python:` handlers import from the root.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke, poster_repository
from toolfuzz_gate.app.reports import REPORTS
from toolfuzz_gate.core.campaign.receipt import problems
from toolfuzz_gate.core.jsonutil.canonical import digest
from toolfuzz_gate.edges.policy_file import MAX_POLICY_BYTES

REPORT_FILES = [report.file for report in REPORTS]
FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
REJECTS = '["toolfuzz_gate.contract.poster:ToolError"]'
CONTRACT = """\
    expected_rejections: [policy-pixel-budget, policy-duplicate-semantic-intent]
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return poster_repository(tmp_path)


def tool(name: str, module: str, schema: str = "schemas/poster.json", extra: str = "") -> str:
    return (
        f"  - name: {name}\n"
        f"    schema: {schema}\n"
        f'    handler: {{python: "{module}:render_poster", rejects: {REJECTS}}}\n'
        f"{CONTRACT}{extra}"
    )


def policy(*tools: str, head: str = "version: 1\ndefaults: {runs: 16}\n") -> str:
    return head + "tools:\n" + "".join(tools)


VALID_TOOLS = """\
tools:
  - name: poster
    schema: schemas/poster.json
    handler:
      python: "correct:render_poster"
"""


def _outside(repo: Path) -> None:
    (repo.parent / "outside.json").write_text("{}", encoding="utf-8")


def _symlink(repo: Path) -> None:
    _outside(repo)
    os.symlink(repo.parent / "outside.json", repo / "schemas" / "link.json")


def _alias_bomb() -> str:
    rows = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for level in range(1, 9):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        rows.append(f"a{level}: &a{level} [{refs}]")
    return "version: 1\n" + "\n".join(rows) + "\n" + VALID_TOOLS


def _deep_chain() -> str:
    rows = ["c0: &c0 [x, x]"] + [f"c{i}: &c{i} [*c{i - 1}, *c{i - 1}]" for i in range(1, 17)]
    return "version: 1\n" + "\n".join(rows) + "\n" + VALID_TOOLS


Setup = Callable[[Path], None] | None

# (id, policy text, key named in the message, line, setup of the repository)
MALFORMED: list[tuple[str, str, str, int, Setup]] = [
    ("unknown top-level key", "version: 1\nvesion: 1\n" + VALID_TOOLS, "vesion", 2, None),
    (
        "unknown tool key",
        "version: 1\ntools:\n  - name: poster\n    shcema: schemas/poster.json\n"
        '    handler: {python: "correct:render_poster"}\n',
        "tools/0/shcema",
        4,
        None,
    ),
    (
        "unknown handler key",
        "version: 1\ntools:\n  - name: poster\n    schema: schemas/poster.json\n"
        '    handler:\n      pyhton: "correct:render_poster"\n',
        "tools/0/handler/pyhton",
        6,
        None,
    ),
    (
        "unknown defaults key",
        "version: 1\ndefaults:\n  rounds: 3\n" + VALID_TOOLS,
        "defaults/rounds",
        3,
        None,
    ),
    ("wrong type", "version: 1\ndefaults:\n  runs: many\n" + VALID_TOOLS, "defaults/runs", 3, None),
    (
        "boolean for integer",
        "version: 1\ndefaults:\n  timeout_ms: true\n" + VALID_TOOLS,
        "defaults/timeout_ms",
        3,
        None,
    ),
    ("missing version", VALID_TOOLS, "version", 1, None),
    ("version 2", "version: 2\n" + VALID_TOOLS, "version", 1, None),
    ("missing tools", "version: 1\ndefaults: {runs: 3}\n", "tools", 1, None),
    ("empty tools", "version: 1\ntools: []\n", "tools", 2, None),
    (
        "tool without a name",
        "version: 1\ntools:\n  - schema: schemas/poster.json\n"
        '    handler: {python: "correct:render_poster"}\n',
        "tools/0/name",
        3,
        None,
    ),
    (
        "missing schema file",
        "version: 1\ntools:\n  - name: poster\n    schema: schemas/missing.json\n"
        '    handler: {python: "correct:render_poster"}\n',
        "tools/0/schema",
        4,
        None,
    ),
    (
        "duplicate tool names",
        "version: 1\n" + VALID_TOOLS + VALID_TOOLS.split("\n", 1)[1],
        "tools/1/name",
        7,
        None,
    ),
    (
        "path escaping the root via ..",
        "version: 1\ntools:\n  - name: poster\n    schema: ../outside.json\n"
        '    handler: {python: "correct:render_poster"}\n',
        "tools/0/schema",
        4,
        _outside,
    ),
    (
        "path escaping the root via a symlink",
        "version: 1\ntools:\n  - name: poster\n    schema: schemas/link.json\n"
        '    handler: {python: "correct:render_poster"}\n',
        "tools/0/schema",
        4,
        _symlink,
    ),
    (
        "oversized file",
        "version: 1\n" + "#" * (MAX_POLICY_BYTES + 10) + "\n" + VALID_TOOLS,
        "(document)",
        1,
        None,
    ),
    ("alias bomb (many aliases)", _alias_bomb(), "a4/", 6, None),
    ("alias bomb (doubling chain)", _deep_chain(), "c12/", 14, None),
    (
        "too many aliases",
        "version: 1\nword: &w x\nmany:\n" + "  - *w\n" * 40 + VALID_TOOLS,
        "many/32",
        36,
        None,
    ),
    ("recursive alias", "version: 1\nloop: &l [*l]\n" + VALID_TOOLS, "loop/0", 2, None),
    ("non-mapping root", "- version: 1\n- tools: []\n", "(document)", 1, None),
    ("invalid YAML syntax", "version: 1\ntools: [\n  {name: poster\n", "(document)", 4, None),
    ("YAML duplicate key", "version: 1\nversion: 1\n" + VALID_TOOLS, "version", 2, None),
    ("non-string key", "version: 1\n7: x\n" + VALID_TOOLS, "(document)", 2, None),
    ("python tag", "version: !!python/name:os.system 1\n" + VALID_TOOLS, "(document)", 1, None),
    ("runs 0", "version: 1\ndefaults:\n  runs: 0\n" + VALID_TOOLS, "defaults/runs", 3, None),
    (
        "runs 1001",
        "version: 1\n" + VALID_TOOLS + "    runs: 1001\n",
        "tools/0/runs",
        7,
        None,
    ),
    (
        "seed out of range",
        "version: 1\ndefaults:\n  seeds: [41, 2147483648]\n" + VALID_TOOLS,
        "defaults/seeds/1",
        3,
        None,
    ),
    (
        "bad error_codes regex",
        "version: 1\n" + VALID_TOOLS + '    error_codes: "^(schema"\n',
        "tools/0/error_codes",
        7,
        None,
    ),
    (
        "unknown fail_on value",
        "version: 1\ngate:\n  fail_on: [invariant, flaky]\n" + VALID_TOOLS,
        "gate/fail_on/1",
        3,
        None,
    ),
    (
        "unknown family in min_coverage",
        "version: 1\ngate:\n  min_coverage:\n    required: tested\n    colour: tested\n"
        + VALID_TOOLS,
        "gate/min_coverage/colour",
        5,
        None,
    ),
    (
        "two schema sources",
        "version: 1\n" + VALID_TOOLS + '    model: "pkg:Model"\n',
        "tools/0/model",
        7,
        None,
    ),
    (
        "handler with two kinds",
        "version: 1\n" + VALID_TOOLS + "      command: [python, tool.py]\n",
        "tools/0/handler/command",
        7,
        None,
    ),
    (
        "handler with no kind",
        "version: 1\ntools:\n  - name: poster\n    schema: schemas/poster.json\n"
        "    handler: {env: [HOME]}\n",
        "tools/0/handler",
        5,
        None,
    ),
    (
        "rejects on a command handler",
        "version: 1\ntools:\n  - name: poster\n    schema: schemas/poster.json\n"
        "    handler:\n      command: [python, tool.py]\n      rejects: [a:B]\n",
        "tools/0/handler/rejects",
        7,
        None,
    ),
    (
        "no schema for a python handler",
        'version: 1\ntools:\n  - name: poster\n    handler: {python: "correct:render_poster"}\n',
        "tools/0",
        3,
        None,
    ),
    (
        "cwd that is not a directory",
        "version: 1\n" + VALID_TOOLS + "      cwd: correct.py\n",
        "tools/0/handler/cwd",
        7,
        None,
    ),
]


@pytest.mark.parametrize(
    ("text", "key", "line", "setup"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
def test_malformed_policy_exits_2_naming_file_line_and_key(
    repo: Path, text: str, key: str, line: int, setup: Setup
) -> None:
    if setup is not None:
        setup(repo)
    path = repo / "policy.yml"
    path.write_text(text, encoding="utf-8")
    code, out, err = invoke("run", "--policy", str(path), "--out", str(repo / "out"))
    assert code == 2, err
    assert err.startswith("error[policy.invalid]: "), err
    assert f"{path}:{line}: {key}" in err, err
    assert "Traceback" not in err and out == ""
    assert not (repo / "out").exists()


def test_at_least_twenty_malformed_policies() -> None:
    assert len(MALFORMED) >= 20


def test_not_utf8_and_missing_policy_name_the_file(repo: Path) -> None:
    path = repo / "policy.yml"
    path.write_bytes(b"version: 1\nname: \xff\n")
    code, _, err = invoke("run", "--policy", str(path))
    assert code == 2 and f"{path}:2: (document): not UTF-8" in err
    missing = repo / "nowhere.yml"
    code, _, err = invoke("run", "--policy", str(missing))
    assert code == 2 and f"{missing}:1: (document): cannot read the policy" in err


def test_unknown_key_message_suggests_the_close_one(repo: Path) -> None:
    path = repo / "policy.yml"
    path.write_text(MALFORMED[2][1], encoding="utf-8")
    _, _, err = invoke("run", "--policy", str(path))
    assert "unknown key 'pyhton'" in err and "did you mean 'python'?" in err


def run_policy(repo: Path, text: str, *extra: str) -> tuple[int, str, str, Path]:
    path = repo / "policy.yml"
    path.write_text(text, encoding="utf-8")
    out_dir = repo / "out"
    code, out, err = invoke("run", "--policy", str(path), "--out", str(out_dir), *extra)
    return code, out, err, out_dir


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_two_tools_fail_with_the_lax_one_and_write_receipts_and_summary(repo: Path) -> None:
    code, out, err, out_dir = run_policy(
        repo, policy(tool("correct", "correct"), tool("lax", "lax_width"))
    )
    assert code == 1, err
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(
        ["correct.json", "lax.json", "summary.json", *REPORT_FILES]
    )
    for name in ("correct.json", "lax.json"):
        assert problems(read(out_dir / name)) == []
    summary = read(out_dir / "summary.json")
    assert summary["format"] == "toolfuzz-summary/1"
    assert summary["verdict"] == "failed"
    assert [t["tool"] for t in summary["tools"]] == ["correct", "lax"]
    correct, lax = summary["tools"]
    assert correct["counterexamples"] == 0 and correct["findings"] == []
    lax_receipt = read(out_dir / "lax.json")
    assert lax["findings"] == [
        {"fingerprint": c["fingerprint"], "failure": c["failure"], "path": c["path"]}
        for c in lax_receipt["counterexamples"]
    ]
    assert {f["failure"] for f in lax["findings"]} == {"hostile-accepted"}
    assert lax["receiptHash"] == lax_receipt["receiptHash"]
    assert lax["coverage"] == lax_receipt["coverage"]
    assert summary["counts"]["counterexamples"] == len(lax["findings"]) > 0
    assert summary["reasons"][0].startswith("invariant:") and "lax" in summary["reasons"][0]
    assert "gate: FAILED" in out


def test_the_correct_tool_alone_passes(repo: Path) -> None:
    code, out, err, out_dir = run_policy(repo, policy(tool("correct", "correct")))
    assert code == 0, err
    summary = read(out_dir / "summary.json")
    assert summary["verdict"] == "passed" and summary["reasons"] == []
    assert read(out_dir / "correct.json")["runs"] == 16
    assert "gate: passed" in out


def test_rerun_is_byte_identical(repo: Path) -> None:
    text = policy(tool("correct", "correct"), tool("lax", "lax_width"))
    _, _, _, out_dir = run_policy(repo, text)
    first = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    shutil.rmtree(out_dir)
    _, _, _, out_dir = run_policy(repo, text)
    assert {p.name: p.read_bytes() for p in out_dir.iterdir()} == first


def _with_unsupported(repo: Path) -> None:
    schema = read(repo / "schemas" / "poster.json")
    schema["properties"]["title"]["contentSchema"] = {"const": "forbidden"}
    schema["properties"]["format"]["contentSchema"] = {"const": "gif"}
    (repo / "schemas" / "refused.json").write_text(json.dumps(schema), encoding="utf-8")


def test_unsupported_keyword_gets_a_refused_receipt_that_fails_without_a_base(
    repo: Path,
) -> None:
    _with_unsupported(repo)
    text = policy(tool("correct", "correct"), tool("refused", "lax_width", "schemas/refused.json"))
    code, out, err, out_dir = run_policy(repo, text)
    assert code == 1, err
    receipt = read(out_dir / "refused.json")
    assert problems(receipt) == []
    assert receipt["unsupported"] == [
        {"keyword": "contentSchema", "path": "/properties/format/contentSchema"},
        {"keyword": "contentSchema", "path": "/properties/title/contentSchema"},
    ]
    assert receipt["counterexamples"] == [] and receipt["invariants"] == {}
    assert set(receipt["coverage"].values()) == {"unsupported"}
    summary = read(out_dir / "summary.json")
    refused = next(t for t in summary["tools"] if t["tool"] == "refused")
    assert refused["refused"] is True and refused["unsupported"] == receipt["unsupported"]
    assert summary["counts"]["refused"] == 1 and summary["counts"]["unsupported"] == 2
    assert summary["reasons"] == [
        "refused: 1 tool(s) not fuzzed, no baseline, every refusal counts as new: "
        "refused (schema.unsupported-keyword)"
    ]
    assert "schema.unsupported-keyword at /properties/title/contentSchema (line " in out


def test_a_policy_can_allow_a_refusal_code_globally_or_per_tool(repo: Path) -> None:
    _with_unsupported(repo)
    tools = (tool("correct", "correct"), tool("refused", "correct", "schemas/refused.json"))
    allowances = (
        "[invariant, {allow-refused: [schema.unsupported-keyword]}]",
        "[invariant, {allow-refused: [schema.unsupported-keyword], tools: [refused]}]",
    )
    for fail_on in allowances:
        head = f"version: 1\ndefaults: {{runs: 16}}\ngate: {{fail_on: {fail_on}}}\n"
        code, _, err, out_dir = run_policy(repo, policy(*tools, head=head))
        assert code == 0, err
        assert read(out_dir / "summary.json")["reasons"] == [
            "refused: allowed by the policy: refused (schema.unsupported-keyword)"
        ]
    other = "[invariant, {allow-refused: [schema.unsupported-keyword], tools: [correct]}]"
    head = f"version: 1\ndefaults: {{runs: 16}}\ngate: {{fail_on: {other}}}\n"
    code, _, err, _ = run_policy(repo, policy(*tools, head=head))
    assert code == 1, err
    wrong = "version: 1\ngate: {fail_on: [{allow-refused: [limit-enum]}]}\n"
    code, _, err, _ = run_policy(repo, policy(*tools, head=wrong))
    assert code == 2 and "gate/fail_on/0/allow-refused/0" in err


def test_unsupported_keyword_fails_when_the_policy_says_so(repo: Path) -> None:
    _with_unsupported(repo)
    head = "version: 1\ndefaults: {runs: 16}\ngate: {fail_on: [unsupported-keyword]}\n"
    text = policy(tool("refused", "correct", "schemas/refused.json"), head=head)
    code, _, err, out_dir = run_policy(repo, text)
    assert code == 1, err
    assert read(out_dir / "summary.json")["reasons"][:2] == [
        "unsupported-keyword: keywords the engine refuses: 2 in refused (2)",
        "refused: 1 tool(s) not fuzzed, no baseline, every refusal counts as new: "
        "refused (schema.unsupported-keyword)",
    ]


def test_other_schema_errors_refuse_the_tool_and_the_others_run(repo: Path) -> None:
    schema = read(repo / "schemas" / "poster.json")
    schema["properties"]["width"].update({"minimum": 10, "maximum": 5})
    (repo / "schemas" / "bad.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    text = policy(tool("bad", "correct", "schemas/bad.json"), tool("correct", "correct"))
    code, out, err, out_dir = run_policy(repo, text)
    assert code == 1, err
    assert "Traceback" not in err + out
    assert read(out_dir / "correct.json")["cases"]["valid"] > 0
    [reason, *_] = read(out_dir / "bad.json")["refused"]["reasons"]
    assert (reason["code"], reason["pointer"]) == (
        "schema.contradiction",
        "/properties/width/minimum",
    )
    line = (repo / "schemas" / "bad.json").read_text("utf-8").splitlines()[reason["line"] - 1]
    assert line.strip().startswith('"minimum": 10')
    assert reason["hint"] == "the keyword contradicts another one; no value can satisfy both"


def test_several_seeds_write_one_receipt_per_seed(repo: Path) -> None:
    head = "version: 1\ndefaults: {runs: 8, seeds: [5, 6]}\n"
    code, _, err, out_dir = run_policy(repo, policy(tool("correct", "correct"), head=head))
    assert code == 0, err
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == sorted(
        ["correct.seed-5.json", "correct.seed-6.json", "summary.json", *REPORT_FILES]
    )
    assert read(out_dir / "correct.seed-6.json")["seed"] == 6
    assert [t["seed"] for t in read(out_dir / "summary.json")["tools"]] == [5, 6]


def test_flags_override_the_policy_defaults(repo: Path) -> None:
    head = "version: 1\ndefaults: {runs: 8, seeds: [5, 6]}\n"
    text = policy(tool("correct", "correct"), head=head)
    code, _, err, out_dir = run_policy(repo, text, "--seed", "9", "--runs", "4")
    assert code == 0, err
    receipt = read(out_dir / "correct.json")
    assert (receipt["seed"], receipt["runs"]) == (9, 4)


def test_min_coverage_floor_fails_the_gate(repo: Path) -> None:
    head = "version: 1\ndefaults: {runs: 16}\ngate: {min_coverage: {pattern: tested}}\n"
    code, _, err, out_dir = run_policy(repo, policy(tool("correct", "correct"), head=head))
    assert code == 1, err
    assert read(out_dir / "summary.json")["reasons"] == [
        "min_coverage: 1 below the floor: correct (seed 41) pattern is not-applicable"
    ]


def test_root_flag_resolves_paths_and_goes_only_with_policy(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = elsewhere / "policy.yml"
    path.write_text(policy(tool("correct", "correct")), encoding="utf-8")
    code, _, err = invoke("run", "--policy", str(path), "--out", str(tmp_path / "o"))
    assert code == 2 and "no such file: 'schemas/poster.json'" in err
    code, _, err = invoke(
        "run", "--policy", str(path), "--root", str(repo), "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    code, _, err = invoke("run", "--root", str(repo))
    assert code == 2 and "--root goes with --policy" in err


def test_a_tool_from_a_tools_file(repo: Path) -> None:
    schema = read(repo / "schemas" / "poster.json")
    declared = [
        {"type": "function", "function": {"name": "other", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "render_poster", "parameters": schema}},
    ]
    (repo / "tools.json").write_text(json.dumps(declared), encoding="utf-8")
    entry = tool("poster", "lax_width").replace(
        "schema: schemas/poster.json", "tools: tools.json\n    tool: render_poster"
    )
    code, _, err, out_dir = run_policy(repo, policy(entry))
    assert code == 1, err
    assert read(out_dir / "poster.json")["schemaDigest"] == digest(schema)
    missing = entry.replace("tool: render_poster", "tool: absent")
    code, _, err, _ = run_policy(repo, policy(missing))
    assert code == 2 and "tools/0/tool: the tools file declares no tool named 'absent'" in err


@pytest.mark.slow
def test_an_mcp_tool_takes_its_schema_from_tools_list(repo: Path) -> None:
    server = Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "poster_mcp.py"
    entry = (
        "  - name: render_poster\n"
        f"    handler: {{mcp: [{json.dumps(sys.executable)}, {json.dumps(str(server))}]}}\n"
        f"{CONTRACT}"
    )
    code, _, err, out_dir = run_policy(repo, policy(entry))
    assert code == 0, err
    receipt = read(out_dir / "render_poster.json")
    assert receipt["handler"]["mcp"]["tool"] == "render_poster"
    assert receipt["counterexamples"] == []


def test_a_tools_file_entry_without_tool_expands_to_every_declared_tool(repo: Path) -> None:
    schema = read(repo / "schemas" / "poster.json")
    declared = [
        {"type": "function", "function": {"name": name, "parameters": schema}}
        for name in ("first_poster", "second_poster")
    ]
    (repo / "tools.json").write_text(json.dumps(declared), encoding="utf-8")
    entry = tool("posters", "correct").replace("schema: schemas/poster.json", "tools: tools.json")
    code, _, err, out_dir = run_policy(repo, policy(entry))
    assert code == 0, err
    summary = read(out_dir / "summary.json")
    assert [t["tool"] for t in summary["tools"]] == ["first_poster", "second_poster"]
    assert {p.name for p in out_dir.iterdir()} == {
        "first_poster.json",
        "second_poster.json",
        "summary.json",
        *REPORT_FILES,
    }


def test_budgets_and_saturation_reach_the_receipts(repo: Path) -> None:
    head = "version: 1\nbudget_s: 3600\ndefaults: {runs: 200, budget_s: 0.001}\n"
    whole = "    saturation: false\n    budget_s: 3000\n"
    code, _out, err, out_dir = run_policy(
        repo, policy(tool("cut", "correct"), tool("whole", "correct", extra=whole), head=head)
    )
    assert code == 0, err
    cut, full = read(out_dir / "cut.json"), read(out_dir / "whole.json")
    # a thousandth of a second runs out before the first case: nothing generated, and said
    assert cut["budget"]["exhausted"] is True and cut["budget"]["scope"] == "tool"
    assert cut["budget"]["notRun"]["valid"] == 200 and cut["cases"]["valid"] == 0
    assert full["budget"] == {"seconds": 3000, "runSeconds": 3600, "exhausted": False}
    assert full["saturation"]["window"] == 0 and full["cases"]["valid"] == 200
