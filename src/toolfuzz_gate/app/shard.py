"""A policy run split across CI jobs and put back together.

`run --policy FILE --shard I/N` (`run_shard`) runs this shard's units and writes their
receipts and `shard.json`. A shard writes no `summary.json`: the verdict over part of the
tools is not the gate's, and a summary beside the receipts would read as if it were. The
shard exits 0 once its receipts are written (errors still exit 2), so a CI matrix always
reaches the merge job; `toolfuzz-gate merge` gives the verdict and the exit code. A shard
replays no corpus: `merge` does, once for all shards. With `--shard-costs DIR` the units
are shared out by the cost a previous run measured (`core.gate.sharding`), and `shard.json`
says which costs. A server's stateful campaign runs whole in one shard, the one that runs
its first tool's unit (`app.stateful_run`), and `shard.json` lists it under `stateful`.

`merge DIR... --out DIR --policy FILE` (`merge`) combines the shards' outputs into one run's
results. Their manifests must belong together (`core.gate.shard_manifest.check_together`)
and to the policy file given (its sha256); the receipts are copied byte for byte, and the
verdict, `summary.json` and reports come from the same code an unsharded `run --policy`
uses, over the receipts in the plan's order. The policy is needed, not just the shards'
artifacts: its gate rules decide, and the reports locate findings in the repository's
schema files. `--baseline-dir DIR` diffs the merged receipts against stored ones, as `run
--policy --baseline-dir` does (the shards themselves never diff: each has only part of the
tools).
"""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.agent_gate import AgentForGate, stored_base_agent
from toolfuzz_gate.app.baseline import HeadReceipts, stored_baseline_diff, wait_head
from toolfuzz_gate.app.gate_results import render_written
from toolfuzz_gate.app.jobs import Jobs, default_jobs
from toolfuzz_gate.app.policy_gate import run_gate
from toolfuzz_gate.app.policy_plan import Planned, plan_policy, policy_tools
from toolfuzz_gate.app.policy_run import run_policy
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.reports import schema_source
from toolfuzz_gate.app.requests import MergeRequest, PolicyRunRequest, ShardRequest
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.shard_manifest import (
    FILE_NAME,
    Campaign,
    Unit,
    build_manifest,
    check_together,
)
from toolfuzz_gate.core.gate.sharding import MAX_SHARDS, select, unit_costs
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.report.context import SchemaSource
from toolfuzz_gate.edges.files import refuse_symlinks, write_atomic, write_document
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.edges.shard_files import load_shard, load_shard_receipt, policy_digest
from toolfuzz_gate.errors import ShardError, UsageError
from toolfuzz_gate.exitcodes import ExitCode


def run_shard(request: ShardRequest, out: TextIO) -> ExitCode:
    run, shard = request.run, request.shard
    loaded = load_policy(run.policy, run.root)
    replay = build_replay_command(run.argv)
    planned = plan_policy(loaded, run.overrides)
    costs = None
    if request.costs is not None:
        measured = load_receipts(request.costs)
        by_file = {measured.files[key]: measured.receipts[key] for key in measured.files}
        costs = unit_costs([item.file for item in planned], by_file)
    mine = select(planned, shard, costs)
    digest = policy_digest(run.policy)
    jobs = Jobs(run.jobs or default_jobs())
    written = run_policy(loaded, run, replay, run.out, mine, jobs=jobs, whole=planned)
    tools, campaigns = written[: len(mine)], written[len(mine) :]
    index = {item.file: k for k, item in enumerate(planned)}
    manifest = build_manifest(
        policy_file=str(run.policy),
        policy_digest=digest,
        replay=replay,
        shard=shard,
        plan=[_unit(item) for item in planned],
        receipts=[
            (_unit(item), done.receipt.receipt_hash) for item, done in zip(mine, tools, strict=True)
        ],
        costs=costs,
        stateful=[
            Campaign(
                Unit(done.receipt.tool, done.receipt.seed, done.file),
                index[str(done.first)],
                done.receipt.receipt_hash,
            )
            for done in campaigns
        ],
    )
    write_document(run.out / FILE_NAME, manifest)
    for done in written:
        print(render_written(done), file=out)
    print(
        f"shard {shard}: {len(mine)} of {len(planned)} receipt(s) and {FILE_NAME} in {run.out}; "
        f"not the gate's verdict: `toolfuzz-gate merge` over all {shard.count} shards gives it",
        file=out,
    )
    return ExitCode.PASSED


def _unit(item: Planned) -> Unit:
    return Unit(item.tool.name, item.seed, item.file)


def merge(request: MergeRequest, out: TextIO) -> ExitCode:
    if len(request.dirs) > MAX_SHARDS:
        raise UsageError(f"merge takes at most {MAX_SHARDS} shard directories")
    for directory in request.dirs:  # downloaded artifacts: read nothing through a symlink
        refuse_symlinks(directory, "a shard directory", ShardError)
    refuse_symlinks(request.out, "the output directory")
    shards = [(str(directory), load_shard(directory)) for directory in request.dirs]
    located = check_together(shards)
    first = shards[0][1]
    digest = policy_digest(request.policy)
    if digest != first.policy_digest:
        raise ShardError(
            f"the shards ran another policy than {request.policy} "
            f"(sha256 {first.policy_digest[:12]}..., this file {digest[:12]}...)",
            hint="merge with the policy file the shards ran (the same commit)",
        )
    loaded = load_policy(request.policy, request.root)
    tools = {tool.name: tool for tool in policy_tools(loaded)}
    written: list[Written] = []
    blobs: list[bytes] = []
    sources: dict[str, SchemaSource | None] = {}
    for item in located:
        receipt, raw = load_shard_receipt(request.dirs[item.source], item)
        if item.stateful:  # a server's stateful campaign: no schema file of its own
            written.append(Written(receipt, item.unit.receipt, False))
            blobs.append(raw)
            continue
        tool = tools.get(item.unit.tool)
        if tool is None:
            raise ShardError(f"{request.policy} has no tool {item.unit.tool!r} the shards ran")
        if item.unit.tool not in sources:  # one read of a schema file per tool, not per seed
            sources[item.unit.tool] = schema_source(tool, loaded)
        source = sources[item.unit.tool]
        written.append(Written(receipt, item.unit.receipt, receipt.refused is not None, source))
        blobs.append(raw)

    def copied() -> list[Written]:
        for done, raw in zip(written, blobs, strict=True):
            write_atomic(request.out / done.file, raw)
        return written

    def base(head: HeadReceipts, replay: str, jobs: Jobs) -> JSONObject | None:
        assert request.baseline_dir is not None
        return stored_baseline_diff(request.baseline_dir, wait_head(head), loaded, {})

    # The shards replayed no corpus: `run_gate` replays it, once, here.
    run = PolicyRunRequest(request.policy, request.out, request.root, environ=request.environ)
    stored = base if request.baseline_dir is not None else None

    def agent(written: list[Written]) -> tuple[AgentForGate | None, None]:
        return stored_base_agent(
            loaded, written, request.out, out, request.baseline_dir, request.environ
        ), None

    return run_gate(loaded, run, out, base=stored, head=copied, after=agent).exit_code
