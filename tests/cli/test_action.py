"""`toolfuzz-gate action` end to end (issue 5's acceptance): the entrypoint installed in a
clean virtual environment, a simulated Actions runner (event file, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, INPUT_* variables), a real git repository whose HEAD is the merge commit
GitHub checks out for a pull request, and a real HTTP server on 127.0.0.1 standing in for the
REST API (`tests/github_server.py`), with pagination and injected faults.

The pull request gives one tool a handler bug (width 401 accepted) and the other's schema an
unsupported keyword, so the gate fails with one new counterexample and one added keyword.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.action_env import ActionRun, clean_venv, run_action
from tests.cli_helpers import TWO_POSTERS_POLICY, commit, git, init_repository, set_version
from tests.github_server import Account, FakeGitHub, Fault

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
NOBODY = 65534
REPO = "octo/tools"
NUMBER = 7
TOKEN = "ghs_toolfuzzSecretToken0123456789"
MARKER = "<!-- toolfuzz-gate:default -->"


@dataclass(frozen=True)
class Repository:
    template: Path
    base: str
    head: str
    merge: str


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Repository:
    """main: two correct tools, then an unrelated commit; topic (the PR head, branched before
    that commit): the bug and the keyword; HEAD: main merged with topic, the way GitHub
    builds refs/pull/N/merge (first parent: the base branch)."""
    root = tmp_path_factory.mktemp("action") / "repo"
    init_repository(root)
    shutil.copy(FAULTS / "poster_schema.json", root / "poster.json")
    (root / "toolfuzz-gate.yml").write_text(TWO_POSTERS_POLICY)
    (root / ".gitignore").write_text("toolfuzz-gate-results/\n")
    set_version(root, buggy=False)
    commit(root, "two correct tools")
    git(root, "checkout", "-q", "-b", "topic")
    set_version(root, buggy=True)
    head = commit(root, "a handler bug and an unsupported keyword")
    git(root, "checkout", "-q", "main")
    (root / "NOTES.md").write_text("unrelated work on main\n")
    base = commit(root, "unrelated")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge topic into main", "topic")
    merge = git(root, "rev-parse", "HEAD")
    return Repository(root, base, head, merge)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clean_venv(tmp_path_factory.mktemp("venv"))


@pytest.fixture
def workspace(repository: Repository, tmp_path: Path) -> Path:
    """A checkout of the merge commit. Run as root (as the action's container is), the
    checkout belongs to another user, as the runner's mounted workspace does, so git refuses
    it unless the entrypoint marks it as a safe.directory."""
    root = tmp_path / "workspace"
    shutil.copytree(repository.template, root, symlinks=True)
    if os.geteuid() == 0:
        for path in [root, *root.rglob("*")]:
            os.lchown(path, NOBODY, NOBODY)
    return root


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub({TOKEN: Account("github-actions[bot]", integration=True)}) as server:
        yield server


def pull_request_event(repository: Repository, *, fork: bool = False) -> dict[str, Any]:
    return {
        "action": "synchronize",
        "number": NUMBER,
        "pull_request": {
            "number": NUMBER,
            "head": {
                "sha": repository.head,
                "ref": "topic",
                "repo": {"full_name": "someone/tools" if fork else REPO},
            },
            "base": {"sha": repository.base, "ref": "main", "repo": {"full_name": REPO}},
        },
    }


def act(
    venv: Path,
    workspace: Path,
    github: FakeGitHub,
    event: dict[str, Any],
    *,
    name: str = "pull_request",
    **inputs: str,
) -> ActionRun:
    done = run_action(
        venv, workspace, github.url, name, event, {"github-token": TOKEN, **inputs}, REPO
    )
    done.assert_token_nowhere(TOKEN, github)
    return done


def ours(github: FakeGitHub) -> list[dict[str, Any]]:
    return [
        c
        for c in github.comments(REPO, NUMBER)
        if c["user"]["login"] == "github-actions[bot]" and c["body"].startswith(MARKER)
    ]


@pytest.mark.slow
def test_create_then_update_in_place_then_leave_unchanged(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    forged = github.seed_comment(REPO, NUMBER, "mallory", f"{MARKER}\nforged verdict: passed")
    event = pull_request_event(repository)

    first = act(venv, workspace, github, event)
    assert first.code == 1, first.stdout + first.stderr
    assert first.outputs["verdict"] == "failed"
    assert first.outputs["new-counterexamples"] == "1"
    assert first.outputs["unsupported-keywords"] == "1"
    assert first.outputs["receipts-path"] == "toolfuzz-gate-results"
    assert first.outputs["sarif-path"] == "toolfuzz-gate-results/results.sarif"
    assert first.outputs["junit-path"] == "toolfuzz-gate-results/junit.xml"
    [created] = ours(github)
    assert first.outputs["comment-url"] == created["html_url"]
    assert len(github.sent("POST")) == 1 and not github.sent("PATCH")
    assert "| 1 | hostile-accepted | renderPoster | 1 | accepted the number 401 " in created["body"]
    assert (
        "| renderPosterCopy | schema.unsupported-keyword | the keyword 'contentSchema' is not "
        "supported | copy.json:"
    ) in created["body"]
    assert created["body"] in first.summary
    assert "::error file=" in first.stdout  # the annotations, located in the schema files
    assert (workspace / "toolfuzz-gate-results" / "base" / "renderPoster.json").is_file()
    # nothing written in the workspace but the output directory; the base's worktree is gone
    status = git(
        workspace, "-c", f"safe.directory={workspace}", "status", "--porcelain", "--ignored"
    )
    assert status == "!! toolfuzz-gate-results/"
    assert not (workspace / ".git" / "worktrees").exists()
    assert (
        f"base {repository.base[:7]}" in created["body"] or repository.base[:7] in (created["body"])
    )

    second = act(venv, workspace, github, event, seed="5")
    assert set(first.delimiters).isdisjoint(second.delimiters)  # fresh and random per run
    [updated] = ours(github)
    assert updated["id"] == created["id"] and updated["body"] != created["body"]
    assert len(github.sent("POST")) == 1 and len(github.sent("PATCH")) == 1
    assert second.outputs["comment-url"] == created["html_url"]

    third = act(venv, workspace, github, event, seed="5")
    assert third.code == 1
    assert len(github.sent("POST")) == 1 and len(github.sent("PATCH")) == 1  # nothing sent
    assert ours(github) == [updated]
    assert "PR comment unchanged" in third.stdout

    still = [c for c in github.comments(REPO, NUMBER) if c["id"] == forged["id"]]
    assert still == [forged]  # another user's comment carrying the marker is never edited
    assert not [r for r in github.requests if r.path.endswith(f"/comments/{forged['id']}")]


@pytest.mark.slow
def test_each_comment_key_keeps_its_own_comment(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    event = pull_request_event(repository)
    act(venv, workspace, github, event, baseline="none")
    act(venv, workspace, github, event, baseline="none", **{"comment-key": "second-gate"})
    bodies = sorted(c["body"].split("\n", 1)[0] for c in github.comments(REPO, NUMBER))
    assert bodies == [MARKER, "<!-- toolfuzz-gate:second-gate -->"]
    assert not github.sent("PATCH") and not github.sent("DELETE")


@pytest.mark.slow
def test_recreate_replaces_the_comment(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    event = pull_request_event(repository)
    act(venv, workspace, github, event, baseline="none", comment="recreate")
    [first] = ours(github)
    act(venv, workspace, github, event, baseline="none", comment="recreate")
    [second] = ours(github)
    assert second["id"] != first["id"] and second["body"] == first["body"]
    assert [r.path for r in github.sent("DELETE")] == [
        f"/repos/{REPO}/issues/comments/{first['id']}"
    ]


@pytest.mark.slow
def test_a_5xx_on_listing_is_retried(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    github.add_fault(Fault("GET", rf"/repos/{REPO}/issues/{NUMBER}/comments", status=502))
    done = act(venv, workspace, github, pull_request_event(repository), baseline="none")
    assert done.code == 1
    assert len(ours(github)) == 1
    listed = [r for r in github.sent("GET") if r.path.endswith("/comments")]
    assert len(listed) >= 3  # the failed listing, its retry, and the check after the create
    assert "HTTP 502" in done.stdout


@pytest.mark.slow
def test_a_429_with_retry_after_is_honoured(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    github.add_fault(
        Fault(
            "POST",
            rf"/repos/{REPO}/issues/{NUMBER}/comments",
            status=429,
            headers={"retry-after": "1"},
            body={"message": "You have exceeded a secondary rate limit."},
        )
    )
    done = act(venv, workspace, github, pull_request_event(repository), baseline="none")
    assert len(github.sent("POST")) == 2  # refused once, then sent again after the wait
    assert len(ours(github)) == 1
    assert "HTTP 429" in done.stdout and "1.0s" in done.stdout


@pytest.mark.slow  # the module's clean venv is built with pip: 25 s or more
def test_a_fork_gets_the_summary_and_no_comment_attempt(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    done = act(venv, workspace, github, pull_request_event(repository, fork=True))
    assert done.code == 1
    assert github.requests == []  # not even a listing: the token could not write
    assert done.outputs["verdict"] == "failed" and done.outputs["comment-url"] == ""
    assert "from a fork" in done.summary and MARKER in done.summary
    assert "::error file=" in done.stdout
    results = workspace / "toolfuzz-gate-results"
    for name in ("summary.json", "diff.json", "results.sarif", "junit.xml", "comment.md"):
        assert (results / name).is_file(), name
    assert json.loads((results / "pr.json").read_text())["number"] == NUMBER


@pytest.mark.slow
def test_a_body_too_long_falls_back_to_a_shorter_rendering(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    github.max_body = 800
    done = act(venv, workspace, github, pull_request_event(repository), baseline="none")
    [posted] = ours(github)
    full = (workspace / "toolfuzz-gate-results" / "comment.md").read_text()
    assert len(full) > 800 >= len(posted["body"])
    assert posted["body"].startswith(MARKER + "\n") and "failed" in posted["body"]
    rejected = [r for r in github.sent("POST") if json.loads(r.body)["body"] == full]
    assert rejected, "the long body was tried first"
    assert "shorter rendering" in done.stdout
    assert done.code == 1 and done.outputs["verdict"] == "failed"


@pytest.mark.slow  # the module's clean venv is built with pip: 25 s or more
def test_a_comment_that_cannot_be_posted_is_a_warning_not_a_verdict(
    venv: Path, workspace: Path, repository: Repository
) -> None:
    with FakeGitHub({TOKEN: Account("github-actions[bot]", read_only=True)}) as github:
        done = act(venv, workspace, github, pull_request_event(repository), baseline="none")
    assert done.code == 1 and done.outputs["verdict"] == "failed"
    assert "::warning::toolfuzz-gate: the PR comment could not be posted" in done.stdout


@pytest.mark.slow
def test_an_unreachable_api_is_a_warning_not_a_verdict(
    venv: Path, workspace: Path, repository: Repository
) -> None:
    with socket.socket() as closed:  # a loopback port nobody listens on
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    done = run_action(
        venv,
        workspace,
        url,
        "pull_request",
        pull_request_event(repository),
        {"github-token": TOKEN, "baseline": "none"},
        REPO,
    )
    assert done.code == 1 and done.outputs["verdict"] == "failed"
    assert done.outputs["comment-url"] == ""
    assert "::warning::toolfuzz-gate: the PR comment could not be posted (github.unreachable)" in (
        done.stdout
    )
    assert TOKEN not in done.stderr


@pytest.mark.slow
def test_stored_baselines_no_token_and_comment_off(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    event = pull_request_event(repository)
    act(venv, workspace, github, event, baseline="none", comment="off")
    assert github.requests == []
    shutil.copytree(workspace / "toolfuzz-gate-results", workspace / "stored")
    stored = act(venv, workspace, github, event, baseline="dir:stored", comment="off")
    assert stored.outputs["new-counterexamples"] == "0"  # the stored base's own findings
    assert stored.code == 1  # the policy also fails on any unsupported keyword
    gated = act(
        venv,
        workspace,
        github,
        event,
        baseline="dir:stored",
        comment="off",
        **{"fail-on": "new-counterexample"},
    )
    # the input narrows the base's rules, which it cannot (issue 26): the base's still apply
    assert gated.code == 1 and gated.outputs["verdict"] == "failed"
    assert "gate.fail\\_on: unsupported-keyword removed" in gated.summary
    tokenless = act(venv, workspace, github, event, baseline="none", **{"github-token": ""})
    assert tokenless.code == 1 and tokenless.outputs["verdict"] == "failed"
    assert "::warning::toolfuzz-gate: no github-token: no PR comment" in tokenless.stdout
    assert github.requests == []


@pytest.mark.slow
def test_push_diffs_against_before_and_dispatch_runs_alone(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    pushed = act(venv, workspace, github, {"before": repository.base}, name="push")
    assert pushed.code == 1 and pushed.outputs["new-counterexamples"] == "1"
    diff = json.loads((workspace / "toolfuzz-gate-results" / "diff.json").read_text())
    assert diff["base"]["sha"] == repository.base
    dispatched = act(venv, workspace, github, {}, name="workflow_dispatch")
    assert "has no base commit" in dispatched.stdout
    assert github.requests == []  # no pull request: nothing to comment on


@pytest.mark.slow  # the module's clean venv is built with pip: 25 s or more
def test_pull_request_target_is_refused(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository
) -> None:
    done = act(venv, workspace, github, pull_request_event(repository), name="pull_request_target")
    assert done.code == 2
    assert "::error::toolfuzz-gate: the pull_request_target event is not supported" in (done.stdout)
    assert done.outputs == {"verdict": "error"}
    assert not (workspace / "toolfuzz-gate-results").exists()


def report(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository, tmp_path: Path
) -> ActionRun:
    """The workflow_run report workflow: an empty workspace holding only the artifact the
    gate's run uploaded (its output directory), for a run on the PR head that failed."""
    second = tmp_path / "second"
    shutil.copytree(workspace / "toolfuzz-gate-results", second / "results")
    run = {"head_sha": repository.head, "conclusion": "failure", "pull_requests": []}
    return act(
        venv,
        second,
        github,
        {"workflow_run": run},
        name="workflow_run",
        mode="report",
        **{"results-dir": "results"},
    )


@pytest.mark.slow
def test_report_mode_comments_from_the_results_alone(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository, tmp_path: Path
) -> None:
    first = act(venv, workspace, github, pull_request_event(repository, fork=True))
    assert first.code == 1 and github.requests == []
    github.set_pull(REPO, NUMBER, {"number": NUMBER, "head": {"sha": repository.head}})
    done = report(venv, workspace, github, repository, tmp_path)
    assert done.code == 0, done.stdout + done.stderr
    [posted] = ours(github)
    assert "hostile-accepted" in posted["body"] and "failed" in posted["body"]
    assert done.outputs["comment-url"] == posted["html_url"]
    assert done.outputs["new-counterexamples"] == "1"


@pytest.mark.slow
def test_report_mode_refuses_a_number_that_is_not_the_runs(
    venv: Path, workspace: Path, github: FakeGitHub, repository: Repository, tmp_path: Path
) -> None:
    act(venv, workspace, github, pull_request_event(repository, fork=True), baseline="none")
    github.set_pull(REPO, NUMBER, {"number": NUMBER, "head": {"sha": "c" * 40}})
    done = report(venv, workspace, github, repository, tmp_path)
    assert done.code == 0
    assert github.comments(REPO, NUMBER) == []
    assert "does not have the head" in done.stdout


@pytest.mark.slow
def test_the_ci_self_test_steps(venv: Path, github: FakeGitHub, tmp_path: Path) -> None:
    """The `uses: ./` steps of ci.yml's self-test job, with their own inputs, as the runner
    would run them (from a push to main: no pull request, nothing to comment on)."""
    root = Path(__file__).resolve().parents[2]
    workflow = yaml.safe_load((root / ".github" / "workflows" / "ci.yml").read_text())
    steps = [s for s in workflow["jobs"]["action-selftest"]["steps"] if s.get("uses") == "./"]
    assert [step["id"] for step in steps] == ["passing", "failing"]
    workspace = tmp_path / "checkout"
    for fixture in ("action_selftest", "poster_faults"):
        shutil.copytree(
            root / "tests" / "fixtures" / fixture, workspace / "tests" / "fixtures" / fixture
        )
    done = {
        step["id"]: act(venv, workspace, github, {}, name="push", **step["with"]) for step in steps
    }
    passing, failing = done["passing"], done["failing"]
    assert passing.code == 0 and passing.outputs["verdict"] == "passed", passing.stdout
    for output in ("sarif-path", "junit-path"):
        assert (workspace / passing.outputs[output]).is_file()
    assert (workspace / passing.outputs["receipts-path"] / "renderPoster.json").is_file()
    assert failing.code == 1 and failing.outputs["verdict"] == "failed"
    assert failing.outputs["new-counterexamples"] == "1"
    assert github.requests == []
