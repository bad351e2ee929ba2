"""`run --policy --baseline REF`, end to end in a real git repository (issue 4's acceptance).

A base commit holds two correct tools; the head commit gives one of them a handler bug
(width 401 accepted) and the other's schema an unsupported keyword. The gate runs the
base's own policy in a temporary worktree, diffs, and decides.
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import TWO_POSTERS_POLICY as POLICY
from tests.cli_helpers import commit, git, init_repository, set_version
from toolfuzz_gate.cli import run

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """(root, correct commit, buggy commit): the buggy one is the correct one's child."""
    root = tmp_path / "repo"
    init_repository(root)
    shutil.copy(FAULTS / "poster_schema.json", root / "poster.json")
    (root / "toolfuzz.yml").write_text(POLICY)
    set_version(root, buggy=False)
    correct = commit(root, "two correct tools")
    set_version(root, buggy=True)
    buggy = commit(root, "a handler bug and an unsupported keyword")
    return root, correct, buggy


def gate(root: Path, out: Path, *flags: str) -> tuple[int, str, dict[str, Any]]:
    stdout, stderr = io.StringIO(), io.StringIO()
    policy = str(root / "toolfuzz.yml")
    code = run(["run", "--policy", policy, "--out", str(out), *flags], stdout, stderr)
    assert "Traceback" not in stderr.getvalue(), stderr.getvalue()
    found = out / "diff.json"
    diff: dict[str, Any] = json.loads(found.read_text()) if found.exists() else {}
    return code, stdout.getvalue() + stderr.getvalue(), diff


def worktrees(root: Path) -> list[str]:
    return [line for line in git(root, "worktree", "list").splitlines() if line]


def test_a_bug_and_an_unsupported_keyword_are_new(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    root, correct, _ = repo
    code, text, diff = gate(root, tmp_path / "out", "--baseline", correct)
    assert code == 1, text
    totals = diff["totals"]
    assert (totals["new"], totals["unsupportedAdded"], totals["fixed"]) == (1, 1, 0), totals
    (new,) = [cx for tool in diff["tools"] for cx in tool["counterexamples"]["new"]]
    assert (new["tool"], new["failure"], new["path"]) == (
        "renderPoster",
        "hostile-accepted",
        "/width",
    )
    (added,) = [u for tool in diff["tools"] for u in tool["unsupported"]["added"]]
    assert added == {"keyword": "contentSchema", "path": "/contentSchema"}
    assert diff["base"]["sha"] == correct
    assert len(worktrees(root)) == 1  # the base's worktree is gone
    comment = (tmp_path / "out" / "comment.md").read_text()
    assert comment.startswith("<!-- toolfuzz-gate:")
    assert "hostile-accepted" in comment and correct[:7] in comment
    sarif = json.loads((tmp_path / "out" / "results.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"hostile-accepted", "unsupported-keyword"}
    located = {r["ruleId"]: r["locations"][0]["physicalLocation"] for r in results}
    assert located["unsupported-keyword"]["artifactLocation"]["uri"] == "copy.json"
    annotations = (tmp_path / "out" / "annotations.txt").read_text().splitlines()
    assert annotations[0].startswith("::error file=")


def test_the_reverse_change_reports_them_fixed(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    root, correct, buggy = repo
    git(root, "checkout", "-q", correct)
    code, text, diff = gate(root, tmp_path / "out", "--baseline", buggy)
    assert code == 0, text
    totals = diff["totals"]
    assert (totals["new"], totals["fixed"], totals["unsupportedRemoved"]) == (0, 1, 1), totals


def test_the_same_commit_on_both_sides_gives_an_empty_diff(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    root, _, buggy = repo
    code, text, diff = gate(root, tmp_path / "out", "--baseline", buggy)
    totals = diff["totals"]
    still = ("stillFailing", "stillFailingGroups", "refusedStill")
    assert all(totals[name] == 0 for name in totals if name not in still), totals
    assert totals["refusedStill"] == 1  # the schema that uses `not`, on both sides
    assert {tool["status"] for tool in diff["tools"]} == {"unchanged"}
    # nothing new, so new-counterexample holds; the schema still uses `not`, which
    # fail_on: unsupported-keyword refuses whether or not the base had it too
    assert code == 1, text
    assert "unsupported-keyword:" in text and "new-counterexample:" not in text


def test_stored_receipts_serve_as_the_baseline(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    root, correct, _ = repo
    git(root, "checkout", "-q", correct)
    code, text, _ = gate(root, tmp_path / "base")
    assert code == 0, text
    git(root, "checkout", "-q", "main")
    code, text, diff = gate(root, tmp_path / "head", "--baseline-dir", str(tmp_path / "base"))
    assert code == 1, text
    assert (diff["totals"]["new"], diff["totals"]["unsupportedAdded"]) == (1, 1)


def test_baseline_flags_need_a_policy_and_conflict(tmp_path: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["run", "--baseline", "HEAD~1"], stdout, stderr) == 2
    assert "--baseline goes with --policy" in stderr.getvalue()


def test_several_seeds_meet_the_same_seeds_of_stored_receipts(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    root, correct, _ = repo
    (root / "toolfuzz.yml").write_text(
        POLICY.replace("defaults: {runs: 24}", "defaults: {runs: 24, seeds: [5, 6]}")
    )
    git(root, "checkout", "-q", correct, "--", "poster_impl.py", "copy.json")
    code, text, _ = gate(root, tmp_path / "base")
    assert code == 0, text
    git(root, "checkout", "-q", "main", "--", "poster_impl.py", "copy.json")
    code, text, diff = gate(root, tmp_path / "head", "--baseline-dir", str(tmp_path / "base"))
    assert code == 1, text
    names = [tool["tool"] for tool in diff["tools"]]
    assert names == [
        f"{tool} (seed {seed})" for tool in ("renderPoster", "renderPosterCopy") for seed in (5, 6)
    ]
    assert diff["totals"]["unsupportedAdded"] == 2  # one per seed's receipt
    sarif = json.loads((tmp_path / "head" / "results.sarif").read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert uris <= {"poster.json", "copy.json"}, uris


def test_an_unsupported_keyword_cannot_hide_a_failing_tool(tmp_path: Path) -> None:
    """Issue 11: the head adds an unsupported keyword to a failing tool's schema. The base's
    counterexamples are not run on head, never fixed, and the gate fails."""
    root = tmp_path / "repo"
    init_repository(root)
    shutil.copy(FAULTS / "poster_schema.json", root / "poster.json")
    (root / "toolfuzz.yml").write_text(POLICY)
    set_version(root, buggy=False)
    shutil.copy(FAULTS / "lax_width.py", root / "poster_impl.py")  # both tools fail on base
    base = commit(root, "a handler bug")
    schema = json.loads((root / "poster.json").read_text())
    schema["properties"]["title"]["contentSchema"] = {"const": "hidden"}
    (root / "poster.json").write_text(json.dumps(schema, indent=2) + "\n")
    commit(root, "hide the bug behind an unsupported keyword")
    code, text, diff = gate(root, tmp_path / "out", "--baseline", base)
    assert code == 1, text
    tools = {entry["tool"]: entry for entry in diff["tools"]}
    hidden = tools["renderPoster"]
    assert hidden["counterexamples"]["fixed"] == [] and diff["totals"]["fixed"] == 0
    gone = hidden["counterexamples"]["notRunOnHead"]
    assert gone and {cx["failure"] for cx in gone} == {"hostile-accepted"}
    assert hidden["coverageLost"] is True and hidden["refused"]["state"] == "new"
    assert diff["totals"]["notRunOnHead"] == len(gone)
    assert any(r.startswith("not-run-on-head: ") for r in _reasons(tmp_path / "out"))
    assert "not-run-on-head: base counterexamples head did not fuzz" in text
    comment = (tmp_path / "out" / "comment.md").read_text()
    assert f"### Not run on head ({len(gone)})" in comment
    assert "fixed (" not in comment.lower() and not re.search(r"\d+ fixed", comment)


def _reasons(out: Path) -> list[str]:
    reasons: list[str] = json.loads((out / "summary.json").read_text())["reasons"]
    return reasons
