"""Tools bound to an environment, end to end over a real stdio MCP server (`repo_mcp.py`):
fixed arguments, choosing and excluding tools, `fuzz --out`'s summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

MCP = Path(__file__).parents[1] / "fixtures" / "mcp_tool"


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A repository root holding the server's allowed repository and its note store."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "repo").mkdir()
    return tmp_path


def server(sandbox: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        str(MCP / "repo_mcp.py"),
        "--repository",
        str(sandbox / "repo"),
        "--store",
        str(sandbox / "store.json"),
        *extra,
    ]


def fuzz_status(sandbox: Path, out: Path, *flags: str, lax: bool = False) -> tuple[int, str]:
    argv = server(sandbox, "--lax-verbose") if lax else server(sandbox)
    code, printed, err = invoke(
        "fuzz", "--mcp", "--tool", "status", "--runs", "12", "--out", str(out), *flags, "--", *argv
    )
    assert "Traceback" not in err
    return code, printed


def test_without_fixed_arguments_every_valid_call_is_refused_at_the_door(sandbox: Path) -> None:
    code, printed = fuzz_status(sandbox, sandbox / "out", "--strict")
    receipt = read(sandbox / "out" / "status.json")
    assert code == 1
    assert [c["failure"] for c in receipt["counterexamples"]] == ["valid-rejected"]
    assert "outside-repository" in printed
    assert "fixedArguments" not in receipt


def test_without_fixed_arguments_the_refusal_is_a_note_and_the_tool_unreached(
    sandbox: Path,
) -> None:
    code, printed = fuzz_status(sandbox, sandbox / "out")
    receipt = read(sandbox / "out" / "status.json")
    assert receipt["counterexamples"] == []
    assert [n["cause"] for n in receipt["underSpecified"]] == ["outside-repository"]
    # no valid call got past the repository check: the gate says so, and fails (issue 31)
    assert receipt["reach"]["valid"]["reached"] == 0
    assert code == 1, printed


def test_a_fixed_repository_lets_the_rest_of_the_call_be_fuzzed(sandbox: Path) -> None:
    pin = f"/repo_path={json.dumps(str(sandbox / 'repo'))}"
    code, printed = fuzz_status(sandbox, sandbox / "sound", "--fixed-argument", pin)
    sound = read(sandbox / "sound" / "status.json")
    assert code == 0, printed
    assert sound["counterexamples"] == []
    assert sound["fixedArguments"] == {"/repo_path": str(sandbox / "repo")}
    assert sound["coverage"]["type"] == "tested"  # `verbose` got its near-misses
    # the near-miss that would drop or retype repo_path is not made
    assert sound["mutationCounts"]["required"]["confirmed"] == 0
    assert sound["mutationCounts"]["required"]["inapplicable"] >= 1

    code, printed = fuzz_status(sandbox, sandbox / "lax", "--fixed-argument", pin, lax=True)
    lax = read(sandbox / "lax" / "status.json")
    assert code == 1
    [found] = lax["counterexamples"]
    assert (found["failure"], found["path"]) == ("hostile-accepted", "/verbose")
    # shrinking kept the fixed argument: the counterexample replays as it ran
    assert found["input"]["repo_path"] == str(sandbox / "repo")
    assert "broken: hostile-rejected (hostile-accepted)" in printed


def test_a_fixed_value_the_schema_does_not_admit_is_refused_before_anything_runs(
    sandbox: Path,
) -> None:
    code, _printed, err = invoke(
        "fuzz", "--mcp", "--tool", "status", "--out", str(sandbox / "out"),
        "--fixed-argument", "/repo_path=3", "--", *server(sandbox),
    )  # fmt: skip
    assert code == 2
    assert "does not admit these arguments as fixed: type at /repo_path" in err
    assert not (sandbox / "out").exists()
    code, _, err = invoke(
        "fuzz", "--mcp", "--tool", "status", "--fixed-argument", "/repo_path=/x",
        "--", *server(sandbox),
    )  # fmt: skip
    assert code == 2 and "is not JSON" in err


POLICY = """\
version: 1
defaults: {{runs: 12}}
tools:
  - name: status
    handler: {{mcp: {server}}}
    fixed_arguments: {{/repo_path: {repo}}}
"""


def test_a_policy_fixes_arguments_and_says_where_a_bad_one_is(sandbox: Path) -> None:
    policy = sandbox / "policy.yml"
    argv = json.dumps(server(sandbox, "--lax-verbose"))
    policy.write_text(POLICY.format(server=argv, repo=json.dumps(str(sandbox / "repo"))))
    code, _printed, err = invoke("run", "--policy", str(policy), "--out", str(sandbox / "out"))
    receipt = read(sandbox / "out" / "status.json")
    assert code == 1, err
    assert [c["path"] for c in receipt["counterexamples"]] == ["/verbose"]
    assert receipt["fixedArguments"] == {"/repo_path": str(sandbox / "repo")}

    policy.write_text(POLICY.format(server=argv, repo="[1]"))
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(sandbox / "bad"))
    assert code == 2
    assert "policy.yml:6: tools/0/fixed_arguments: status: the schema does not admit" in err

    policy.write_text(POLICY.format(server=argv, repo="x").replace("/repo_path", "repo_path"))
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(sandbox / "bad"))
    assert code == 2 and "'repo_path' is not a JSON Pointer" in err


def write_tools_file(sandbox: Path) -> Path:
    listed = read_listing(sandbox)
    path = sandbox / "tools.json"
    path.write_text(json.dumps({"tools": listed}), encoding="utf-8")
    return path


def read_listing(sandbox: Path) -> list[Any]:
    sys.path.insert(0, str(MCP))
    try:
        import repo_mcp
    finally:
        sys.path.remove(str(MCP))
    return list(repo_mcp.TOOLS)


TOOLS_POLICY = """\
version: 1
defaults: {{runs: 6}}
tools:
  - name: notes
    tools: tools.json
    handler: {{mcp: {server}}}
{extra}"""


def run_tools_policy(sandbox: Path, extra: str, *flags: str) -> tuple[int, str, str, Path]:
    write_tools_file(sandbox)
    policy = sandbox / "policy.yml"
    policy.write_text(TOOLS_POLICY.format(server=json.dumps(server(sandbox)), extra=extra))
    out = sandbox / "out"
    code, printed, err = invoke("run", "--policy", str(policy), "--out", str(out), *flags)
    return code, printed, err, out


def receipts(out: Path) -> list[str]:
    return sorted(path.name for path in out.glob("*.json") if path.name != "summary.json")


def test_exclude_tools_leaves_declared_tools_out(sandbox: Path) -> None:
    extra = "    exclude_tools: [status, note_add]\n"
    code, _, err, out = run_tools_policy(sandbox, extra)
    assert code == 0, err
    # the two tools share a server: its stateful campaign has a receipt of its own
    assert receipts(out) == ["note_list.json", "reset.json", "stateful_repo_mcp.json"]
    tools = [t["tool"] for t in read(out / "summary.json")["tools"]]
    assert tools == ["note_list", "reset", "stateful:repo_mcp"]

    code, _, err, _ = run_tools_policy(sandbox, "    exclude_tools: [stats]\n")
    assert code == 2
    assert "tools/0/exclude_tools/0: exclude_tools: the tools file declares no tool" in err


def test_exclude_tools_needs_an_entry_that_takes_every_tool(sandbox: Path) -> None:
    code, _, err, _ = run_tools_policy(sandbox, "    tool: status\n    exclude_tools: [reset]\n")
    assert code == 2
    assert "tools/0/exclude_tools: `exclude_tools` goes with an entry that takes every tool" in err


def test_run_policy_picks_and_excludes_tools_by_flag(sandbox: Path) -> None:
    code, _, err, out = run_tools_policy(sandbox, "", "--tool", "reset", "--tool", "note_list")
    assert code == 0, err
    assert receipts(out) == ["note_list.json", "reset.json", "stateful_repo_mcp.json"]

    code, _, err, out = run_tools_policy(
        sandbox, "", "--exclude-tool", "status", "--exclude-tool", "note_add"
    )
    assert code == 0, err
    assert receipts(out) == ["note_list.json", "reset.json", "stateful_repo_mcp.json"]

    code, _, err, _ = run_tools_policy(sandbox, "", "--tool", "stat")
    assert code == 2 and "--tool 'stat': the policy has no such tool" in err
    code, _, err = invoke("run", "--tool", "status")
    assert code == 2 and "--tool goes with --policy" in err


def test_fuzz_excludes_tools_of_a_server_and_cases_wants_one_tool(sandbox: Path) -> None:
    out = sandbox / "out"
    excluded = ("--exclude-tool", "status", "--exclude-tool", "note_add")
    code, _printed, err = invoke(
        "fuzz", "--mcp", "--runs", "6", "--out", str(out), *excluded, "--", *server(sandbox)
    )
    assert code == 0, err
    assert receipts(out) == ["note_list.json", "reset.json"]
    summary = read(out / "summary.json")
    assert summary["verdict"] == "passed" and summary["counts"]["receipts"] == 2
    for entry in summary["tools"]:
        assert entry["receiptHash"] == read(out / entry["receipt"])["receiptHash"]

    code, _, err = invoke(
        "fuzz", "--mcp", "--cases", str(sandbox / "c.jsonl"), "--", *server(sandbox)
    )
    assert code == 2 and "--cases logs one tool's cases and there are 4 tools" in err
    assert not (sandbox / "c.jsonl").exists()
    code, _, err = invoke("fuzz", "--mcp", "--exclude-tool", "nope", "--", *server(sandbox))
    assert code == 2 and "--exclude-tool 'nope': no such tool" in err


def test_fuzz_out_summary_says_what_failed(sandbox: Path) -> None:
    code, printed = fuzz_status(sandbox, sandbox / "out", "--strict")
    summary = read(sandbox / "out" / "summary.json")
    assert code == 1 and summary["verdict"] == "failed"
    [entry] = summary["tools"]
    assert [f["failure"] for f in entry["findings"]] == ["valid-rejected"]
    assert "broken: valid-accepted (valid-rejected)" in printed


def findings_by_tool(out: Path) -> dict[str, list[str]]:
    summary = read(out / "summary.json")
    return {t["tool"]: [f["failure"] for f in t["findings"]] for t in summary["tools"]}


@pytest.mark.parametrize(
    "reset",
    [
        pytest.param("", id="none"),
        pytest.param("    reset_tool: reset\n", id="tool", marks=pytest.mark.slow),
        pytest.param(
            "    reset_command: [python3, -c, 'import os; os.remove(\"store.json\")']\n",
            id="command",
        ),
    ],
)
def test_a_reset_keeps_one_tools_state_out_of_the_next_ones_results(
    sandbox: Path, reset: str
) -> None:
    """`note_add` fills the store; `note_list` crashes on a long note (an internal error
    the server answers and lives through). Without a reset the crash is what `note_add`
    left; with one, `note_list` is judged on an empty store."""
    write_tools_file(sandbox)
    argv = json.dumps(server(sandbox))
    handler = f"{{mcp: {argv}}}" if not reset else f"\n      mcp: {argv}\n  {reset}"
    policy = sandbox / "policy.yml"
    policy.write_text(
        "version: 1\ndefaults: {runs: 6}\ntools:\n"
        f"  - name: notes\n    tools: tools.json\n    exclude_tools: [status, reset]\n"
        f"    handler: {handler}\n",
        encoding="utf-8",
    )
    (sandbox / "store.json").write_text("[]", encoding="utf-8")
    _code, _, err = invoke("run", "--policy", str(policy), "--out", str(sandbox / "out"))
    assert "Traceback" not in err
    found = findings_by_tool(sandbox / "out")
    assert "valid-rejected" not in found["note_add"]
    assert found["note_list"] == ([] if reset else ["internal-error"])
    label = read(sandbox / "out" / "note_list.json")["handler"]
    assert ("reset" in label) == bool(reset)


def test_a_failing_reset_refuses_the_tool_and_two_resets_are_an_error(sandbox: Path) -> None:
    write_tools_file(sandbox)
    argv = json.dumps(server(sandbox))
    policy = sandbox / "policy.yml"
    body = "version: 1\ntools:\n  - name: note_list\n    handler:\n      mcp: {argv}\n{extra}"
    policy.write_text(body.format(argv=argv, extra="      reset_command: ['false']\n"))
    code, _printed, err = invoke("run", "--policy", str(policy), "--out", str(sandbox / "out"))
    assert code == 1, err
    [reason] = read(sandbox / "out" / "note_list.json")["refused"]["reasons"]
    assert reason["code"] == "handler.unusable"
    assert "reset command 'false' exited with 1" in reason["message"]

    both = "      reset_command: ['true']\n      reset_tool: reset\n"
    policy.write_text(body.format(argv=argv, extra=both))
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(sandbox / "out"))
    assert code == 2 and "name one reset" in err


def test_tools_left_out_by_flag_are_not_removed_against_stored_receipts(sandbox: Path) -> None:
    code, _, err, out = run_tools_policy(sandbox, "    exclude_tools: [status, note_add]\n")
    assert code == 0, err
    stored = sandbox / "stored"
    out.rename(stored)
    code, _, err, out = run_tools_policy(
        sandbox,
        "    exclude_tools: [status, note_add]\n",
        "--tool",
        "reset",
        "--baseline-dir",
        str(stored),
    )
    assert code == 0, err
    diff = read(out / "diff.json")
    assert [entry["tool"] for entry in diff["tools"]] == ["reset"]
