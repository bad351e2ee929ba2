"""`replay` of a stateful campaign's receipt: each counterexample's sequence run again from
a fresh state of its server, the same checks across calls judging it (application).

The server is the one the policy's tools name (`--policy`: its environment, working
directory and reset come with it), else the command the receipt's handler label holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from toolfuzz_gate.app.tool_setup import build_policy_handler
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.stateful.sequence import Context, run_sequence
from toolfuzz_gate.core.campaign.stateful.sequence_checks import Graph, check_sequence
from toolfuzz_gate.core.campaign.stateful.sequence_receipt import PREFIX, calls_of, server_name
from toolfuzz_gate.core.campaign.stateful.server_tools import PreparedTools, ToolEntry
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.regression import select
from toolfuzz_gate.core.gate.stateful_settings import StatefulSettings
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.report.sequences import sequence_lines
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp import list_tools
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.stateful_server import McpServerTools
from toolfuzz_gate.errors import ReceiptError, UsageError
from toolfuzz_gate.exitcodes import ExitCode


def is_stateful(receipt: Receipt) -> bool:
    return receipt.stateful is not None and receipt.tool.startswith(PREFIX)


def replay_sequences(
    receipt: Receipt,
    fingerprints: tuple[str, ...],
    policy: Path | None,
    root: Path | None,
    out: TextIO,
) -> ExitCode:
    examples = select(receipt, fingerprints)
    if not examples:
        print("no counterexamples to replay", file=out)
        return ExitCode.PASSED
    handler, settings = _server(receipt, policy, root)
    label: Any = receipt.handler
    wanted = [str(t) for t in (label.get("mcp") or {}).get("tools") or []]
    listed = {str(item.get("name")): item for item in list_tools(handler)}
    entries = [
        ToolEntry(
            ToolSpec(name),
            listed[name].get("inputSchema") or {},
            listed[name].get("outputSchema"),
            listed[name].get("annotations"),
        )
        for name in wanted
        if name in listed
    ]
    prepared = PreparedTools(entries, dict(settings.kinds), settings.links, receipt.seed)
    graph = Graph(prepared.tools, prepared.links)
    server = McpServerTools(handler, sorted(prepared.tools))
    failing = 0
    try:
        for example in examples:
            calls = calls_of(example)
            if calls is None:
                print(f"skipped {example.fingerprint}: not replayable", file=out)
                continue
            server.fresh()
            steps = run_sequence(server, calls, Context(prepared.tools))
            tool = (jp.split(example.path) or [""])[0]
            wanted_identity = (example.failure, tool, example.cause)
            found = check_sequence(steps, graph, settings.checks)
            still = any(f.identity == wanted_identity for f in found)
            failing += still
            verdict = "still fails" if still else "passes"
            print(
                f"{example.fingerprint} {example.failure} at {tool}: {verdict}",
                file=out,
            )
            shown = {"sequence": [s.as_json(None, i) for i, s in enumerate(steps)]}
            for line in sequence_lines(shown):
                print(f"  {line}", file=out)
    finally:
        server.close()
    print(f"replay: {failing} of {len(examples)} still fail", file=out)
    return ExitCode.FAILED if failing else ExitCode.PASSED


def _server(
    receipt: Receipt, policy: Path | None, root: Path | None
) -> tuple[HandlerConfig, StatefulSettings]:
    label: Any = receipt.handler
    command = (label.get("mcp") or {}).get("command")
    if policy is None:
        if not isinstance(command, list) or not all(isinstance(w, str) for w in command):
            raise ReceiptError("the stateful receipt's handler names no server command")
        return HandlerConfig("mcp", "", argv=tuple(command)), StatefulSettings()
    loaded = load_policy(policy, root)
    name = receipt.tool[len(PREFIX) :]
    named = None  # by the command the receipt recorded first: two servers of one program
    for tool in loaded.policy.tools:  # are `NAME` and `NAME-2`
        if tool.handler.kind != "mcp":
            continue
        handler = build_policy_handler(tool.handler, tool.name, tool.options, loaded)
        if list(handler.argv) == command:
            return handler, loaded.policy.stateful
        if named is None and server_name(tool.handler.argv) == name:
            named = handler
    if named is not None:
        return named, loaded.policy.stateful
    raise UsageError(f"the policy {policy} starts no MCP server named {name!r}")
