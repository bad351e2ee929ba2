"""Benchmark: issue 19's escaping handler, `fuzz --runs 5`, timed, and what it leaves (report only).

The handler (`tests/fixtures/stdio_tool/escaping_stdio.py`) starts a helper on each call (in
its own session holding the protocol pipes, or a double-forked daemon), answers, and exits.
Each round runs the real CLI in a subprocess and prints its wall time and how many of the
helpers it recorded are still running (zombies included) a second after the gate exited.
Leftovers are killed afterwards.

    python bench/bench_orphans.py --mode session --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "stdio_tool"
SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}},
    "required": ["n"],
    "additionalProperties": False,
}


def one_round(mode: str, scratch: Path) -> tuple[float, int, int]:
    pids = scratch / "pids"
    pids.mkdir()
    schema = scratch / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    argv = [sys.executable, "-m", "toolfuzz_gate", "fuzz", "--schema", str(schema)]
    argv += ["--tool", "t", "--runs", "5", "--timeout-ms", "1000"]
    argv += ["--receipt", str(scratch / "receipt.json"), "--command", "--", sys.executable]
    argv += [str(FIXTURE / "escaping_stdio.py"), mode, str(pids)]
    started = time.monotonic()
    subprocess.run(argv, capture_output=True, timeout=600, check=False)
    elapsed = time.monotonic() - started
    time.sleep(1.0)
    recorded = [int(entry.name) for entry in pids.iterdir()]
    left = [pid for pid in recorded if Path(f"/proc/{pid}").exists()]
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return elapsed, len(left), len(recorded)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("session", "daemon"), default="session")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    times = []
    for index in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="toolfuzz-bench-") as scratch:
            elapsed, left, recorded = one_round(args.mode, Path(scratch))
        times.append(elapsed)
        print(f"round {index + 1}: {elapsed:.2f} s, {left} of {recorded} processes left")
    print(f"median: {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
