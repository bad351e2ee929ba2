"""What the action does so that the pull request under test cannot decide its own verdict
or outlive its step (application). Docs: `docs/action.md`, "What a pull request controls".

* The rules come from the base commit's policy, read from git before anything runs
  (`core.gate.policy_trust`): the stricter of base and head.
* Before the first handler starts, the runner's file commands are copied and the
  dependency directories the base's worktree borrows are fingerprinted; once every
  handler is reaped, the file commands are put back and any change to either fails the
  run, naming the file.
* The output directory holds no symlink, before the run and after the handlers ran.
* In `replay`, the agent checks read the base commit's cassette.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.agent_gate import AgentForGate, agent_for_gate
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.policy_trust import NO_BASE_POLICY, Governed, govern
from toolfuzz_gate.core.gate.verdict import AGENT_CHECKS
from toolfuzz_gate.edges.corpus import MAX_CASES, changed_by_head
from toolfuzz_gate.edges.dependencies import (
    Fingerprint,
    changed_entries,
    dependency_directories,
    fingerprint_dependencies,
)
from toolfuzz_gate.edges.git import Git, file_at, files_at, repository_root
from toolfuzz_gate.edges.handlers.worker_process import WorkerProcess
from toolfuzz_gate.edges.policy_file import LoadedPolicy, policy_rules
from toolfuzz_gate.edges.runner_files import Kept, keep_file_commands, restore_file_commands

CASSETTE_MISS = "llm.cassette-miss"
MAX_NAMED = 5
"""Changed files named in a reason; the rest are counted."""


def governed_policy(
    loaded: LoadedPolicy, git: Git, sha: str | None
) -> tuple[LoadedPolicy, list[str], tuple[str | None, ...]]:
    """`loaded` under the base commit's rules (`sha`; None: no base), the lines of the
    comment's "policy changed" block, and the variables either side names as the model's
    key (`llm.api_key_env`)."""
    base = None
    if sha is not None:
        relative, raw = _at_base(git, sha, Path(loaded.file))
        base = None if raw is None else policy_rules(raw, f"{relative} at {sha[:12]}")
    governed: Governed = govern(loaded.policy, base)
    lines = [NO_BASE_POLICY] if governed.base_missing and sha is not None else []
    lines += governed.weakenings
    names = tuple(side.llm.api_key_env for side in (base, loaded.policy) if side and side.llm)
    loaded = replace(loaded, policy=governed.policy)
    if sha is not None and base is not None and base.corpus is not None:
        loaded = _with_base_corpus(loaded, git, sha, base.corpus, lines)
    return loaded, lines, names


def _with_base_corpus(
    loaded: LoadedPolicy, git: Git, sha: str, written: str, lines: list[str]
) -> LoadedPolicy:
    """`loaded` replaying the base's regression cases as the base has them (a pull request
    that deletes or rewrites one, or drops `corpus:`, does not drop its case), each change
    the head made to them added to `lines`."""
    folder = (loaded.root / written).resolve()
    top = repository_root(git).resolve()
    if not folder.is_relative_to(loaded.root.resolve()) or not folder.is_relative_to(top):
        return loaded  # the base's own policy would be refused for it
    files = files_at(git, sha, folder.relative_to(top).as_posix(), MAX_CASES)
    corpus = loaded.policy.corpus or str(folder)
    lines += changed_by_head(Path(corpus), files)
    policy = replace(loaded.policy, corpus=corpus)
    return replace(loaded, policy=policy, base_corpus=tuple(sorted(files.items())))


def _at_base(git: Git, sha: str, path: Path) -> tuple[str, bytes | None]:
    """`path` relative to the repository's top, and its bytes at commit `sha` (None: the
    commit has no such file)."""
    relative = path.resolve().relative_to(repository_root(git).resolve()).as_posix()
    return relative, file_at(git, sha, relative)


@dataclass(frozen=True)
class RunGuard:
    """What the handlers must leave as it was: the file commands, the lent dependencies."""

    workspace: Path
    kept: tuple[Kept, ...]
    lent: Fingerprint
    lent_names: tuple[str, ...]

    def release(self) -> list[str]:
        """Once every handler is stopped: the file commands put back; a failing reason for
        each thing a handler changed. Whatever a handler left running (a daemon it
        double-forked: the gate is its subreaper) is ended first."""
        WorkerProcess.kill_all()
        reasons = restore_file_commands(self.kept)
        changed = changed_entries(self.lent, fingerprint_dependencies(self.workspace))
        if changed:
            named = ", ".join(changed[:MAX_NAMED])
            more = f" and {len(changed) - MAX_NAMED} more" if len(changed) > MAX_NAMED else ""
            reasons.append(
                f"a handler changed the installed dependencies the base borrows: {named}{more}; "
                "the base's results cannot be trusted"
            )
        return reasons


def guard_run(environ: Mapping[str, str], workspace: Path) -> RunGuard:
    """Before the first handler starts."""
    names = tuple(os.path.relpath(found, workspace) for found in dependency_directories(workspace))
    return RunGuard(
        workspace, keep_file_commands(environ), fingerprint_dependencies(workspace), names
    )


def agent_on_trusted_cassette(
    loaded: LoadedPolicy,
    written: Sequence[Written],
    directory: Path,
    out: TextIO,
    environ: Mapping[str, str],
    git: Git,
    sha: str | None,
) -> tuple[AgentForGate, list[str], list[str]]:
    """Agent mode for the verdict (when `fail_on` asks for it): what it gave, the lines of
    the comment's block and failing reasons. A cassette is evidence the pull request can
    edit, so in `replay` the verdict reads the base commit's; a head cassette that differs
    is named, and when the base's cannot answer (a changed prompt, a new tool) the agent
    checks run on the head's as advisory: never passing."""
    llm = loaded.policy.llm
    asked = any(name in AGENT_CHECKS for name in loaded.policy.gate.fail_on)
    if not asked or sha is None or llm is None or llm.mode != "replay" or llm.cassette is None:
        return agent_for_gate(loaded, written, directory, out, environ), [], []
    head_file = Path(llm.cassette)
    relative, base_bytes = _at_base(git, sha, head_file)
    head_bytes = head_file.read_bytes() if head_file.is_file() else None
    if base_bytes is not None and base_bytes == head_bytes:
        return agent_for_gate(loaded, written, directory, out, environ), [], []
    if base_bytes is not None:
        with tempfile.TemporaryDirectory(prefix="toolfuzz-cassette-") as scratch:
            trusted = Path(scratch) / "cassette.json"
            trusted.write_bytes(base_bytes)
            on_base = replace(loaded.policy, llm=replace(llm, cassette=str(trusted)))
            tried = agent_for_gate(
                replace(loaded, policy=on_base), written, directory, out, environ
            )
        if not (tried.unavailable or "").startswith(CASSETTE_MISS):
            said = f"the cassette {relative} differs from the base's: the verdict read the base's"
            return tried, [said], []
    tried = agent_for_gate(loaded, written, directory, out, environ)
    whose = "differs from the base's, which cannot answer" if base_bytes else "is not on the base"
    advisory = (
        f"agent checks judged on this pull request's cassette {relative}, which {whose}: "
        "advisory, never passing; record the cassette on the default branch"
    )
    return tried, [f"the cassette {relative} {whose}"], [advisory]
