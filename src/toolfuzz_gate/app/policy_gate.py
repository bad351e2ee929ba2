"""`run --policy FILE` (with or without a base): replay the regression corpus, fuzz every tool
of the policy, diff against the base when one is named, and gate (`app.gate_results`)."""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.baseline import baseline_diff, beside_head
from toolfuzz_gate.app.corpus_run import replay_corpus
from toolfuzz_gate.app.gate_results import gate
from toolfuzz_gate.app.jobs import Jobs, default_jobs
from toolfuzz_gate.app.model_key import keep_key_from_handlers
from toolfuzz_gate.app.policy_plan import Written, override_values
from toolfuzz_gate.app.policy_run import policy_handlers, run_policy
from toolfuzz_gate.app.progress import Progress, on_actions
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import BaselineRequest, PolicyRunRequest
from toolfuzz_gate.core.gate.lanes import side_by_side
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.exitcodes import ExitCode


def gate_policy(request: PolicyRunRequest, out: TextIO) -> ExitCode:
    """A policy run gated on its own findings."""
    return _gate_policy(request, None, out)


def gate_policy_on_baseline(request: BaselineRequest, out: TextIO) -> ExitCode:
    """A policy run gated on its diff against the base."""
    return _gate_policy(request.run, request, out)


def _gate_policy(run: PolicyRunRequest, base: BaselineRequest | None, out: TextIO) -> ExitCode:
    loaded = load_policy(run.policy, run.root)
    keep_key_from_handlers(loaded, run.environ)  # before the first handler starts
    replay = build_replay_command(run.argv)
    corpus = replay_corpus(loaded, override_values(run.overrides), out)
    jobs = Jobs(run.jobs or default_jobs())
    progress = Progress(out, grouped=on_actions(run.environ), concurrent=jobs.parallel)

    def head() -> list[Written]:
        return run_policy(loaded, run, replay, run.out, progress=progress, jobs=jobs)

    if base is None:
        return gate(loaded, head(), None, run.out, out, corpus, environ=run.environ).exit_code
    together = jobs.parallel and base.ref is not None and side_by_side(policy_handlers(loaded))
    written, diff = beside_head(
        head, lambda receipts: baseline_diff(base, loaded, receipts, replay, out, jobs), together
    )
    return gate(loaded, written, diff, run.out, out, corpus, environ=run.environ).exit_code
