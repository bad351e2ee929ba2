"""git for the baseline: which commit is the base, and a throwaway worktree at it (edge).

git runs from an argv list (never a shell), with a timeout and an environment without the
`GIT_*` variables that could point it at another repository, index or object store.
Base resolution on a pull request: the first parent of a merge commit (what GitHub checks
out), else the merge base with `origin/<base branch>`, else the event's base sha, with a
warning. A shallow clone lacking that commit is an error saying to fetch more history.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from toolfuzz_gate.core.github_names import is_commit_sha
from toolfuzz_gate.errors import GitError

GIT_TIMEOUT_S = 120.0
MAX_GIT_OUTPUT = 1024 * 1024
_BRANCH = re.compile(r"^(?!-)(?!.*\.\.)(?!.*//)[A-Za-z0-9._/-]{1,200}(?<![./])$")
FETCH_DEPTH_HINT = (
    "the checkout is a shallow clone without the base commit: set `fetch-depth: 0` "
    "(or a depth deep enough to reach the base) on actions/checkout"
)

_Result = TypeVar("_Result")


@dataclass(frozen=True)
class Git:
    """How to run git on one repository; `safe_directory` is passed as `-c safe.directory`
    (for a checkout owned by another user, as in containers on CI)."""

    repo: Path
    safe_directory: str | None = None
    timeout_s: float = GIT_TIMEOUT_S

    def __call__(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = ["git"]
        if self.safe_directory is not None:
            argv += ["-c", f"safe.directory={self.safe_directory}"]
        argv += ["-C", str(self.repo), *args]
        try:
            done = subprocess.run(
                argv,
                env=git_environment(os.environ),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=self.timeout_s,
                check=False,
            )
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH") from None
        except subprocess.TimeoutExpired:
            raise GitError(f"`git {args[0]}` took longer than {self.timeout_s:g} s") from None
        if check and done.returncode != 0:
            raise GitError(
                f"`git {' '.join(args)[:200]}` failed in {self.repo}: "
                f"{done.stderr.strip()[-500:] or f'exit {done.returncode}'}"
            )
        return done

    def succeeds(self, *args: str) -> bool:
        return self(*args, check=False).returncode == 0

    def output(self, *args: str) -> str:
        return self(*args).stdout[:MAX_GIT_OUTPUT].strip()


def git_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without `GIT_*` (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_*, ...
    would make git act on another repository); no prompts, stable messages."""
    kept = {k: v for k, v in environ.items() if not k.startswith("GIT_")}
    kept.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    return kept


@dataclass(frozen=True)
class Base:
    """The resolved base commit, how it was found, and a warning to show (or "")."""

    sha: str
    how: str
    warning: str = ""


def resolve_base(git: Git, event: Mapping[str, Any] | None) -> Base:
    """The base commit for the checked-out HEAD (`event`: the parsed GitHub event, or None)."""
    parents = git.output("rev-list", "--parents", "-n", "1", "HEAD").split()
    if len(parents) > 2:
        return Base(_present(git, parents[1]), "first-parent")
    base = (event or {}).get("pull_request", {}) or {}
    base = base.get("base", {}) if isinstance(base, dict) else {}
    base = base if isinstance(base, dict) else {}
    branch, sha = base.get("ref"), base.get("sha")
    if isinstance(branch, str) and _BRANCH.match(branch):
        remote = f"refs/remotes/origin/{branch}"
        if git.succeeds("rev-parse", "--verify", "--quiet", f"{remote}^{{commit}}"):
            found = git("merge-base", "HEAD", remote, check=False)
            if found.returncode == 0 and found.stdout.strip():
                return Base(found.stdout.strip(), "merge-base")
    if is_commit_sha(sha):
        return Base(
            _present(git, sha),
            "event-base-sha",
            warning=(
                "HEAD is not a merge commit and no merge base with the base branch was found: "
                f"diffing against the event's base sha {sha[:12]}, which may include changes "
                "the pull request did not make"
            ),
        )
    _check_not_shallow(git)
    raise GitError(
        "cannot tell the base commit: HEAD is not a merge commit and the event names no "
        "usable base branch or sha",
        code="git.base-unresolved",
        hint="pass --baseline REF, or run on a pull_request event",
    )


def repository_root(git: Git) -> Path:
    """The top of the working tree `git.repo` is in: where a policy's relative path
    starts, so the same path can be found inside a worktree at the base."""
    return Path(git.output("rev-parse", "--show-toplevel"))


def resolve_commit(git: Git, ref: str) -> str:
    """The full sha of the commit `ref` names (a branch, tag or sha)."""
    if ref.startswith("-") or not ref or len(ref) > 256:
        raise GitError(f"{ref!r} is not a git revision", code="git.base-unresolved")
    found = git(
        "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False
    )
    if found.returncode != 0:
        _check_not_shallow(git)
        raise GitError(
            f"{ref!r} names no commit in {git.repo}",
            code="git.base-unresolved",
            hint="fetch the base branch (e.g. `git fetch origin BRANCH`) or name another ref",
        )
    return found.stdout.strip()


def _present(git: Git, sha: str) -> str:
    """`sha`, after checking the commit is in the repository."""
    if not git.succeeds("cat-file", "-e", f"{sha}^{{commit}}"):
        _check_not_shallow(git)
        raise GitError(
            f"the base commit {sha} is not in the repository {git.repo}",
            code="git.base-unresolved",
            hint="fetch it (e.g. `git fetch origin SHA`)",
        )
    return sha


def _check_not_shallow(git: Git) -> None:
    if git.output("rev-parse", "--is-shallow-repository") == "true":
        raise GitError(
            f"the base commit is not in the shallow clone {git.repo}",
            code="git.shallow-clone",
            hint=FETCH_DEPTH_HINT,
        )


@contextmanager
def temporary_worktree(git: Git, sha: str) -> Iterator[Path]:
    """A detached worktree at `sha` in a fresh temporary directory; always removed (and
    pruned from the repository's worktree list), on errors and Ctrl-C too."""
    parent = Path(tempfile.mkdtemp(prefix="toolfuzz-base-"))
    tree = parent / "tree"
    try:
        git("worktree", "add", "--detach", str(tree), sha)
        yield tree
    finally:
        git("worktree", "remove", "--force", str(tree), check=False)
        shutil.rmtree(parent, ignore_errors=True)
        git("worktree", "prune", check=False)


def baseline_receipts(
    git: Git, ref: str, run_policy_at: Callable[[Path], _Result]
) -> tuple[str, _Result]:
    """The base's own receipts: `run_policy_at(root)` runs inside a worktree at `ref`
    (the caller runs the policy file found at the same relative path under `root`).
    Returns the base sha and what it returned; the worktree is gone when this returns."""
    sha = resolve_commit(git, ref)
    with temporary_worktree(git, sha) as root:
        return sha, run_policy_at(root)
