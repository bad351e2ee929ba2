"""Benchmark: calls per second through the `command:` adapter to a trivial echo (report only).

Measures the adapter's per-call overhead: one JSON line out, one back, over pipes to a
persistent Python process that echoes its arguments. Prints one line per round and the
median. The target (>= 5,000 calls/s) is met here, never asserted in unit tests.

    python bench/bench_command.py --calls 20000 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers.command import CommandHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig

ECHO = """
import json, sys
out = sys.stdout
for line in sys.stdin:
    request = json.loads(line)
    out.write(json.dumps({"id": request["id"], "ok": True, "output": request["arguments"]}))
    out.write("\\n")
    out.flush()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    arguments = {"title": "Harbour", "format": "png", "width": 200, "height": 100}
    config = HandlerConfig("command", argv=(sys.executable, "-c", ECHO))
    rates = []
    with CommandHandler(config) as handler:
        handler.call(arguments)  # warm up: the process is running and has answered
        for round_ in range(args.rounds):
            started = time.perf_counter()
            for _ in range(args.calls):
                outcome = handler.call(arguments)
            elapsed = time.perf_counter() - started
            assert outcome.kind is OutcomeKind.ACCEPTED
            rates.append(args.calls / elapsed)
            print(
                f"round {round_}: {args.calls} calls in {elapsed:.3f} s = {rates[-1]:,.0f} calls/s"
            )
    print(f"median: {statistics.median(rates):,.0f} calls/s")


if __name__ == "__main__":
    main()
