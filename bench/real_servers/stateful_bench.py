#!/usr/bin/env python3
"""Issue 29: the default stateful campaign (seed 41) on the kit's servers, each in a fresh
sandbox, with the reset `servers.py` recommends; prints the added time, sequences, calls and
each counterexample's sequence for hand triage. Run offline from the kit's directory:
unshare --net -r PY stateful_bench.py [NAME...]   (PYTHONPATH=CHECKOUT/src)"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

KIT = os.environ.get("KIT", os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, KIT)

import servers  # noqa: E402

from toolfuzz_gate.core.campaign.stateful.sequence_receipt import stateful_receipt  # noqa: E402
from toolfuzz_gate.core.campaign.stateful.server_tools import PreparedTools, ToolEntry  # noqa: E402
from toolfuzz_gate.core.campaign.stateful.stateful_campaign import (  # noqa: E402
    StatefulConfig,
    run_stateful,
)
from toolfuzz_gate.core.campaign.tool import ToolSpec  # noqa: E402
from toolfuzz_gate.core.report.sequences import sequence_lines  # noqa: E402
from toolfuzz_gate.edges.handlers.config import HandlerConfig  # noqa: E402
from toolfuzz_gate.edges.handlers.mcp import list_tools  # noqa: E402
from toolfuzz_gate.edges.stateful_server import McpServerTools  # noqa: E402


def one(name: str) -> None:
    sandbox = tempfile.mkdtemp(prefix=f"rs-stateful-{name}.")
    exports = servers.prep(name, sandbox)
    names = []
    for line in exports:
        key, value = line.removeprefix("export ").split("=", 1)
        os.environ[key] = value
        names.append(key)
    reset = servers.RECOMMENDED.get(name, {}).get("handler", {}).get("reset_command", ())
    config = HandlerConfig(
        "mcp",
        "",
        argv=tuple(servers.argv(name, sandbox)),
        env=tuple(names),
        cwd=sandbox,
        reset_command=tuple(reset),
        timeout_ms=2000,
    )
    listed = [t for t in list_tools(config) if t["name"] not in servers.EXCLUDED.get(name, {})]
    entries = [
        ToolEntry(
            ToolSpec(t["name"]), t["inputSchema"], t.get("outputSchema"), t.get("annotations")
        )
        for t in listed
    ]
    started = time.monotonic()
    server = McpServerTools(config, [entry.spec.name for entry in entries])
    entries = [entry for entry in entries if entry.spec.name in server.tools]
    prepared = PreparedTools(entries, {}, [], 41)
    try:
        result = run_stateful(
            server,
            prepared.tools,
            prepared.links,
            StatefulConfig(41),
            prepared.make,
            prepared.admits,
        )
    finally:
        server.close()
    took = time.monotonic() - started
    receipt = stateful_receipt(
        name,
        prepared.tools,
        prepared.links,
        StatefulConfig(41),
        result,
        handler_label={},
        replay_command="",
    )
    facts = receipt["stateful"]
    certain = sum(1 for link in facts["links"] if link["certain"])
    print(
        f"## {name}: {took:.1f} s, {facts['sequences']}/{facts['planned']} sequences, "
        f"{facts['calls']} calls, {len(facts['links'])} links ({certain} certain), "
        f"{server.fresh_starts} fresh starts, stop {facts['stop']}, dropped {facts['dropped']}, "
        f"{len(receipt['counterexamples'])} counterexamples"
    )
    for cx in receipt["counterexamples"]:
        print(f"- {cx['failure']} at {cx['path']} ({cx['cause']}), flaky {cx['flaky']}")
        print("  said: " + json.dumps(cx["error"].get("message", ""))[:300])
        for line in sequence_lines(cx):
            print(f"    {line[:300]}")
    sys.stdout.flush()


if __name__ == "__main__":
    for name in sys.argv[1:] or list(servers.SERVERS):
        one(name)
