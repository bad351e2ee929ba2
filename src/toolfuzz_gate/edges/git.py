"""git for the baseline: which commit is the base, and a throwaway worktree at it (edge).

git runs from an argv list (never a shell), with a timeout and an allowlisted environment
(no `GIT_*` variable that could point it at another repository, index or object store, and
none of the gate's secrets). The handlers ran in this repository before the baseline's
checkout, so its configuration is theirs to write: every call turns off what lets
repository configuration run a program (hooks, `core.fsmonitor`, `core.sshCommand`, the
filter drivers a checkout would run).
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

from toolfuzz_gate.core.github.names import is_commit_sha
from toolfuzz_gate.errors import GitError

GIT_TIMEOUT_S = 120.0
MAX_GIT_OUTPUT = 1024 * 1024
_BRANCH = re.compile(r"^(?!-)(?!.*\.\.)(?!.*//)[A-Za-z0-9._/-]{1,200}(?<![./])$")
FETCH_DEPTH_HINT = (
    "the checkout is a shallow clone without the base commit: set `fetch-depth: 0` "
    "(or a depth deep enough to reach the base) on actions/checkout"
)

HARDENING = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.sshCommand=ssh",
    "protocol.allow=never",
)
"""`-c` settings on every call: no hook, fsmonitor, ssh wrapper or transport named by the
repository's configuration runs."""
COMMANDS = frozenset(
    {"rev-list", "rev-parse", "merge-base", "cat-file", "ls-tree", "worktree", "config"}
)
"""The only subcommands the gate runs: none of them runs `diff.external`, a textconv, a
pager, an editor or a credential helper."""
_FILTERS = ("config", "--null", "--get-regexp", r"^filter\..*\.(clean|smudge|process|required)$")
_GIT_ENVIRONMENT = frozenset({"PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ"})

_Result = TypeVar("_Result")


@dataclass(frozen=True)
class Git:
    """How to run git on one repository; `safe_directory` is passed as `-c safe.directory`
    (for a checkout owned by another user, as in containers on CI)."""

    repo: Path
    safe_directory: str | None = None
    timeout_s: float = GIT_TIMEOUT_S

    def __call__(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        if not args or args[0] not in COMMANDS:
            raise ValueError(f"the gate runs no `git {args[:1]}`")
        argv = self._argv()
        if args[:1] == ("worktree",):  # a checkout: no filter driver may run
            listed = self._run([*argv, "-C", str(self.repo), *_FILTERS], "config")
            argv += _filter_overrides(listed)
        done = self._run([*argv, "-C", str(self.repo), *args], args[0])
        return self._checked(done, args, check)

    def _argv(self) -> list[str]:
        argv = ["git"]
        if self.safe_directory is not None:
            argv += ["-c", f"safe.directory={self.safe_directory}"]
        for setting in HARDENING:
            argv += ["-c", setting]
        return argv

    def _run(self, argv: list[str], command: str) -> subprocess.CompletedProcess[str]:
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
            raise GitError(f"`git {command}` took longer than {self.timeout_s:g} s") from None
        return done

    def _checked(
        self, done: subprocess.CompletedProcess[str], args: tuple[str, ...], check: bool
    ) -> subprocess.CompletedProcess[str]:
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
    """The part of `environ` git needs (PATH, HOME, TMPDIR, locale): never `GIT_*` (GIT_DIR,
    GIT_WORK_TREE, GIT_CONFIG_*, ... would make git act on another repository or run another
    program) nor the gate's secrets, which a hook or filter would see; no prompts, stable
    messages."""
    kept = {k: v for k, v in environ.items() if k in _GIT_ENVIRONMENT}
    kept.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    return kept


def _filter_overrides(listed: subprocess.CompletedProcess[str]) -> list[str]:
    """`-c` settings that empty every configured filter driver (an empty command is no
    filter) and make none required; `listed` is `git config --get-regexp` of them."""
    names = set()
    for entry in listed.stdout.split("\0") if listed.returncode == 0 else []:
        key = entry.split("\n", 1)[0]
        for suffix in (".clean", ".smudge", ".process", ".required"):
            if key.startswith("filter.") and key.endswith(suffix):
                names.add(key[len("filter.") : -len(suffix)])
    overrides: list[str] = []
    for name in sorted(names):
        for setting in ("clean=", "smudge=", "process=", "required=false"):
            overrides += ["-c", f"filter.{name}.{setting}"]
    return overrides


@dataclass(frozen=True)
class Base:
    """The resolved base commit, how it was found, and a warning to show (or "")."""

    sha: str
    how: str
    warning: str = ""


def pull_request_base(event: Mapping[str, Any] | None) -> tuple[object, object]:
    """The (branch, sha) a raw GitHub event names as its pull request's base (each
    unchecked: `resolve_base` checks them)."""
    base = (event or {}).get("pull_request", {}) or {}
    base = base.get("base", {}) if isinstance(base, dict) else {}
    base = base if isinstance(base, dict) else {}
    return base.get("ref"), base.get("sha")


def resolve_base(git: Git, branch: object = None, sha: object = None) -> Base:
    """The base commit for the checked-out HEAD: its first parent when HEAD is a merge
    commit, else the merge base with the pull request's base `branch`, else its base
    `sha` (a pull request's, from the event; None: none)."""
    parents = git.output("rev-list", "--parents", "-n", "1", "HEAD").split()
    if len(parents) > 2:
        return Base(_present(git, parents[1]), "first-parent")
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
    # readable, never writable, by the unprivileged user handlers may run as (`confine`)
    parent.chmod(0o755)
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


def files_at(git: Git, sha: str, directory: str, most: int) -> dict[str, bytes]:
    """Each file below `directory` (relative to the repository root) at commit `sha`, by
    its path relative to `directory`; none when the commit has no such directory; more than
    `most` files is a `GitError`."""
    top = directory.strip("/")
    listed = git("ls-tree", "-r", "-z", "--name-only", sha, "--", f"{top}/").stdout
    names = [name for name in listed.split("\0") if name.startswith(f"{top}/")]
    if len(names) > most:
        raise GitError(f"{directory} at {sha[:12]} holds more than {most} files")
    found: dict[str, bytes] = {}
    for name in names:
        data = file_at(git, sha, name)
        if data is not None:
            found[name[len(top) + 1 :]] = data
    return found


def file_at(git: Git, sha: str, path: str) -> bytes | None:
    """The bytes of `path` (relative to the repository root) at commit `sha`, or None when
    the commit has no such file (read as text, so for UTF-8 files: policies, cassettes)."""
    spec = f"{sha}:{path}"
    if not git.succeeds("cat-file", "-e", spec):
        return None
    return git("cat-file", "blob", spec).stdout.encode("utf-8")
