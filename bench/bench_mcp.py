"""Benchmark: MCP calls per second and startup, the gate's client against the SDK's (report only).

The same trivial tool call repeated `--calls` times by two clients, the gate's `McpHandler`
and the official SDK client (`mcp.Client` over `StdioServerParameters`, `mode="legacy"`: the
initialize handshake), against three servers: the SDK-built fixture (`echo_text`) on the
SDK's low-level `Server` and on its `MCPServer` decorator (`--typed`), and `paged_mcp.py`, a
hand-written stdlib server, where the server's own per-call cost mostly drops out and the
clients' costs show.
Startup = spawn, initialize and the first `tools/list`, until the first call can be sent.
Needs the test extra (`pip install -e '.[test]'`) for the SDK. Targets (>= 1,000 calls/s on
loopback) are met here, never asserted in unit tests.

    python bench/bench_mcp.py --calls 3000 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from toolfuzz_gate.edges.handlers.mcp import McpHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mcp_tool"
SERVERS = {
    "sdk-lowlevel": ([str(FIXTURES / "poster_mcp.py")], "echo_text", {"text": "hi"}),
    "sdk-typed": ([str(FIXTURES / "poster_mcp.py"), "--typed"], "echo_text", {"text": "hi"}),
    "stdlib": ([str(FIXTURES / "paged_mcp.py")], "echo", {"value": 1}),
}


def gate_client(script: list[str], tool: str, arguments: Any, calls: int) -> tuple[float, float]:
    started = time.perf_counter()
    config = HandlerConfig("mcp", target=tool, argv=(sys.executable, *script), timeout_ms=10_000)
    with McpHandler(config) as handler:
        startup = time.perf_counter() - started
        handler.call(arguments)
        started = time.perf_counter()
        for _ in range(calls):
            handler.call(arguments)
        return startup, calls / (time.perf_counter() - started)


def sdk_client(script: list[str], tool: str, arguments: Any, calls: int) -> tuple[float, float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def run() -> tuple[float, float]:
        started = time.perf_counter()
        server = StdioServerParameters(command=sys.executable, args=script)
        async with Client(server, mode="legacy") as client:
            await client.list_tools()
            startup = time.perf_counter() - started
            await client.call_tool(tool, arguments)
            started = time.perf_counter()
            for _ in range(calls):
                await client.call_tool(tool, arguments)
            return startup, calls / (time.perf_counter() - started)

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-sdk", action="store_true", help="only the gate's own client")
    args = parser.parse_args()
    clients = {"gate": gate_client} if args.skip_sdk else {"gate": gate_client, "sdk": sdk_client}
    started = time.perf_counter()
    import mcp.client  # noqa: F401 - measured: what the SDK client adds to the gate's startup

    print(f"importing the SDK client: {time.perf_counter() - started:.2f} s")
    for server, (script, tool, arguments) in SERVERS.items():
        for name, client in clients.items():
            runs = [client(script, tool, arguments, args.calls) for _ in range(args.repeat)]
            startup = statistics.median(run[0] for run in runs)
            rate = statistics.median(run[1] for run in runs)
            print(
                f"{name:>4} client, {server:<12}: {rate:8,.0f} calls/s "
                f"(median of {args.repeat}), startup {startup:.2f} s"
            )


if __name__ == "__main__":
    main()
