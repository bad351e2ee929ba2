"""Stateful campaigns under `--jobs` and `--shard` (issue 29): two MCP servers, each with its
campaign; every file `run --policy` writes is the same whatever the jobs, and shards merged
are the unsharded run byte for byte, each server's campaign run whole in one shard, the one
that runs its first tool (slow: real servers over stdio)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import invoke

FIXTURE = Path(__file__).parents[1] / "fixtures" / "stateful" / "notes_mcp.py"
TOOLS = ("create_note", "get_note", "update_note", "delete_note", "list_notes", "search_notes")

pytestmark = pytest.mark.slow


def write_policy(root: Path) -> Path:
    """Server `a` (a planted double delete) and server `b` (the reference), their tools
    interleaved in the plan, each entry naming the server's tool under a name of its own."""
    lines = ["version: 1", "defaults: {runs: 2}", "tools:"]
    for tool in TOOLS:
        for server, bug in (("a", ["--bug", "double-delete"]), ("b", [])):
            argv = json.dumps([sys.executable, str(root / f"notes_{server}.py"), *bug])
            lines.append(f"  - {{name: {server}_{tool}, handler: {{mcp: {argv}, tool: {tool}}}}}")
    policy = root / "policy.yml"
    policy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for server in "ab":
        shutil.copy(FIXTURE, root / f"notes_{server}.py")
    (root / ".git").mkdir()
    return policy


def files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def run(policy: Path, out: Path, *flags: str) -> int:
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(out), *flags)
    assert "Traceback" not in err, err
    return code


def test_two_servers_campaigns_give_the_same_files_whatever_the_jobs(tmp_path: Path) -> None:
    policy = write_policy(tmp_path)
    out = tmp_path / "out"  # one output directory for both: the reports name it
    assert run(policy, out, "--jobs", "1") == 1
    serial = files(out)
    shutil.rmtree(out)
    assert run(policy, out, "--jobs", "2") == 1
    parallel = files(out)
    assert {"stateful_notes_a.json", "stateful_notes_b.json"} <= set(serial)
    assert sorted(serial) == sorted(parallel)
    for name, content in serial.items():
        assert parallel[name] == content, name
    found = json.loads(serial["stateful_notes_a.json"])["counterexamples"]
    assert [(cx["failure"], cx["path"]) for cx in found] == [("use-after-delete", "/delete_note")]
    assert json.loads(serial["stateful_notes_b.json"])["counterexamples"] == []


def test_shards_run_each_campaign_once_and_merge_to_the_unsharded_run(tmp_path: Path) -> None:
    policy = write_policy(tmp_path)
    merged = tmp_path / "merged"  # the unsharded run writes where the merge will
    run(policy, merged)
    unsharded = files(merged)
    shutil.rmtree(merged)
    shards = []
    for index in (1, 2, 3):
        out = tmp_path / f"shard-{index}"
        assert run(policy, out, "--shard", f"{index}/3") == 0
        shards.append(out)
    # the plan interleaves a_ and b_ tools: a_create_note is unit 0 (shard 1),
    # b_create_note unit 1 (shard 2); shard 3 runs tools of both servers and no campaign
    ran = [sorted(p.name for p in out.glob("stateful_*.json")) for out in shards]
    assert ran == [["stateful_notes_a.json"], ["stateful_notes_b.json"], []]
    manifest = json.loads((shards[1] / "shard.json").read_text("utf-8"))
    assert [(c["tool"], c["unit"]) for c in manifest["stateful"]] == [("stateful:notes_b", 1)]
    assert "stateful" not in json.loads((shards[2] / "shard.json").read_text("utf-8"))
    code, _, err = invoke("merge", *map(str, shards), "--out", str(merged), "--policy", str(policy))
    assert code == 1, err
    assert files(merged) == unsharded
