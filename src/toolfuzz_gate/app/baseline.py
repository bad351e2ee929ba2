"""A policy run's base (`--baseline REF | --baseline-dir DIR`): its receipts, and the diff.

`--baseline REF` runs the base's own policy (the file at the same path in the repository)
at REF, in a temporary `git worktree` that is always removed, with this same engine.
`--baseline auto` finds REF the way a pull request needs it (`edges.git.resolve_base`,
reading the event `GITHUB_EVENT_PATH` names). `--baseline-dir DIR` reads stored receipts.
A base without the policy file (the pull request that adds the gate) has no tools.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TextIO, TypeVar

from toolfuzz_gate.app.jobs import Jobs
from toolfuzz_gate.app.policy_plan import override_values, receipt_set
from toolfuzz_gate.app.policy_replay import reproduced_on, with_head_sample
from toolfuzz_gate.app.policy_run import policy_handlers, run_policy
from toolfuzz_gate.app.progress import Progress, on_actions, say
from toolfuzz_gate.app.requests import BaselineRequest, PolicyRunRequest, RunOverrides
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.lanes import side_by_side
from toolfuzz_gate.core.gate.receipt_diff import (
    ReceiptSet,
    Reproduced,
    Revision,
    diff_sets,
    unmatched,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.dependencies import lend_dependencies
from toolfuzz_gate.edges.files import load_json
from toolfuzz_gate.edges.git import (
    Git,
    baseline_receipts,
    pull_request_base,
    repository_root,
    resolve_base,
)
from toolfuzz_gate.edges.policy_file import LoadedPolicy, load_policy
from toolfuzz_gate.edges.receipts import load_receipts

AUTO = "auto"
HeadReceipts = ReceiptSet | Callable[[], ReceiptSet]
"""The head's receipts, or how to wait for them while the head still runs."""
_Diff = TypeVar("_Diff")
BASE_RECEIPTS = "base"
"""The subdirectory of the output directory that keeps the base's receipts."""


def baseline_diff(
    request: BaselineRequest,
    loaded: LoadedPolicy,
    head: HeadReceipts,
    replay: str,
    out: TextIO,
    jobs: Jobs | None = None,
) -> JSONObject:
    """The diff against the base the request names."""
    run = request.run
    if request.directory is not None:
        overrides = override_values(run.overrides)
        chosen = _chosen(load_receipts(request.directory), run.overrides)
        stored = stored_baseline_diff(request.directory, wait_head(head), loaded, overrides, chosen)
        return with_head_sample(stored, loaded, overrides)
    assert request.ref is not None, "a baseline names a ref or a directory"
    git = Git(loaded.root)
    ref = request.ref
    if ref == AUTO:
        found = resolve_base(git, *pull_request_base(_event(run.environ)))
        if found.warning:
            say(out, f"warning: {found.warning}")
        ref = found.sha
    # With --diagnostics the base's receipts (and their durations) are kept, as the action
    # keeps them, so both sides' timings can be read.
    keep = run.out / BASE_RECEIPTS if run.diagnostics else None
    diffed = rerun_baseline_diff(
        run, loaded, head, replay, out, git, ref, label=request.ref, keep=keep, jobs=jobs
    )
    return with_head_sample(diffed, loaded, override_values(run.overrides))


def beside_head(
    head: Callable[[], list[Written]],
    diff: Callable[[HeadReceipts], _Diff],
    together: bool,
) -> tuple[list[Written], _Diff]:
    """The head's run, and `diff` against the base given the head's receipts when they are
    ready; with `together`, the base runs in a thread while the head runs (`diff` waits
    for the head's receipts only where it needs them: to replay, and to diff)."""
    if not together:
        written = head()
        receipts = receipt_set(written)
        return written, diff(receipts)
    head_done: Future[ReceiptSet] = Future()
    diffed: Future[_Diff] = Future()

    def run_base() -> None:
        try:
            diffed.set_result(diff(head_done.result))
        except BaseException as error:
            diffed.set_exception(error)

    # A daemon: an interrupted head does not wait for the base to finish.
    threading.Thread(target=run_base, name="toolfuzz-base", daemon=True).start()
    try:
        written = head()
    except BaseException as error:
        head_done.set_exception(error)
        raise
    head_done.set_result(receipt_set(written))
    return written, diffed.result()


def wait_head(head: HeadReceipts) -> ReceiptSet:
    """The head's receipts, once the head has run."""
    return head if isinstance(head, ReceiptSet) else head()


def rerun_baseline_diff(
    run: PolicyRunRequest,
    loaded: LoadedPolicy,
    head: HeadReceipts,
    replay: str,
    out: TextIO,
    git: Git,
    ref: str,
    *,
    label: str,
    keep: Path | None = None,
    jobs: Jobs | None = None,
) -> JSONObject:
    """The diff of `head` against the base's own policy run at `ref` in a worktree; the
    base receipts go into `keep` when given (the action stores them for `mode: report`),
    else into a temporary directory. `head` may be a wait for the head's receipts (the
    base then runs beside the head, unless its own policy says it may not:
    `core.gate.lanes.side_by_side`)."""
    top = repository_root(git).resolve()
    relative = Path(loaded.file).resolve().relative_to(top)
    inner = loaded.root.resolve()
    inner = inner.relative_to(top) if inner.is_relative_to(top) else Path()
    overrides = override_values(run.overrides)

    def base_policy(policy: Path, worktree: Path) -> LoadedPolicy:
        """The base's policy with everything it names read in the base's worktree: the
        root at the same place in the repository as the head's, the head's paths mirrored."""
        return load_policy(policy, worktree / inner, mirrors=loaded.root)

    def run_base(worktree: Path) -> tuple[ReceiptSet, frozenset[tuple[str, str]]]:
        """The base's receipts, and which of head's unmatched counterexamples it fails."""
        policy = worktree / relative
        if not policy.is_file():
            say(out, f"note: the base has no {relative}; every tool is new")
            return ReceiptSet({}), frozenset()
        lent = lend_dependencies(top, worktree)
        if lent:
            shown = ", ".join(lent[:3]) + (f" and {len(lent) - 3} more" if len(lent) > 3 else "")
            say(out, f"note: the base uses the head's installed dependencies: {shown}")
        base_loaded = base_policy(policy, worktree)
        if not side_by_side(policy_handlers(base_loaded)):
            wait_head(head)  # its declared state or servers would meet the head's
        parallel = jobs is not None and jobs.parallel
        told = Progress(out, "base", on_actions(run.environ), parallel)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            written = receipt_set(
                run_policy(base_loaded, run, replay, keep, progress=told, jobs=jobs)
            )
        else:
            with tempfile.TemporaryDirectory(prefix="toolfuzz-base-") as directory:
                written = receipt_set(
                    run_policy(base_loaded, run, replay, Path(directory), progress=told, jobs=jobs)
                )
        head_set = wait_head(head)
        wanted = unmatched(head_set, written)
        return written, reproduced_on(base_loaded, overrides, head_set, wanted)

    shared = sum(
        1
        for tool in loaded.policy.tools
        if not handler_kind(tool.handler).gate_starts(tool.handler)
    )
    if shared:
        say(
            out,
            f"warning: {shared} http tool(s) have no `server:`, so both sides call the same "
            "running server and the base side tests the head's code; give `server:` to "
            "start each side's own",
        )
    sha, (base, on_base) = baseline_receipts(git, ref, run_base)
    head_set = wait_head(head)
    on_head = reproduced_on(loaded, overrides, base, unmatched(base, head_set))
    head_sha = git.output("rev-parse", "HEAD").strip() or None
    return diff_sets(
        base,
        head_set,
        base_ref=Revision(label, sha),
        head_ref=Revision("HEAD", head_sha),
        reproduced=Reproduced(on_base, on_head),
    )


def _chosen(base: ReceiptSet, overrides: RunOverrides) -> ReceiptSet:
    """The stored receipts of the tools `--tool` / `--exclude-tool` leave in the run: the
    others were not run on head, which does not make them removed."""
    if not overrides.tools and not overrides.exclude_tools:
        return base

    def kept(receipt: Receipt) -> bool:
        name = receipt.tool
        picked = name in overrides.tools if overrides.tools else True
        return picked and name not in overrides.exclude_tools

    keys = [key for key, receipt in base.receipts.items() if kept(receipt)]
    return ReceiptSet(
        {key: base.receipts[key] for key in keys},
        {key: base.files[key] for key in keys if key in base.files},
    )


def stored_baseline_diff(
    directory: Path,
    head: ReceiptSet,
    loaded: LoadedPolicy,
    overrides: Mapping[str, Any],
    base: ReceiptSet | None = None,
) -> JSONObject:
    """The diff of `head` against the receipts stored in `directory` (`--baseline-dir`;
    `base`: those of them to compare, default all): the base's handlers are not at hand,
    so only "fixed" is checked by replay on head."""
    base = load_receipts(directory) if base is None else base
    on_head = reproduced_on(loaded, overrides, base, unmatched(base, head))
    return diff_sets(
        base,
        head,
        base_ref=Revision(str(directory), None),
        reproduced=Reproduced(on_head=on_head),
    )


def _event(environ: Mapping[str, str]) -> Any:
    path = environ.get("GITHUB_EVENT_PATH")
    return load_json(Path(path), what="GitHub event") if path else None
