"""Which checks apply is declared, not assumed (issue 14), through `cli.run` against a real
MCP server over stdio whose tools declare what they promise (`declared_mcp.py`): a
`create` tool with `idempotentHint: false` is not replay-unstable, a `readOnlyHint: true`
tool whose replay differs is, and a clean rejection of a schema-valid call is a note on
the schema unless the policy says the schema is complete (`strict: true`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

SERVER = [
    sys.executable,
    str(Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "declared_mcp.py"),
]


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def failures(receipt: Any, member: str = "counterexamples") -> list[tuple[str, str]]:
    return sorted({(c["failure"], c["cause"]) for c in receipt[member]})


def test_fuzz_mcp_holds_each_tool_to_what_its_server_declares(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, out, err = invoke("fuzz", "--mcp", "--runs", "16", "--out", str(out_dir), "--", *SERVER)
    assert code == 1, err  # peek breaks its promise
    create, peek, open_, page = (
        read(out_dir / f"{n}.json") for n in ("create", "peek", "open", "page")
    )
    assert create["counterexamples"] == [] and create["underSpecified"] == []
    assert create["checks"]["replay"] == {
        "applies": False,
        "declaredBy": "default",
        "reason": "the tool does not declare it deterministic",
    }
    assert "replay-stable" not in create["invariants"]
    assert failures(peek) == [("replay-unstable", "")]
    assert peek["checks"]["replay"]["declaredBy"] == "server"
    assert peek["checks"]["replay"]["reason"] == "annotations.readOnlyHint: true"
    assert peek["invariants"]["replay-stable"] is False
    assert open_["counterexamples"] == []
    assert failures(open_, "underSpecified") == [("under-specified", "not-found")]
    [note] = page["underSpecified"]
    assert (note["cause"], note["path"], note["input"]) == ("too-large", "/n", {"n": 51})
    assert note["suggestion"]["verified"] is True
    assert note["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/n/maximum", "value": 50}
    ]
    assert "under-specified" in out


def policy(tmp_path: Path, tools: str, gate: str = "") -> Path:
    server = json.dumps(SERVER)
    path = tmp_path / "policy.yml"
    body = "".join(
        f"  - name: {name}\n    handler: {{mcp: {server}}}\n{extra}"
        for name, extra in (line.split("|", 1) for line in tools.splitlines())
    )
    path.write_text(f"version: 1\ndefaults: {{runs: 16}}\n{gate}tools:\n{body}", encoding="utf-8")
    return path


def run(policy_path: Path, out_dir: Path) -> tuple[int, str, str]:
    return invoke("run", "--policy", str(policy_path), "--out", str(out_dir))


def test_a_strict_tools_valid_rejected_is_a_counterexample_a_lax_ones_a_note(
    tmp_path: Path,
) -> None:
    # every valid `open` is refused (not-found), which `unreached` would fail on: this test
    # is about the notes, so the gate is the invariants' alone
    lax = policy(tmp_path, "open|", "gate: {fail_on: [invariant]}\n")
    code, _, err = run(lax, tmp_path / "lax")
    assert code == 0, err
    receipt = read(tmp_path / "lax" / "open.json")
    assert receipt["counterexamples"] == []
    assert failures(receipt, "underSpecified") == [("under-specified", "not-found")]
    summary = read(tmp_path / "lax" / "summary.json")
    assert summary["counts"]["underSpecified"] == len(receipt["underSpecified"]) > 0
    assert summary["counts"]["counterexamples"] == 0
    comment = (tmp_path / "lax" / "comment.md").read_text(encoding="utf-8")
    assert "under-specified schemas" in comment and "not-found" in comment
    results = read(tmp_path / "lax" / "results.sarif")["runs"][0]["results"]
    notes = [r for r in results if r["ruleId"] == "under-specified"]
    assert notes and all(r["level"] == "note" for r in notes)

    strict = policy(tmp_path, "open|    strict: true\n")
    code, _, err = run(strict, tmp_path / "strict")
    assert code == 1, err
    receipt = read(tmp_path / "strict" / "open.json")
    assert failures(receipt) == [("valid-rejected", "not-found")]
    assert receipt["underSpecified"] == []
    assert receipt["checks"]["valid_accepted"] == {
        "applies": True,
        "declaredBy": "policy",
        "reason": "strict: true",
    }


def test_fail_on_under_specified_makes_the_notes_fail_the_gate(tmp_path: Path) -> None:
    gate = "gate: {fail_on: [invariant, under-specified]}\n"
    code, _, err = run(policy(tmp_path, "open|", gate), tmp_path / "out")
    assert code == 1, err
    summary = read(tmp_path / "out" / "summary.json")
    assert any(r.startswith("under-specified: ") for r in summary["reasons"])


def test_the_policy_switches_a_check_off_over_the_servers_annotation(tmp_path: Path) -> None:
    switched = policy(tmp_path, "peek|    checks: {replay: false, key_order: false}\n")
    code, _, err = run(switched, tmp_path / "out")
    assert code == 0, err
    receipt = read(tmp_path / "out" / "peek.json")
    assert receipt["counterexamples"] == []
    assert receipt["checks"]["replay"] == {
        "applies": False,
        "declaredBy": "policy",
        "reason": "checks.replay: false",
    }
    deterministic = policy(tmp_path, "create|    deterministic: true\n")
    code, _, err = run(deterministic, tmp_path / "det")
    assert code == 1, err
    assert failures(read(tmp_path / "det" / "create.json")) == [("replay-unstable", "")]


def test_an_unknown_check_name_is_a_policy_error(tmp_path: Path) -> None:
    code, _, err = run(policy(tmp_path, "peek|    checks: {replays: false}\n"), tmp_path / "out")
    assert code == 2, err
    assert "unknown key 'replays'" in err and "did you mean 'replay'" in err


SDK_SERVER = [sys.executable, str(Path(SERVER[1]).with_name("declared_sdk_mcp.py"))]


@pytest.mark.slow
def test_an_sdk_built_servers_tool_annotations_are_honoured(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, _, err = invoke(
        "fuzz", "--mcp", "--runs", "8", "--out", str(out_dir), "--", *SDK_SERVER
    )  # fmt: skip
    assert code == 1, err
    add_note, count_notes = (read(out_dir / f"{n}.json") for n in ("add_note", "count_notes"))
    assert add_note["counterexamples"] == []
    assert add_note["checks"]["replay"]["applies"] is False
    assert failures(count_notes) == [("replay-unstable", "")]
    assert count_notes["checks"]["replay"]["reason"] == "annotations.readOnlyHint: true"


def test_a_read_only_tool_that_writes_is_a_finding_and_a_create_tool_is_not(
    tmp_path: Path,
) -> None:
    server = json.dumps(SERVER)
    path = tmp_path / "policy.yml"
    path.write_text(
        "version: 1\ndefaults: {runs: 8}\ntools:\n"
        f"  - name: peek\n    handler: {{mcp: {server}, effects: state}}\n"
        "    checks: {replay: false, key_order: false}\n"
        f"  - name: create\n    handler: {{mcp: {server}, effects: state}}\n",
        encoding="utf-8",
    )
    code, _, err = run(path, tmp_path / "out")
    assert code == 1, err
    peek, create = (read(tmp_path / "out" / f"{n}.json") for n in ("peek", "create"))
    assert failures(peek) == [("read-only-mutation", "")]
    assert peek["checks"]["read_only"] == {
        "applies": True,
        "declaredBy": "server",
        "reason": "annotations.readOnlyHint: true",
    }
    assert peek["invariants"]["read-only-commits-nothing"] is False
    assert create["counterexamples"] == []
    assert "read-only-commits-nothing" not in create["invariants"]


NOTES_SERVER = [sys.executable, str(Path(SERVER[1]).with_name("notes_sdk_mcp.py"))]


@pytest.mark.slow
def test_a_policys_rejection_code_codes_what_the_server_says_in_sentences(tmp_path: Path) -> None:
    # find_entity refuses every name but "a" with "Entity with name NAME not found".
    path = tmp_path / "policy.yml"
    path.write_text(
        "version: 1\n"
        "defaults: {runs: 8, rejection_code: '(?P<code>not found)$'}\n"
        # no generated name is "a": no valid call gets past, which the policy allows
        "gate: {fail_on: [invariant, {allow-unreached: true}]}\n"
        "tools:\n"
        f"  - name: find_entity\n    handler: {{mcp: {json.dumps(NOTES_SERVER)}}}\n"
        "    expected_rejections: [not found]\n    strict: true\n",
        encoding="utf-8",
    )
    code, _, err = run(path, tmp_path / "out")
    assert code == 0, err
    receipt = read(tmp_path / "out" / "find_entity.json")
    assert receipt["counterexamples"] == []
    assert receipt["contract"]["rejectionCode"] == "(?P<code>not found)$"
    flags = [
        "--tool",
        "find_entity",
        "--runs",
        "8",
        "--strict",
        "--expected-rejection",
        "not found",
        "--allow-unreached",  # no generated name is "a"
    ]
    out = tmp_path / "fuzz"
    code, _, err = invoke("fuzz", "--mcp", *flags, "--out", str(out), "--", *NOTES_SERVER)
    assert code == 1, err  # without the pattern each refusal is a tool-error
    assert {c["failure"] for c in read(out / "find_entity.json")["counterexamples"]} == {
        "valid-rejected"
    }
    flags += ["--rejection-code", "(?P<code>not found)$"]
    code, _, err = invoke("fuzz", "--mcp", *flags, "--out", str(out), "--", *NOTES_SERVER)
    assert code == 0, err
    fuzzed = read(out / "find_entity.json")
    assert fuzzed["contract"]["rejectionCode"] == "(?P<code>not found)$"
    assert "--rejection-code" in fuzzed["replayCommand"]
    flags.remove("--allow-unreached")
    code, printed, err = invoke("fuzz", "--mcp", *flags, "--out", str(out), "--", *NOTES_SERVER)
    assert code == 1, err  # no finding, but no valid call got past "not found"
    assert "unreached: 1 tool(s) no valid call got past: find_entity" in printed


@pytest.mark.slow
def test_fuzz_refuses_a_rejection_code_without_its_code_group(tmp_path: Path) -> None:
    code, _, err = invoke(
        "fuzz", "--mcp", "--rejection-code", "(not found)", "--out", str(tmp_path), "--",
        *NOTES_SERVER,
    )  # fmt: skip
    assert code == 2
    assert "--rejection-code: has no group named 'code'" in err
