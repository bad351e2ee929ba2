"""A policy run's stateful step: one campaign per MCP server that two or more of the policy's
tools share (`core.campaign.stateful`), its receipt written beside the tools' (application).

It runs after the tools' own campaigns, on a server of its own started from a fresh state,
with the seed, `budget_s` and `saturation` of the server's first tool: like one tool's
campaign, its time counts toward that tool budget and the run's `budget_s`, and its walks
stop once they add nothing new unless `saturation: false`. The campaigns of different
servers are units for `--jobs`, in lanes by the tools' lane rule (`core.gate.lanes`: a
server with a reset or an effects probe alone, servers in one `cwd` one after another);
one server's sequences always run in one lane, in order, on one process at a time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolfuzz_gate.app.jobs import Jobs
from toolfuzz_gate.app.policy_plan import Planned
from toolfuzz_gate.app.tool_setup import Listings, tool_annotations, tool_output_schema
from toolfuzz_gate.app.written import Written, receipt_name
from toolfuzz_gate.core.campaign.stateful.sequence_receipt import receipt_name as stateful_key
from toolfuzz_gate.core.campaign.stateful.sequence_receipt import (
    server_name,
    stateful_receipt,
    unique_name,
)
from toolfuzz_gate.core.campaign.stateful.server_tools import PreparedTools, ToolEntry
from toolfuzz_gate.core.campaign.stateful.stateful_campaign import StatefulConfig, run_stateful
from toolfuzz_gate.core.campaign.time_budget import budget_record, earliest
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.lanes import stages
from toolfuzz_gate.core.gate.stateful_settings import StatefulSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.edges.execute import write_receipt
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_listing import server_key
from toolfuzz_gate.edges.stateful_server import McpServerTools
from toolfuzz_gate.errors import HandlerError


@dataclass(frozen=True)
class ServerUnit:
    """One server's stateful campaign: its name, handler, tools and seed."""

    name: str
    handler: HandlerConfig
    entries: tuple[ToolEntry, ...]
    seed: int
    budget_s: float | None = None
    saturation: bool = True
    first: str = ""
    """The receipt file of the server's first tool's unit: a sharded run runs the campaign
    in the shard that runs that unit (`app.shard`)."""


@dataclass(frozen=True)
class Ready:
    """A planned tool as the run prepared it (`policy_run.Prepared`'s parts used here)."""

    unit: Planned
    handler: HandlerConfig
    schema: JSON
    spec: ToolSpec
    reachable: bool


def plan_servers(
    ready: Sequence[Ready], settings: StatefulSettings, listings: Listings
) -> list[ServerUnit]:
    """The servers two or more reachable MCP tools of the run share, in plan order."""
    if not settings.enabled:
        return []
    groups: dict[tuple[object, ...], list[Ready]] = {}
    for item in ready:
        if item.handler.kind == "mcp" and item.reachable and isinstance(item.schema, dict):
            group = groups.setdefault(server_key(item.handler), [])
            if all(_called(other) != _called(item) for other in group):
                group.append(item)
    units: list[ServerUnit] = []
    names: set[str] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        entries = tuple(_entry(item, listings) for item in group)
        name = unique_name(server_name(group[0].handler.argv), names)
        laid: dict[str, str] = {}  # every tool's fixtures; of two with one name, the first
        for item in group:
            for path in item.handler.fixtures:
                laid.setdefault(Path(path).name, path)
        handler = replace(group[0].handler, target="", servers=None, fixtures=tuple(laid.values()))
        first = group[0].unit
        units.append(
            ServerUnit(
                name,
                handler,
                entries,
                first.seed,
                first.options.budget_s,
                first.options.saturation,
                first.file,
            )
        )
    return units


def run_servers(
    units: Sequence[ServerUnit],
    settings: StatefulSettings,
    replay: str,
    directory: Path,
    jobs: Jobs,
    run_ends_at: float | None,
    run_budget_s: float | None,
) -> list[Written]:
    lanes = stages([unit.handler for unit in units])

    def work(index: int) -> Written | None:
        return run_server(units[index], settings, replay, directory, run_ends_at, run_budget_s)

    return [written for written in jobs.run(lanes, work) if written is not None]


def run_server(
    unit: ServerUnit,
    settings: StatefulSettings,
    replay: str,
    directory: Path,
    run_ends_at: float | None,
    run_budget_s: float | None,
) -> Written | None:
    config = StatefulConfig(
        unit.seed,
        settings.sequences,
        settings.max_calls,
        settings.checks,
        settings.shrink_runs,
        window=StatefulConfig.window if unit.saturation else 0,
    )
    budget = earliest(time.monotonic, unit.budget_s, run_ends_at, run_budget_s)
    file = receipt_name(stateful_key(unit.name))
    try:
        server = McpServerTools(unit.handler, [entry.spec.name for entry in unit.entries])
    except HandlerError:
        return None  # the tools' own receipts say why their server does not start
    callable_entries = [entry for entry in unit.entries if entry.spec.name in server.tools]
    prepared = PreparedTools(callable_entries, dict(settings.kinds), settings.links, unit.seed)
    tools = list[JSON](sorted(prepared.tools))
    label: JSONObject = {"mcp": {"command": list(unit.handler.argv), "tools": tools}}
    try:
        result = run_stateful(
            server,
            prepared.tools,
            prepared.links,
            config,
            prepared.make,
            prepared.admits,
            budget,
        )
    except HandlerError:
        return None  # its reset failed: no campaign on a state nobody chose
    finally:
        server.close()
    spent = None if budget is None else budget_record(budget, result.budget_stop, result.not_run())
    receipt = stateful_receipt(
        unit.name,
        prepared.tools,
        prepared.links,
        config,
        result,
        handler_label=label,
        replay_command=replay,
        budget=spent,
        fixtures={
            entry.spec.name: entry.spec.fixtures_json()
            for entry in callable_entries
            if entry.spec.fixtures and entry.spec.name in prepared.tools
        },
    )
    write_receipt(directory / file, receipt)
    return Written(receipt, file, False, first=unit.first)


def _called(item: Ready) -> str:
    """The name the server knows the tool by (a policy entry may name it otherwise)."""
    return item.handler.target or item.spec.name


def _entry(item: Ready, listings: Listings) -> ToolEntry:
    tool, options = item.unit.tool, item.unit.options
    output = tool_output_schema(tool, item.handler, listings)
    return ToolEntry(
        replace(item.spec, name=_called(item)),
        item.schema if isinstance(item.schema, dict) else {},
        output if isinstance(output, dict) else None,
        tool_annotations(tool, item.handler, listings),
        options.dialect,
        SchemaOptions(options.default_draft, options.format_assertion),
    )
