"""Benchmark: executed cases per second for the built-in contract (report only).

Runs the whole engine in one process on one core: generation, mutation, the
oracle on every case, the in-process renderPoster handler (with its replay and
key-order calls), invariant checks and the receipt. Prints one line per seed
and the median. Targets are met here, never asserted in unit tests.

    python bench/bench_engine.py --runs 1000 --seeds 41 42 43 44 45 46 47

Each seed is run twice. First with every planned case (saturation off): the cases per second
of that run are the engine's throughput, the figure comparable across builds (before
saturation, every campaign ran every planned case). Then as `fuzz` runs it by default, where
a stream that stopped adding anything new stops early (saturation): fewer cases, so a
campaign's fixed costs weigh more per case; what counts there is the campaign's time.
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
    args = parser.parse_args()
    tool = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
        checks=resolve_checks(deterministic=True, strict=True),  # as `toolfuzz-gate run` holds it
    )
    rates: list[float] = []
    saturated: list[tuple[float, int]] = []
    for seed in args.seeds:
        for saturation in (False, True):
            elapsed, cases, line = _campaign(tool, seed, args.runs, args.oracle, saturation)
            if saturation:
                saturated.append((elapsed, cases))
                print(f"  saturated default: {line}")
            else:
                rates.append(cases / elapsed)
                print(f"seed {seed}: {line}")
    print(
        f"median: {statistics.median(rates):,.0f} executed cases/s at {args.runs} runs, every "
        f"planned case (range {min(rates):,.0f}..{max(rates):,.0f} over {len(rates)} seeds)"
    )
    seconds = statistics.median(elapsed for elapsed, _ in saturated)
    cases = statistics.median(count for _, count in saturated)
    print(
        f"saturated default: median {seconds:.3f}s per campaign, {cases:,.0f} cases "
        f"({seconds * 1000 / args.runs:.3f} ms per planned run)"
    )


def _campaign(
    tool: ToolSpec, seed: int, runs: int, oracle: str, saturation: bool
) -> tuple[float, int, str]:
    """One campaign of the built-in contract: its time, its executed cases, a report line."""
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
        FuzzConfig(seed, runs, oracle=oracle, saturation=saturation),
        handler_label={"spec": SPEC},
        replay_command="bench",
    )
    elapsed = time.perf_counter() - started
    cases = sum(result.counts.values())
    used = result.receipt.engine.oracle
    line = (
        f"{cases} cases ({result.counts}) and {calls} handler calls in {elapsed:.3f}s = "
        f"{cases / elapsed:,.0f} cases/s, {calls / elapsed:,.0f} calls/s, oracle "
        f"{used.name if used else 'no'}, "
        f"{len(result.counterexamples)} counterexamples"
    )
    return elapsed, cases, line


if __name__ == "__main__":
    main()
