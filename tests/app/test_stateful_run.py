"""Stateful campaigns end to end on a real MCP server over stdio: `run --policy` on the
planted note store, each bug found alone, shrunk, replayed from a fresh server by `replay`;
the correct reference clean; the receipt byte-identical across runs (slow: real servers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke

FIXTURE = Path(__file__).parents[1] / "fixtures" / "stateful" / "notes_mcp.py"
TOOLS = ("create_note", "get_note", "update_note", "delete_note", "list_notes", "search_notes")
BUGS = {
    "crash-after-delete": ("sequence-crash", "/get_note", 3),
    "double-delete": ("use-after-delete", "/delete_note", 3),
    "stale-index": ("sequence-crash", "/search_notes", 3),
    "stale-cursor": ("sequence-crash", "/list_notes", 5),
    "unreadable-create": ("resource-unavailable", "/get_note", 2),
    "update-not-visible": ("update-not-visible", "/get_note", 4),
}


def write_policy(directory: Path, bug: str | None, extra: str = "") -> Path:
    argv = [sys.executable, str(FIXTURE), *(["--bug", bug] if bug else [])]
    lines = ["version: 1", "defaults: {runs: 2}", extra, "tools:"]
    for tool in TOOLS:
        lines += [f"  - name: {tool}", f"    handler: {{mcp: {json.dumps(argv)}}}"]
    policy = directory / "policy.yml"
    policy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return policy


def stateful(out: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((out / "stateful_notes_mcp.json").read_text("utf-8"))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("bug", sorted(BUGS))
def test_a_planted_sequence_bug_is_found_shrunk_and_replayed_from_a_fresh_server(
    tmp_path: Path, bug: str
) -> None:
    policy = write_policy(tmp_path, bug)
    out = tmp_path / "out"
    code, printed, _ = invoke("run", "--policy", str(policy), "--out", str(out))
    assert code != 0
    receipt = stateful(out)
    failure, path, calls = BUGS[bug]
    found = receipt["counterexamples"]
    assert [(cx["failure"], cx["path"]) for cx in found] == [(failure, path)]
    assert len(found[0]["sequence"]) == calls and found[0]["flaky"] is False
    assert "(fails here)" in printed
    comment = (out / "comment.md").read_text("utf-8")
    assert f"{calls}. {path[1:]} " in comment and "(fails here)" in comment
    code, replayed, _ = invoke(
        "replay", str(out / "stateful_notes_mcp.json"), "--policy", str(policy)
    )
    assert code == 1 and "replay: 1 of 1 still fail" in replayed
    (tmp_path / "fixed").mkdir()
    fixed = write_policy(tmp_path / "fixed", None)
    receipt_file = str(out / "stateful_notes_mcp.json")
    code, replayed, _ = invoke("replay", receipt_file, "--policy", str(fixed))
    assert code == 0 and "replay: 0 of 1 still fail" in replayed


@pytest.mark.slow
def test_the_reference_has_no_stateful_finding_and_the_same_receipt_twice(tmp_path: Path) -> None:
    policy = write_policy(tmp_path, None)
    receipts = []
    for name in ("a", "b"):
        invoke("run", "--policy", str(policy), "--out", str(tmp_path / name))
        receipts.append((tmp_path / name / "stateful_notes_mcp.json").read_bytes())
    assert receipts[0] == receipts[1]
    receipt = json.loads(receipts[0])
    assert receipt["counterexamples"] == [] and all(receipt["invariants"].values())
    assert receipt["tool"] == "stateful:notes_mcp"
    assert receipt["stateful"]["tools"]["delete_note"] == "deletes"


@pytest.mark.slow
def test_a_policy_switches_the_campaign_or_a_check_off(tmp_path: Path) -> None:
    off = write_policy(tmp_path, "double-delete", "stateful: {enabled: false}")
    invoke("run", "--policy", str(off), "--out", str(tmp_path / "off"))
    assert not (tmp_path / "off" / "stateful_notes_mcp.json").exists()
    (tmp_path / "x").mkdir()
    unchecked = write_policy(
        tmp_path / "x", "double-delete", "stateful: {checks: {use-after-delete: false}}"
    )
    invoke("run", "--policy", str(unchecked), "--out", str(tmp_path / "x" / "out"))
    receipt = stateful(tmp_path / "x" / "out")
    assert receipt["counterexamples"] == []
    assert "use-after-delete" not in receipt["invariants"]


@pytest.mark.slow
def test_saturation_false_runs_every_planned_sequence(tmp_path: Path) -> None:
    policy = write_policy(tmp_path, None)
    invoke("run", "--policy", str(policy), "--out", str(tmp_path / "on"))
    saturated = stateful(tmp_path / "on")
    policy.write_text(
        policy.read_text("utf-8").replace("{runs: 2}", "{runs: 2, saturation: false}")
    )
    invoke("run", "--policy", str(policy), "--out", str(tmp_path / "off"))
    whole = stateful(tmp_path / "off")
    assert saturated["stateful"]["stop"] == "saturated" and saturated["limits"]["window"] == 8
    assert saturated["stateful"]["sequences"] < saturated["stateful"]["planned"]
    assert whole["stateful"]["stop"] is None and whole["limits"]["window"] == 0
    assert whole["stateful"]["sequences"] == whole["stateful"]["planned"] == 24


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "scope", "seconds"),
    [
        ("budget_s: 0.001", "run", "runSeconds"),
        ("defaults: {runs: 2, budget_s: 0.001}", "tool", "seconds"),
    ],
)
def test_a_spent_budget_cuts_the_stateful_campaign_and_the_verdict_says_so(
    tmp_path: Path, where: str, scope: str, seconds: str
) -> None:
    policy = write_policy(tmp_path, None, where if scope == "run" else "")
    if scope == "tool":
        policy.write_text(policy.read_text("utf-8").replace("defaults: {runs: 2}", where))
    out = tmp_path / "out"
    invoke("run", "--policy", str(policy), "--out", str(out))
    receipt = stateful(out)
    budget = receipt["budget"]
    assert budget["exhausted"] is True and budget["scope"] == scope
    assert budget[seconds] == 0.001 and budget["stoppedAt"]["stream"] == "stateful"
    assert receipt["stateful"]["stop"] == "budget"
    assert budget["notRun"] == {"stateful": 24 - receipt["stateful"]["sequences"]}
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    notes = " ".join(summary["reasons"])
    assert "stateful:notes_mcp (" in notes and "stateful)" in notes


@pytest.mark.slow
def test_an_unspent_budget_is_recorded_and_the_receipt_stays_byte_identical(
    tmp_path: Path,
) -> None:
    policy = write_policy(tmp_path, None, "budget_s: 3600")
    receipts = []
    for name in ("a", "b"):
        invoke("run", "--policy", str(policy), "--out", str(tmp_path / name))
        receipts.append((tmp_path / name / "stateful_notes_mcp.json").read_bytes())
    assert receipts[0] == receipts[1]
    assert json.loads(receipts[0])["budget"] == {"runSeconds": 3600, "exhausted": False}


@pytest.mark.slow
def test_a_declared_link_with_a_nested_place_makes_the_check_certain(tmp_path: Path) -> None:
    """Tools without output schemas: the id a create returns deep in its output is linked
    only as a guess, so an unreadable create is not judged; a policy's link to the place
    (`/note/id`, past the owner's id that comes first) makes it certain: found, and the
    correct reference, its read given the note's id and not the owner's, stays clean."""
    link = (
        "stateful: {links: [{from: create_note, output: /note/id, to: get_note, input: note_id}]}"
    )
    found = {}
    runs = (("guessed", "unreadable-create", ""), ("declared", "unreadable-create", link))
    for name, bug, extra in (*runs, ("reference", None, link)):
        (tmp_path / name).mkdir()
        policy = write_policy(tmp_path / name, bug, extra)
        text = policy.read_text("utf-8").replace(
            'notes_mcp.py"', 'notes_mcp.py", "--nested", "--bare"'
        )
        policy.write_text(text, encoding="utf-8")
        invoke("run", "--policy", str(policy), "--out", str(tmp_path / name / "out"))
        receipt = stateful(tmp_path / name / "out")
        found[name] = [(cx["failure"], cx["path"]) for cx in receipt["counterexamples"]]
        if name == "declared":
            declared = {"from": "create_note", "output": "/note/id", "to": "get_note"}
            links = [x for x in receipt["stateful"]["links"] if x["source"] == "policy"]
            assert links == [{**declared, "input": "note_id", "certain": True, "source": "policy"}]
            cx = receipt["counterexamples"][0]
            assert cx["sequence"][1]["links"][0]["from"] == "/note/id"
    assert found == {
        "guessed": [],
        "declared": [("resource-unavailable", "/get_note")],
        "reference": [],
    }


@pytest.mark.slow
def test_replay_finds_the_server_by_its_command_when_one_program_runs_twice(
    tmp_path: Path,
) -> None:
    """Two servers of one script (`notes_mcp`, `notes_mcp-2`): `replay --policy` runs each
    receipt's sequences on the server that made it."""
    lines = ["version: 1", "defaults: {runs: 2}", "tools:"]
    for prefix, bug in (("a", "double-delete"), ("b", "crash-after-delete")):
        argv = json.dumps([sys.executable, str(FIXTURE), "--bug", bug])
        for tool in TOOLS:
            lines.append(f"  - {{name: {prefix}_{tool}, handler: {{mcp: {argv}, tool: {tool}}}}}")
    policy = tmp_path / "policy.yml"
    policy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    invoke("run", "--policy", str(policy), "--out", str(out))
    second = json.loads((out / "stateful_notes_mcp-2.json").read_text("utf-8"))
    assert [cx["failure"] for cx in second["counterexamples"]] == ["sequence-crash"]
    for name in ("stateful_notes_mcp.json", "stateful_notes_mcp-2.json"):
        code, replayed, _ = invoke("replay", str(out / name), "--policy", str(policy))
        assert code == 1 and "replay: 1 of 1 still fail" in replayed, name
