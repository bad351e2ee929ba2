"""`edges.git` against real git repositories in temporary directories: base resolution
(first parent, merge base, the event's sha with a warning), the shallow-clone error, and
worktrees that are always removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.receipts import typed
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet
from toolfuzz_gate.edges.git import (
    FETCH_DEPTH_HINT,
    Git,
    baseline_receipts,
    files_at,
    git_environment,
    pull_request_base,
    repository_root,
    resolve_base,
    resolve_commit,
    temporary_worktree,
)
from toolfuzz_gate.errors import GitError


def sh(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        env=git_environment({"PATH": "/usr/bin:/bin", "HOME": str(repo.parent)}),
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text, encoding="utf-8")
    sh(repo, "add", name)
    sh(repo, "commit", "-q", "-m", f"{name}: {text}")
    return sh(repo, "rev-parse", "HEAD")


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: c1 -> c3; feature: c1 -> c2 (checked out). origin/main points at c3."""
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "init", "-q", "-b", "main")
    sh(repo, "config", "user.name", "Test")
    sh(repo, "config", "user.email", "test@example.invalid")
    shas = {"c1": commit(repo, "a.txt", "one")}
    sh(repo, "checkout", "-q", "-b", "feature")
    shas["c2"] = commit(repo, "b.txt", "two")
    sh(repo, "checkout", "-q", "main")
    shas["c3"] = commit(repo, "a.txt", "three")
    sh(repo, "update-ref", "refs/remotes/origin/main", shas["c3"])
    sh(repo, "checkout", "-q", "feature")
    return repo, shas


def event(ref: str, sha: str) -> dict[str, object]:
    return {"pull_request": {"base": {"ref": ref, "sha": sha}}}


def merge_commit(repo: Path) -> str:
    """What GitHub checks out for a pull request: main's tip merged with the branch."""
    sh(repo, "checkout", "-q", "--detach", "main")
    sh(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    return sh(repo, "rev-parse", "HEAD")


def test_on_a_merge_commit_the_base_is_its_first_parent(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, shas = history
    merge_commit(repo)
    # The event's sha is deliberately another commit: the merge commit's parent wins.
    base = resolve_base(Git(repo), *pull_request_base(event("main", shas["c1"])))
    assert (base.sha, base.how, base.warning) == (shas["c3"], "first-parent", "")


def test_off_a_merge_commit_the_base_is_the_merge_base_with_the_base_branch(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, shas = history
    base = resolve_base(Git(repo), *pull_request_base(event("main", shas["c3"])))
    assert (base.sha, base.how, base.warning) == (shas["c1"], "merge-base", "")


def test_without_the_base_branch_the_events_sha_is_used_with_a_warning(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, shas = history
    base = resolve_base(Git(repo), *pull_request_base(event("release", shas["c3"])))
    assert (base.sha, base.how) == (shas["c3"], "event-base-sha")
    assert "event's base sha" in base.warning and shas["c3"][:12] in base.warning


def test_a_branch_name_that_could_be_an_option_is_not_passed_to_git(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, shas = history
    base = resolve_base(Git(repo), *pull_request_base(event("--output=/tmp/x", shas["c3"])))
    assert base.how == "event-base-sha"


def test_no_merge_commit_and_no_event_is_an_error(history: tuple[Path, dict[str, str]]) -> None:
    repo, _ = history
    with pytest.raises(GitError) as raised:
        resolve_base(Git(repo), None)
    assert raised.value.code == "git.base-unresolved"
    assert "--baseline" in raised.value.hint


def test_an_event_sha_missing_from_a_full_clone_says_to_fetch_it(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, _ = history
    with pytest.raises(GitError) as raised:
        resolve_base(Git(repo), *pull_request_base(event("release", "f" * 40)))
    assert raised.value.code == "git.base-unresolved"
    assert "f" * 40 in raised.value.message


@pytest.fixture
def shallow(history: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    repo, shas = history
    merge_commit(repo)
    sh(repo, "branch", "pr")
    sh(repo, "checkout", "-q", "pr")
    clone = tmp_path / "shallow"
    sh(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    return clone, shas


def test_a_shallow_clone_without_the_base_says_to_set_fetch_depth(
    shallow: tuple[Path, dict[str, str]],
) -> None:
    clone, shas = shallow
    assert sh(clone, "rev-parse", "--is-shallow-repository") == "true"
    with pytest.raises(GitError) as raised:
        resolve_base(Git(clone), *pull_request_base(event("main", shas["c3"])))
    assert raised.value.code == "git.shallow-clone"
    assert raised.value.hint == FETCH_DEPTH_HINT
    assert "fetch-depth: 0" in raised.value.render()
    with pytest.raises(GitError) as named:
        resolve_commit(Git(clone), shas["c1"])
    assert named.value.code == "git.shallow-clone"


def test_the_repository_root_is_found_from_a_subdirectory(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, _ = history
    (repo / "sub").mkdir()
    assert repository_root(Git(repo / "sub")) == repo.resolve()


def test_a_ref_resolves_to_its_commit(history: tuple[Path, dict[str, str]]) -> None:
    repo, shas = history
    assert resolve_commit(Git(repo), "main") == shas["c3"]
    assert resolve_commit(Git(repo), shas["c2"][:10]) == shas["c2"]
    for bad in ("-h", "no-such-branch"):
        with pytest.raises(GitError) as raised:
            resolve_commit(Git(repo), bad)
        assert raised.value.code == "git.base-unresolved"


def test_git_variables_that_redirect_the_repository_are_ignored(
    history: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, shas = history
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "init", "-q")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / "index"))
    assert Git(repo).output("rev-parse", "HEAD") == shas["c2"]
    kept = git_environment({"GIT_DIR": "x", "GIT_OBJECT_DIRECTORY": "y", "PATH": "/bin"})
    assert kept == {"PATH": "/bin", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


def test_safe_directory_is_passed_on_the_command_line(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, _ = history
    git = Git(repo, safe_directory=str(repo))
    assert str(repo) in git.output("config", "--get-all", "safe.directory").splitlines()
    assert not Git(repo).succeeds("config", "--local", "--get-all", "safe.directory")


def _worktrees(repo: Path) -> list[str]:
    listed = sh(repo, "worktree", "list", "--porcelain").splitlines()
    return [line.split(" ", 1)[1] for line in listed if line.startswith("worktree ")]


def test_a_temporary_worktree_holds_the_commit_and_is_removed(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, shas = history
    with temporary_worktree(Git(repo), shas["c3"]) as root:
        assert (root / "a.txt").read_text(encoding="utf-8") == "three"
        assert not (root / "b.txt").exists()
        assert str(root) in _worktrees(repo)
        (root / "scratch.json").write_text("{}", encoding="utf-8")  # untracked: still removed
    assert not root.exists() and not root.parent.exists()
    assert _worktrees(repo) == [str(repo)]
    assert sh(repo, "rev-parse", "HEAD") == shas["c2"], "the checkout itself is untouched"


@pytest.mark.parametrize("raised", [RuntimeError("boom"), KeyboardInterrupt()])
def test_the_worktree_is_removed_when_the_caller_fails(
    history: tuple[Path, dict[str, str]], raised: BaseException
) -> None:
    repo, _ = history
    seen: list[Path] = []

    def run_policy_at(root: Path) -> ReceiptSet:
        seen.append(root)
        assert (root / "a.txt").read_text(encoding="utf-8") == "three"
        raise raised

    with pytest.raises(type(raised)):
        baseline_receipts(Git(repo), "main", run_policy_at)
    assert seen and not seen[0].exists() and not seen[0].parent.exists()
    assert _worktrees(repo) == [str(repo)]


def test_baseline_receipts_runs_the_callback_at_the_base(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, shas = history
    found = ReceiptSet({"t": typed({"tool": "t"})}, {"t": "t.json"})
    roots: list[Path] = []

    def run_policy_at(root: Path) -> ReceiptSet:
        roots.append(root)
        assert (root / "a.txt").read_text(encoding="utf-8") == "three"
        return found

    assert baseline_receipts(Git(repo), "main", run_policy_at) == (shas["c3"], found)
    assert not roots[0].exists()
    assert _worktrees(repo) == [str(repo)]


def test_a_worktree_at_a_missing_commit_is_an_error_and_leaves_nothing(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, _ = history
    with pytest.raises(GitError), temporary_worktree(Git(repo), "e" * 40):
        pass
    assert _worktrees(repo) == [str(repo)]


WORKTREE_HOLDER = """
import sys, time
from pathlib import Path
from toolfuzz_gate.cli import interrupt_on_terminate
from toolfuzz_gate.edges.git import Git, temporary_worktree

interrupt_on_terminate()  # what the console script's main() does first

with temporary_worktree(Git(Path(sys.argv[1])), sys.argv[2]) as root:
    print(root, flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_in_a_real_process_removes_the_worktree(
    history: tuple[Path, dict[str, str]], stop: signal.Signals
) -> None:
    repo, shas = history
    holder = subprocess.Popen(
        [sys.executable, "-c", WORKTREE_HOLDER, str(repo), shas["c3"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert holder.stdout is not None
        root = Path(holder.stdout.readline().strip())
        assert (root / "a.txt").read_text(encoding="utf-8") == "three"
        assert str(root) in _worktrees(repo)
        holder.send_signal(stop)
        _, stderr = holder.communicate(timeout=30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    # the holder lets the exception escape: its traceback names what unwound the worktree
    unwound_by = "KeyboardInterrupt" if stop is signal.SIGINT else "Terminated"
    assert unwound_by in stderr
    assert not root.exists() and not root.parent.exists()
    assert _worktrees(repo) == [str(repo)]


def _plant(repo: Path, spy: Path) -> list[Path]:
    """What a handler running in the checkout can plant in its `.git` so that the gate's
    next git command runs it: a hook, an fsmonitor, a filter driver on every file. Each
    program appends its environment to a file of its own; returns those files."""
    logs = [spy / f"{name}.log" for name in ("hook", "fsmonitor", "smudge", "clean")]
    spy.mkdir()
    for log in logs:
        program = spy / log.stem
        program.write_text(f"#!/bin/sh\nenv >> {log}\ncat\n", encoding="utf-8")
        program.chmod(0o755)
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-checkout", "reference-transaction", "post-index-change"):
        (hooks / hook).write_text((spy / "hook").read_text(encoding="utf-8"), encoding="utf-8")
        (hooks / hook).chmod(0o755)
    elsewhere = spy / "hooks"  # and hooks named by the configuration
    elsewhere.mkdir()
    (elsewhere / "post-checkout").write_text((spy / "hook").read_text(encoding="utf-8"))
    (elsewhere / "post-checkout").chmod(0o755)
    sh(repo, "config", "core.hooksPath", str(elsewhere))
    sh(repo, "config", "core.fsmonitor", str(spy / "fsmonitor"))
    sh(repo, "config", "filter.a.b.smudge", str(spy / "smudge"))  # a dotted driver name
    sh(repo, "config", "filter.spy.smudge", str(spy / "smudge"))
    sh(repo, "config", "filter.spy.clean", str(spy / "clean"))
    sh(repo, "config", "filter.spy.required", "true")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text(
        "* filter=spy\n*.txt filter=a.b\n", encoding="utf-8"
    )
    return logs


def test_what_a_handler_plants_in_the_repository_never_runs(
    history: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: hooks, fsmonitor and filter drivers a handler wrote into `.git` would run
    with the gate's full environment (its token) when the baseline checks out the base."""
    repo, shas = history
    logs = _plant(repo, tmp_path / "spy")
    monkeypatch.setenv("INPUT_GITHUB-TOKEN", "ghs_plantedHookWouldSeeThis")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "runtime-secret")
    with temporary_worktree(Git(repo), shas["c3"]) as root:
        assert (root / "a.txt").read_text(encoding="utf-8") == "three"
    assert [log.name for log in logs if log.exists()] == []


def test_the_git_environment_keeps_no_secret() -> None:
    environ = {
        "PATH": "/bin",
        "HOME": "/home/x",
        "INPUT_GITHUB-TOKEN": "t",
        "GITHUB_TOKEN": "t",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "t",
        "LD_PRELOAD": "/tmp/evil.so",
    }
    assert git_environment(environ) == {
        "PATH": "/bin",
        "HOME": "/home/x",
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
    }


def test_the_gate_runs_only_the_git_commands_it_needs(
    history: tuple[Path, dict[str, str]],
) -> None:
    """`diff`, `log`, `show` and the like can run an external diff, a textconv or a pager
    named by the repository's configuration: the Git edge has no way to run them."""
    repo, _ = history
    for command in ("diff", "log", "show", "fetch", "-c", ""):
        with pytest.raises(ValueError):
            Git(repo)(command)


def test_a_folder_at_a_commit_is_read_file_by_file_and_bounded(
    history: tuple[Path, dict[str, str]],
) -> None:
    repo, _ = history
    (repo / "corpus" / "tool").mkdir(parents=True)
    (repo / "corpus" / "tool" / "a.json").write_text("{}")
    (repo / "corpus-not").mkdir()
    (repo / "corpus-not" / "b.json").write_text("[]")  # a sibling whose name begins alike
    sh(repo, "add", "corpus", "corpus-not")
    sh(repo, "commit", "-q", "-m", "corpus")
    sha = sh(repo, "rev-parse", "HEAD")
    (repo / "corpus" / "tool" / "a.json").unlink()  # the checkout no longer has it
    git = Git(repo)
    assert files_at(git, sha, "corpus", most=10) == {"tool/a.json": b"{}"}
    assert files_at(git, sha, "nowhere", most=10) == {}
    with pytest.raises(GitError, match="more than 0 files"):
        files_at(git, sha, "corpus", most=0)
