"""The one gate pipeline (`run_gate`): the regression corpus replayed, the head's tools
fuzzed, the base's diff beside them, then the verdict and everything written from it
(`app.gate_results`). `run --policy` (with or without a base), `merge` and the Action call it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from toolfuzz_gate.app.agent_gate import AgentForGate, stored_base_agent
from toolfuzz_gate.app.baseline import HeadReceipts, baseline_diff, beside_head
from toolfuzz_gate.app.gate_results import GateOutcome, gate
from toolfuzz_gate.app.jobs import Jobs, default_jobs
from toolfuzz_gate.app.model_key import keep_key_from_handlers
from toolfuzz_gate.app.policy_plan import override_values
from toolfuzz_gate.app.policy_replay import replay_corpus
from toolfuzz_gate.app.policy_run import policy_handlers, run_policy
from toolfuzz_gate.app.progress import Progress, on_actions
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import BaselineRequest, PolicyRunRequest
from toolfuzz_gate.app.tool_setup import KeptListings
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.lanes import side_by_side
from toolfuzz_gate.core.gate.policy_trust import Trust
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.policy_file import LoadedPolicy, load_policy
from toolfuzz_gate.exitcodes import ExitCode

BaseDiff = Callable[[HeadReceipts, str, Jobs], "JSONObject | None"]
"""The diff against the base, given the head's receipts (or how to wait for them), the
replay command and the run's jobs; None: no base after all."""
AfterHead = Callable[[list[Written]], tuple[AgentForGate | None, Trust | None]]
"""What the caller does once both sides ran, before the verdict: agent mode's receipts and
what the pull request tried against the gate (the Action's)."""


def run_gate(
    loaded: LoadedPolicy,
    run: PolicyRunRequest,
    out: TextIO,
    *,
    base: BaseDiff | None = None,
    beside: bool = False,
    head: Callable[[], list[Written]] | None = None,
    after: AfterHead | None = None,
    key: str = "default",
    listings: KeptListings | None = None,
) -> GateOutcome:
    """Gate `run` on `loaded`: `head` gives the head's receipts when they are written
        already (`merge`'s), else the policy's tools are fuzzed; `base` diffs them against a
        base, beside the head when `beside` and both sides' handlers allow it
        (`core.gate.lanes.side_by_side`); `key` is the PR comment's key; `listings`: the head's
    servers as a front door listed them (`app.fuzz`), still running for its tools to take."""
    replay = build_replay_command(run.argv)
    corpus = replay_corpus(loaded, override_values(run.overrides), out)
    jobs = Jobs(run.jobs or default_jobs())
    progress = Progress(out, grouped=on_actions(run.environ), concurrent=jobs.parallel)

    def fuzz_head() -> list[Written]:
        return run_policy(
            loaded, run, replay, run.out, progress=progress, jobs=jobs, listings=listings
        )

    run_head = head or fuzz_head
    if base is None:
        written, diff = run_head(), None
    else:
        together = beside and jobs.parallel and side_by_side(policy_handlers(loaded))
        written, diff = beside_head(
            run_head, lambda receipts: base(receipts, replay, jobs), together
        )
    agent, trust = after(written) if after is not None else (None, None)
    return gate(
        loaded, written, diff, run.out, out, corpus, key, agent=agent, trust=trust,
        environ=run.environ,
    )  # fmt: skip


def gate_policy(request: PolicyRunRequest, out: TextIO) -> ExitCode:
    """A policy run gated on its own findings."""
    loaded = load_policy(request.policy, request.root)
    keep_key_from_handlers(loaded, request.environ)  # before the first handler starts
    return run_gate(loaded, request, out).exit_code


def gate_policy_on_baseline(request: BaselineRequest, out: TextIO) -> ExitCode:
    """A policy run gated on its diff against the base."""
    run = request.run
    loaded = load_policy(run.policy, run.root)
    keep_key_from_handlers(loaded, run.environ)  # before the first handler starts

    def base(receipts: HeadReceipts, replay: str, jobs: Jobs) -> JSONObject:
        return baseline_diff(request, loaded, receipts, replay, out, jobs)

    def agent(written: list[Written]) -> tuple[AgentForGate | None, None]:
        stored = request.directory  # a stored baseline's agent receipts, to diff against
        return stored_base_agent(loaded, written, run.out, out, stored, run.environ), None

    beside = request.ref is not None
    return run_gate(loaded, run, out, base=base, beside=beside, after=agent).exit_code
