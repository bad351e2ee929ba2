"""Benchmark: executed cases per second for the built-in contract (report only).

Runs the whole engine in one process on one core: generation, mutation, the
oracle on every case, the in-process renderPoster handler (with its replay and
key-order calls), invariant checks and the receipt. Prints one line per seed
and the median. Targets are met here, never asserted in unit tests.

    python bench/bench_engine.py --runs 1000 --seeds 41 42 43 44 45 46 47 [--no-saturation]

By default a campaign stops a stream that stopped adding anything new (saturation), so it
runs fewer cases than planned; `--no-saturation` runs every planned case, to compare the
cost per case with builds from before saturation.
"""

from __future__ import annotations

import argparse
import statistics
import time

from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.edges.handlers.builtin import SPEC, BuiltinPosterHandler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[41, 42, 43, 44, 45, 46, 47])
    parser.add_argument("--oracle", default="auto")
    parser.add_argument("--no-saturation", action="store_true", help="run every planned case")
    args = parser.parse_args()
    tool = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
        checks=resolve_checks(deterministic=True, strict=True),  # as `toolfuzz-gate run` holds it
    )
    rates = []
    for seed in args.seeds:
        handler = BuiltinPosterHandler()
        calls = 0
        original = handler.call

        def counted(arguments: dict[str, object], _call=original) -> object:  # type: ignore[no-untyped-def]
            nonlocal calls
            calls += 1
            return _call(arguments)  # type: ignore[arg-type]

        handler.call = counted  # type: ignore[method-assign,assignment]
        started = time.perf_counter()
        result = fuzz(
            poster.SCHEMA,
            handler,
            tool,
            FuzzConfig(seed, args.runs, oracle=args.oracle, saturation=not args.no_saturation),
            handler_label={"spec": SPEC},
            replay_command="bench",
        )
        elapsed = time.perf_counter() - started
        cases = sum(result.counts.values())
        rate = cases / elapsed
        rates.append(rate)
        print(
            f"seed {seed}: {cases} cases ({result.counts}) and {calls} handler calls "
            f"in {elapsed:.3f}s = {rate:,.0f} cases/s, {calls / elapsed:,.0f} calls/s, "
            f"oracle {result.receipt['engine']['oracle']['name']}, "  # type: ignore[index,call-overload]
            f"{len(result.counterexamples)} counterexamples"
        )
    print(
        f"median: {statistics.median(rates):,.0f} executed cases/s at {args.runs} runs "
        f"(range {min(rates):,.0f}..{max(rates):,.0f} over {len(rates)} seeds)"
    )


if __name__ == "__main__":
    main()
