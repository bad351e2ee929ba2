"""A policy run's fuzzing step: each planned tool and seed fuzzed, its receipt written.

Each tool runs once per seed: `NAME.json` for a single seed, `NAME.seed-N.json` when the
tool has several (`app.policy_plan`). One tool's problem never stops the others: a tool
whose schema is refused (for any schema error) or whose handler cannot be reached (its MCP
server does not start, or lists no such tool) is not fuzzed, and its refused receipt says
why (`edges.execute.attempt`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolfuzz_gate.app.front_doors import build_policy_spec
from toolfuzz_gate.app.jobs import Jobs
from toolfuzz_gate.app.policy_plan import Planned, plan_policy
from toolfuzz_gate.app.progress import Progress
from toolfuzz_gate.app.reports import schema_source
from toolfuzz_gate.app.requests import PolicyRunRequest
from toolfuzz_gate.app.stateful_run import Ready, plan_servers, run_servers
from toolfuzz_gate.app.tool_setup import (
    KeptListings,
    Listings,
    build_listed_spec,
    build_policy_handler,
    tool_schema,
)
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.campaign.refusal import Refusal, error_refusal
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fixed_not_admitted
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.lanes import exclusive, stages
from toolfuzz_gate.core.gate.policy import RunOptions, ToolPolicy
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.report.context import SchemaSource
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.edges.execute import SchemaLines, ToolRun, attempt, refuse
from toolfuzz_gate.edges.files import refuse_symlinks
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_listing import server_key
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import HandlerError


def run_policy(
    loaded: LoadedPolicy,
    request: PolicyRunRequest,
    replay: str,
    directory: Path,
    planned: Sequence[Planned] | None = None,
    progress: Progress | None = None,
    jobs: Jobs | None = None,
    whole: Sequence[Planned] | None = None,
    listings: KeptListings | None = None,
) -> list[Written]:
    """Fuzz the `planned` units (default: every tool of `loaded` for each of its seeds),
    receipts written into `directory`, each tool's start and end told to `progress`;
    independent tools at the same time when `jobs` allows (`core.gate.lanes`); then the
    stateful campaigns (`app.stateful_run`), their receipts after the tools'. A shard gives
    the `whole` plan too: it runs the campaigns of the servers whose first tool's unit is
    among its `planned` ones (without `whole`, `planned` units run no campaign).
    `listings`: the servers the caller listed, left running for the tools of them (the
    caller stops them); without, the run lists and stops its own."""
    progress = progress or Progress(None)
    jobs = jobs or Jobs(1)
    refuse_symlinks(directory, "the output directory")  # `run --out`, a shard's, the base's
    kept = KeptListings(McpServers()) if listings is None else listings
    servers = kept.servers  # the servers listed, handed over to the tools of them
    try:
        units = plan_policy(loaded, request.overrides, kept) if planned is None else planned
        prepared: dict[tuple[str, str], Prepared] = {}
        ready: list[Prepared] = []
        for unit in units:
            key = (unit.tool.pointer, unit.tool.name)  # a tools-file entry: one pointer
            if key not in prepared:
                prepared[key] = _prepare(unit.tool, unit.options, loaded, kept)
            ready.append(prepared[key])

        budget_s = loaded.policy.budget_s
        ends_at = None if budget_s is None else time.monotonic() + budget_s
        budget = RunBudget(ends_at, budget_s)
        shared = [_shared_server(item) for item in ready]
        configs = _with_servers([item.handler for item in ready], shared, servers)

        def fuzz_unit(index: int) -> Written:
            unit_ready = replace(ready[index], handler=configs[index])
            return _fuzz_unit(
                units[index], unit_ready, request, replay, directory, progress, budget
            )

        written = jobs.run(stages([item.handler for item in ready], shared), fuzz_unit)
    finally:
        if listings is None:
            servers.close()
    listed: Listings = dict(kept)  # what follows starts servers of its own
    if planned is not None and whole is None:
        return written
    stateful = loaded.policy.stateful
    every = units if whole is None else whole
    found = []
    for unit in every:  # a shard's server may have tools in other shards: prepared here too
        key = (unit.tool.pointer, unit.tool.name)
        if stateful.enabled and key not in prepared:
            prepared[key] = _prepare(unit.tool, unit.options, loaded, listed)
        item = prepared.get(key)
        if item is not None:
            found.append(
                Ready(unit, item.handler, item.schema, item.spec, item.unreachable is None)
            )
    servers_planned = plan_servers(found, stateful, listed)
    if whole is not None:
        mine = {unit.file for unit in units}
        servers_planned = [server for server in servers_planned if server.first in mine]
    return written + run_servers(
        servers_planned, stateful, replay, directory, jobs, budget.ends_at, budget.seconds
    )


def _with_servers(
    handlers: Sequence[HandlerConfig], shared: Sequence[str | None], servers: McpServers
) -> list[HandlerConfig]:
    """Each handler told where the run keeps its servers: those that share one use it
    (`shared`), and, when none of its server's tools shares, a handler takes over the
    server its listing left running (the first to start does; `mcp._handed_over` says
    when it may), so a server listed is not started twice."""
    sharing = {key for key in shared if key is not None}
    return [
        replace(handler, servers=servers)
        if key is not None
        else handler
        if repr(server_key(handler)) in sharing
        else replace(handler, listed=servers)  # read by the adapters that list their tools
        for handler, key in zip(handlers, shared, strict=True)
    ]


def _shared_server(item: Prepared) -> str | None:
    """The server process a tool may share with the other tools of it (`mcp_servers`), or
    None: an MCP tool its server declares read-only (`readOnlyHint`), with no reset and no
    effects probe of any kind, so nothing it does can reach another tool's results."""
    handler = item.handler
    if handler.kind != "mcp" or item.unreachable is not None:
        return None
    if exclusive(handler) or handler.effects is not None:
        return None
    if dict(item.spec.annotations).get("readOnlyHint") is not True:
        return None
    return repr(server_key(handler))


def _fuzz_unit(
    unit: Planned,
    ready: Prepared,
    request: PolicyRunRequest,
    replay: str,
    directory: Path,
    progress: Progress,
    budget: RunBudget,
) -> Written:
    tool, options = unit.tool, unit.options
    config = FuzzConfig(
        unit.seed,
        options.runs,
        oracle=request.oracle,
        options=SchemaOptions(options.default_draft, options.format_assertion),
        dialect=options.dialect,
        saturation=options.saturation,
        budget_s=options.budget_s,
    )
    tool_run = ToolRun(
        ready.schema, ready.handler, ready.spec, config, replay, budget.ends_at, budget.seconds
    )
    path = directory / unit.file
    progress.start(tool.name, unit.seed, options.runs)
    if ready.unreachable is not None:
        done = refuse(tool_run, path, (ready.unreachable,))
    else:
        source = ready.source
        located = None if source is None else SchemaLines(source.lines, source.root)
        done = attempt(
            tool_run, path, request.cases, diagnostics=request.diagnostics, located=located
        )
    progress.done(tool.name, done.receipt)
    return Written(done.receipt, unit.file, done.refused, ready.source)


@dataclass(frozen=True)
class RunBudget:
    """The policy's run-wide `budget_s`, and when it ends on `time.monotonic` (None: none)."""

    ends_at: float | None
    seconds: float | None


def policy_handlers(loaded: LoadedPolicy) -> list[HandlerSettings]:
    """The handler of each of the policy's tools, for `core.gate.lanes.side_by_side`."""
    return [tool.handler for tool in loaded.policy.tools]


@dataclass(frozen=True)
class Prepared:
    """What every seed of one policy tool shares; `unreachable` is why its handler cannot
    give the schema (its MCP server does not start or lists no such tool), else None."""

    handler: HandlerConfig
    schema: JSON
    spec: ToolSpec
    source: SchemaSource | None
    unreachable: Refusal | None = None


def _prepare(
    tool: ToolPolicy, options: RunOptions, loaded: LoadedPolicy, listings: Listings
) -> Prepared:
    handler = build_policy_handler(tool.handler, tool.name, options, loaded)
    try:
        schema = tool_schema(tool, handler, loaded, listings)
    except HandlerError as error:
        spec = build_policy_spec(tool, options)
        return Prepared(handler, None, spec, None, error_refusal(error))
    spec = build_listed_spec(tool, options, handler, listings)
    _check_fixed(tool, schema, spec, options, loaded)
    # A schema with no file of its own is located at its policy entry, if it has a line
    # (the command line's has none).
    placed = tool.schema or tool.tools or tool.pointer in loaded.lines
    return Prepared(handler, schema, spec, schema_source(tool, loaded) if placed else None)


def _check_fixed(
    tool: ToolPolicy, schema: JSON, spec: ToolSpec, options: RunOptions, loaded: LoadedPolicy
) -> None:
    """`fixed_arguments` the tool's schema does not admit are the policy's error: every
    valid case would be invalid."""
    config = FuzzConfig(
        options.seeds[0],
        options.runs,
        options=SchemaOptions(options.default_draft, options.format_assertion),
        dialect=options.dialect,
    )
    problem = fixed_not_admitted(schema, spec, config)
    if problem is not None:
        raise loaded.error_at(
            f"{tool.pointer}/fixed_arguments",
            f"{tool.name}: {problem}",
            near=tool.pointer,
            hint="fix a value so the tool's schema admits it, or drop it",
        )
