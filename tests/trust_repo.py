"""A pull request for the trust tests (issue 26, test helper): a real repository whose base
has the paging tool correct and whose head plants its off-by-one (`LIMIT = 11`), plus
whatever the attack adds in the same commit; HEAD is the merge commit GitHub checks out.
The action runs as the runner starts it (`tests.action_env`), against the loopback GitHub."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tests.action_env import ActionRun, run_action
from tests.cli_helpers import commit, git, init_repository
from tests.github_server import Account, FakeGitHub

PAGER = Path(__file__).parent / "fixtures" / "pager"
REPO = "octo/tools"
NUMBER = 9
TOKEN = "ghs_toolfuzzTrustToken0123456789"
POLICY = """\
version: 1
defaults: {runs: 6}
gate: {fail_on: [new-counterexample]}
tools:
  - name: list_items
    schema: limit.json
    handler:
      python: "pager:list_items"
      rejects: ["pager:Rejected"]
"""
BUG = "\nLIMIT = 11  # the pull request's off-by-one\n"
Change = Callable[[Path], None]


def pull_request(
    workspace: Path, attack: Change | None = None, base: Change | None = None, bug: bool = True
) -> dict[str, Any]:
    """The repository in `workspace` and the `pull_request` event for it: `base` changes
    the base commit's files, `attack` the head commit's (beside the bug, unless not `bug`)."""
    init_repository(workspace)
    for name in ("pager.py", "limit.json"):
        shutil.copy(PAGER / name, workspace / name)
    (workspace / "toolfuzz-gate.yml").write_text(POLICY)
    (workspace / ".gitignore").write_text("toolfuzz-gate-results/\n.venv/\n")
    if base is not None:
        base(workspace)
    base_sha = commit(workspace, "the paging tool")
    git(workspace, "checkout", "-q", "-b", "topic")
    if bug:
        append(workspace / "pager.py", BUG)
    else:
        append(workspace / "NOTES.md", "a change\n")
    if attack is not None:
        attack(workspace)
    head_sha = commit(workspace, "the pull request")
    git(workspace, "checkout", "-q", "main")
    git(workspace, "merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    return {
        "action": "synchronize",
        "number": NUMBER,
        "pull_request": {
            "number": NUMBER,
            "head": {"sha": head_sha, "ref": "topic", "repo": {"full_name": REPO}},
            "base": {"sha": base_sha, "ref": "main", "repo": {"full_name": REPO}},
        },
    }


def gate_pull_request(
    venv: Path,
    workspace: Path,
    event: dict[str, Any],
    inputs: Mapping[str, str] = {},
    runtime: Mapping[str, str] = {},
    as_user: int | None = None,
) -> tuple[ActionRun, str]:
    """The action's run on the pull request, and the comment it posted ("" for none);
    `as_user`: the uid the gate runs as (`tests.action_env.run_action`)."""
    with FakeGitHub({TOKEN: Account("github-actions[bot]", integration=True)}) as github:
        done = run_action(
            venv,
            workspace,
            github.url,
            "pull_request",
            event,
            {"github-token": TOKEN, **inputs},
            REPO,
            runtime=dict(runtime),
            as_user=as_user,
        )
        done.assert_token_nowhere(TOKEN, github)
        bodies = [c["body"] for c in github.comments(REPO, NUMBER)]
    return done, bodies[-1] if bodies else ""


def append(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


def writable_by_others(top: Path) -> None:
    """`top` and everything below it writable by anyone: where the gate is not root (the
    composite action) handlers run as its user and can write what it can. As root the
    gate runs them as another user, who could not (`tests/cli/test_action_confine.py`);
    this lets the tests here reach the checks made after the handlers."""
    for path in [top, *top.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o777 if path.is_dir() else 0o666)
