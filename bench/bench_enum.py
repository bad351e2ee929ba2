"""Benchmark: the cost of a campaign as an enum grows (report only).

Fuzzes, in process, a tool whose schema holds one enum of N string members (a country list)
and an array of unique members of it, against a correct handler whose own cost does not grow
with N, for N = 8 .. 1024, and prints the cases per second and the compile time for each N.
Generation, checking and near-misses should cost about the same whatever N (the hot oracle,
jsonschema-rs, checks `enum` in native code). Limits are raised so an older engine can run
it too.

    PYTHONPATH=src python bench/bench_enum.py [--runs 300] [--sizes 8 32 256 1024]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.core.schema.limits import Limits

LIMITS = Limits(max_enum=4096)


class CountryTool:
    """A correct handler for `schema(size)`: membership by set lookup, so its cost does not
    grow with the enum and the figures are the engine's."""

    def __init__(self, size: int) -> None:
        self.members = {f"country-{index:04d}" for index in range(size)}

    def _valid(self, arguments: JSONObject) -> bool:
        visited = arguments.get("visited", [])
        return (
            set(arguments) <= {"country", "visited"}
            and isinstance(arguments.get("country"), str)
            and arguments["country"] in self.members
            and isinstance(visited, list)
            and len(visited) <= 8
            and all(isinstance(v, str) and v in self.members for v in visited)
            and len(set(visited)) == len(visited)
        )

    def call(self, arguments: JSONObject) -> Outcome:
        if not self._valid(arguments):
            return Outcome(OutcomeKind.REJECTED, error_code="invalid")
        output_digest, size = digest_and_size({"ok": True})
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def schema(size: int) -> dict[str, Any]:
    members = [f"country-{index:04d}" for index in range(size)]
    return {
        "type": "object",
        "properties": {
            "country": {"type": "string", "enum": members},
            "visited": {
                "type": "array",
                "items": {"enum": members},
                "uniqueItems": True,
                "maxItems": 8,
            },
        },
        "required": ["country"],
        "additionalProperties": False,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32, 256, 1024])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes:
        document = schema(size)
        compile_times, rates = [], []
        for _ in range(args.repeats):
            started = time.perf_counter()
            compile_schema(document, limits=LIMITS)
            compile_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            result = fuzz(
                document,
                CountryTool(size),
                ToolSpec("countries"),
                FuzzConfig(41, args.runs, limits=LIMITS),
                handler_label={"spec": "bench:validating"},
                replay_command="bench",
            )
            cases = sum(result.counts.values())
            rates.append(cases / (time.perf_counter() - started))
        print(
            f"enum of {size:5d}: {statistics.median(rates):8,.0f} cases/s, "
            f"compile {statistics.median(compile_times) * 1000:7.1f} ms"
        )


if __name__ == "__main__":
    main()
