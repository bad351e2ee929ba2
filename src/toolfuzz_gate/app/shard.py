"""`run --policy FILE --shard I/N`: run this shard's units, write their receipts and `shard.json`.

A shard writes no `summary.json`: the verdict over part of the tools is not the gate's,
and a summary beside the receipts would read as if it were. The shard exits 0 once its
receipts are written (errors still exit 2), so a CI matrix always reaches the merge job;
`toolfuzz-gate merge` gives the verdict and the exit code. A shard replays no corpus:
`merge` does, once for all shards. With `--shard-costs DIR` the units are shared out by
the cost a previous run measured (`core.gate.sharding`), and `shard.json` says which costs.
A server's stateful campaign runs whole in one shard, the one that runs its first tool's
unit (`app.stateful_run`), and `shard.json` lists it under `stateful`.
"""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.gate_results import render_written
from toolfuzz_gate.app.jobs import Jobs, default_jobs
from toolfuzz_gate.app.policy_plan import Planned, plan_policy
from toolfuzz_gate.app.policy_run import run_policy
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import ShardRequest
from toolfuzz_gate.core.gate.shard_manifest import FILE_NAME, Campaign, Unit, build_manifest
from toolfuzz_gate.core.gate.sharding import select, unit_costs
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.edges.shard_files import policy_digest
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
            (_unit(item), str(done.receipt["receiptHash"]))
            for item, done in zip(mine, tools, strict=True)
        ],
        costs=costs,
        stateful=[
            Campaign(
                Unit(str(done.receipt["tool"]), _seed(done.receipt), done.file),
                index[str(done.first)],
                str(done.receipt["receiptHash"]),
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


def _seed(receipt: JSONObject) -> int:
    seed = receipt["seed"]
    assert isinstance(seed, int)  # a stateful receipt's seed is its first tool's
    return seed


def _unit(item: Planned) -> Unit:
    return Unit(item.tool.name, item.seed, item.file)
