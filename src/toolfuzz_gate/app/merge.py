"""`merge DIR... --out DIR --policy FILE`: combine shard outputs into one run's results.

The shards' manifests must belong together (`core.gate.shard_manifest.check_together`) and to
the policy file given (its sha256); the receipts are copied byte for byte, and the verdict,
`summary.json` and reports come from the same code an unsharded `run --policy` uses, over
the receipts in the plan's order. The policy is needed, not just the shards' artifacts:
its gate rules decide, and the reports locate findings in the repository's schema files.
`--baseline-dir DIR` diffs the merged receipts against stored ones, as `run --policy
--baseline-dir` does (the shards themselves never diff: each has only part of the tools).
"""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.agent_gate import AgentForGate, stored_base_agent
from toolfuzz_gate.app.baseline import HeadReceipts, stored_baseline_diff, wait_head
from toolfuzz_gate.app.jobs import Jobs
from toolfuzz_gate.app.policy_gate import run_gate
from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.reports import schema_source
from toolfuzz_gate.app.requests import MergeRequest, PolicyRunRequest
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.shard_manifest import check_together
from toolfuzz_gate.core.gate.sharding import MAX_SHARDS
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.report.context import SchemaSource
from toolfuzz_gate.edges.files import refuse_symlinks, write_atomic
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.shard_files import load_shard, load_shard_receipt, policy_digest
from toolfuzz_gate.errors import ShardError, UsageError
from toolfuzz_gate.exitcodes import ExitCode


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
