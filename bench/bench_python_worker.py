"""Benchmark: calls per second through the `python:` adapter's worker (report only).

Measures the per-call overhead of the persistent worker subprocess for a trivial
handler (`json.dumps`-free echo of the arguments). Prints one line per round and the
median. The target (>= 5,000 calls/s) is met here, never asserted in unit tests.

    python bench/bench_python_worker.py --calls 20000 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler

ECHO = "def echo(**arguments):\n    return arguments\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    arguments = {"title": "Harbour", "format": "png", "width": 200, "height": 100}
    rates = []
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bench_echo.py").write_text(ECHO, encoding="utf-8")
        sys.path.insert(0, folder)
        config = HandlerConfig("python", "bench_echo:echo", cwd=folder)
        with build_handler(config) as handler:
            handler.call(arguments)  # warm up: the worker has imported the module
            for round_ in range(args.rounds):
                started = time.perf_counter()
                for _ in range(args.calls):
                    outcome = handler.call(arguments)
                elapsed = time.perf_counter() - started
                assert outcome.kind is OutcomeKind.ACCEPTED
                rates.append(args.calls / elapsed)
                print(
                    f"round {round_}: {args.calls} calls in {elapsed:.3f} s = "
                    f"{rates[-1]:,.0f} calls/s"
                )
    print(f"median: {statistics.median(rates):,.0f} calls/s")


if __name__ == "__main__":
    main()
