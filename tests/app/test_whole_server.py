"""A whole MCP server as one policy entry (issue 28), against the SDK-built notes server
`interface_sdk_mcp.py`: every tool it lists, each under its own name with its own receipt,
the same receipts one entry per tool gives; a tool a pull request adds is fuzzed on head,
and one it removes is not refused there."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import commit, init_repository, invoke

FIXTURE = Path(__file__).parents[1] / "fixtures" / "mcp_tool" / "interface_sdk_mcp.py"
PYTHON = json.dumps(sys.executable)
TOOLS = ("search", "tag", "legacy")


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _policy(path: Path, entries: str) -> Path:
    path.write_text(f"version: 1\ndefaults: {{runs: 6}}\ntools:\n{entries}", encoding="utf-8")
    return path


def _server(side: str) -> str:
    return f"{{mcp: [{PYTHON}, {json.dumps(str(FIXTURE))}, {side}]}}"


def _hashed(path: Path) -> dict[str, Any]:
    receipt: dict[str, Any] = read(path)
    receipt.pop("diagnostics", None)
    return receipt


@pytest.mark.slow
def test_a_whole_server_entry_gives_the_receipts_of_one_entry_per_tool(tmp_path: Path) -> None:
    one_each = "".join(
        f"  - name: {name}\n    handler: {_server('base')}\n"
        for name in ("search", "tag", "legacy")
    )
    policy = tmp_path / "policy.yml"  # one path: the receipts' replayCommand names it
    for side, entries in (("whole", f"  - handler: {_server('base')}\n"), ("listed", one_each)):
        _policy(policy, entries)
        code, out, err = invoke("run", "--policy", str(policy), "--out", str(tmp_path / side))
        assert code == 0, out + err
    names = sorted(p.name for p in (tmp_path / "whole").glob("*.json") if p.stem in TOOLS)
    assert names == ["legacy.json", "search.json", "tag.json"]
    for name in names:
        one, other = _hashed(tmp_path / "whole" / name), _hashed(tmp_path / "listed" / name)
        assert one == other, name
        assert sum(one["cases"].values()) > 0 and "refused" not in one
    interface = read(tmp_path / "whole" / "search.json")["interface"]
    assert interface["description"] == "Search the notes."
    assert interface["annotations"] == {"readOnlyHint": True}
    assert interface["taskSupport"] is None
    assert interface["inputSchema"]["properties"]["query"]["maxLength"] == 24
    assert interface["outputSchema"]["additionalProperties"] == {"type": "integer"}
    assert len(interface["digest"]) == 64 and len(interface["inputSchemaDigest"]) == 64


@pytest.mark.slow
def test_exclude_tools_and_an_entry_of_its_own_narrow_a_whole_server(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path / "policy.yml",
        f"  - handler: {_server('base')}\n    exclude_tools: [legacy]\n"
        f"  - name: tag\n    handler: {_server('base')}\n    runs: 3\n",
    )
    out = tmp_path / "out"
    code, text, err = invoke("run", "--policy", str(policy), "--out", str(out))
    assert code == 0, text + err
    assert not (out / "legacy.json").exists()
    assert read(out / "search.json")["runs"] == 6
    assert read(out / "tag.json")["runs"] == 3  # from its own entry, not the whole one


@pytest.mark.slow
def test_an_exclude_tools_name_the_server_does_not_list_is_an_error(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path / "p.yml", f"  - handler: {_server('base')}\n    exclude_tools: [nope]\n"
    )
    code, out, err = invoke("run", "--policy", str(policy), "--out", str(tmp_path / "out"))
    assert code == 2, out + err
    assert "exclude_tools: the MCP server lists no tool named 'nope'" in out + err


def _repository(root: Path) -> str:
    """A repository whose server is the fixture's base version; its head commit makes it
    the head version. The base commit's sha."""
    init_repository(root)
    text = FIXTURE.read_text(encoding="utf-8")
    (root / "server.py").write_text(
        text.replace('HEAD = len(sys.argv) > 1 and sys.argv[1] == "head"', "HEAD = False")
    )
    (root / "toolfuzz.yml").write_text(
        f"version: 1\ndefaults: {{runs: 6}}\ntools:\n  - handler: {{mcp: [{PYTHON}, server.py]}}\n"
    )
    base = commit(root, "base")
    (root / "server.py").write_text(
        text.replace('HEAD = len(sys.argv) > 1 and sys.argv[1] == "head"', "HEAD = True")
    )
    commit(root, "head")
    return base


@pytest.mark.slow
def test_a_tool_the_pull_request_adds_is_fuzzed_on_head(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = _repository(root)
    out = tmp_path / "out"
    argv = ["run", "--policy", str(root / "toolfuzz.yml"), "--out", str(out), "--baseline", base]
    _, text, err = invoke(*argv)
    assert "Traceback" not in text + err
    export = read(out / "export.json")
    assert "refused" not in export and export["cases"]["valid"] > 0
    assert not (out / "legacy.json").exists()
    diff = read(out / "diff.json")
    status = {entry["tool"]: entry["status"] for entry in diff["tools"]}
    assert status["export"] == "added" and status["legacy"] == "removed"
    assert {entry["tool"]: entry["refused"]["state"] for entry in diff["tools"]}["legacy"] is None
    assert diff["totals"]["refusedNew"] == 0
    found = {(e["tool"], e["pointer"], e["change"]): e["breaking"] for e in diff["interface"]}
    assert found == {
        ("legacy", "", "tool-removed"): True,
        ("export", "", "tool-added"): False,
        ("search", "/annotations/readOnlyHint", "annotation-changed"): True,
        ("search", "/description", "description-changed"): False,
        ("search", "/inputSchema/properties/query/maxLength", "bound-narrowed"): True,
        ("search", "/inputSchema/properties/limit/maximum", "bound-widened"): False,
        ("search", "/inputSchema/properties/mode/enum", "enum-narrowed"): True,
        ("search", "/inputSchema/properties/lang", "property-added"): False,
        ("tag", "/inputSchema/properties/label/maxLength", "bound-widened"): False,
        ("tag", "/inputSchema/properties/color/enum", "enum-widened"): False,
        ("tag", "/inputSchema/properties/scope", "property-added"): False,
        ("tag", "/inputSchema/required", "required-added"): True,
    }
    [narrowed] = [e for e in diff["interface"] if e["change"] == "bound-narrowed"]
    assert narrowed["evidence"]["call"] == {"query": "a" * 13}
    # tried on head's own server: it refuses the call too
    assert narrowed["evidence"]["onHead"] == {"outcome": "rejected", "code": "tool-error"}
    comment = (out / "comment.md").read_text(encoding="utf-8")
    assert "### Interface changes (5 breaking, 7 other)" in comment
    assert "head's handler, sent the call below, answered: rejected (tool-error)" in comment
    summary = read(out / "summary.json")
    assert not any(r.startswith("breaking-change") for r in summary["reasons"])  # off by default


@pytest.mark.slow
def test_fail_on_breaking_change_fails_unless_allowed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    base = _repository(root)
    policy = root / "toolfuzz.yml"
    for fail_on, failed in (
        ("[breaking-change]", True),
        ("[breaking-change, {allow-breaking: [legacy, search, tag]}]", False),
    ):
        text = policy.read_text(encoding="utf-8").split("tools:")[1]
        policy.write_text(
            f"version: 1\ndefaults: {{runs: 4}}\ngate: {{fail_on: {fail_on}}}\ntools:{text}",
            encoding="utf-8",
        )
        out = tmp_path / f"out-{failed}"
        argv = ["run", "--policy", str(policy), "--out", str(out), "--baseline", base]
        code, text_out, err = invoke(*argv)
        reasons = read(out / "summary.json")["reasons"]
        assert (code == 1) is failed, text_out + err
        breaking = [r for r in reasons if r.startswith("breaking-change")]
        assert len(breaking) == 1
        assert breaking[0].startswith(
            "breaking-change: 5 breaking" if failed else "breaking-change: accepted"
        )
