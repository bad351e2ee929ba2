"""Benchmark: the `python:` adapter's worker: calls per second, and how long it takes to start
(report only).

Calls: the per-call overhead of the persistent worker subprocess for a trivial handler (an
echo of the arguments), one line per round and the median (target >= 5,000 calls/s).
Starts: a fresh worker started and ready (spawned, the module imported, the handshake read)
and closed, `--starts` times, the median and the fastest; and whether the worker imported
`asyncio` to get there. Neither figure is asserted in unit tests.

    python bench/bench_python_worker.py --calls 20000 --rounds 5 --starts 30
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


def calls(folder: str, count: int, rounds: int) -> None:
    arguments = {"title": "Harbour", "format": "png", "width": 200, "height": 100}
    rates = []
    config = HandlerConfig("python", "bench_echo:echo", cwd=folder)
    with build_handler(config) as handler:
        handler.call(arguments)  # warm up: the worker has imported the module
        for round_ in range(rounds):
            started = time.perf_counter()
            for _ in range(count):
                outcome = handler.call(arguments)
            elapsed = time.perf_counter() - started
            assert outcome.kind is OutcomeKind.ACCEPTED
            rates.append(count / elapsed)
            print(f"round {round_}: {count} calls in {elapsed:.3f} s = {rates[-1]:,.0f} calls/s")
    print(f"median: {statistics.median(rates):,.0f} calls/s")


def starts(folder: str, count: int) -> None:
    config = HandlerConfig("python", "bench_echo:echo", cwd=folder)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        with build_handler(config):
            times.append(time.perf_counter() - started)
    print(
        f"worker start: median {statistics.median(times) * 1000:.1f} ms, "
        f"fastest {min(times) * 1000:.1f} ms over {count} starts"
    )


def asyncio_at_start(folder: str) -> bool:
    """Whether a ready worker has `asyncio` imported (its answer is a crash's message)."""
    Path(folder, "bench_asyncio.py").write_text(
        "import sys\n\ndef probe():\n"
        "    raise RuntimeError('asyncio' in sys.modules and 'yes' or 'no')\n",
        encoding="utf-8",
    )
    config = HandlerConfig("python", "bench_asyncio:probe", cwd=folder)
    with build_handler(config) as handler:
        outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH, outcome
    return "RuntimeError: yes" in outcome.message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--starts", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bench_echo.py").write_text(ECHO, encoding="utf-8")
        sys.path.insert(0, folder)
        if args.starts:
            starts(folder, args.starts)
            print(f"asyncio imported by a ready worker: {asyncio_at_start(folder)}")
        if args.rounds:
            calls(folder, args.calls, args.rounds)


if __name__ == "__main__":
    main()
