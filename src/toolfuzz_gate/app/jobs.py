"""Running a policy run's tools at the same time, `--jobs N` of them at most (application).

Threads, not processes: every handler is its own process (but the built-in one, which is
pure), so a thread spends most of a campaign waiting on its handler while the others
compute. Which tools may overlap is `core.gate.lanes`; a receipt never depends on it.
`Jobs` is shared by the base and the head of one run, so N bounds them both together.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from toolfuzz_gate.core.gate.lanes import MAX_JOBS, Stage

__all__ = ["DEFAULT_MOST", "MAX_JOBS", "Jobs", "default_jobs"]

DEFAULT_MOST = 2
"""The default is the machine's CPUs, at most this many: measured on 2-core machines
(`bench/bench_gate.py`); a larger machine may take more with `--jobs`."""

_Done = TypeVar("_Done")


def default_jobs() -> int:
    return max(1, min(DEFAULT_MOST, os.cpu_count() or 1))


class Jobs:
    """How many tools may be fuzzed at once, and the slots they take while they are."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._slots = threading.BoundedSemaphore(count)

    @property
    def parallel(self) -> bool:
        return self.count > 1

    def run(self, stages: Sequence[Stage], work: Callable[[int], _Done]) -> list[_Done]:
        """`work(i)` for every unit of `stages`, stage after stage, the lanes of a stage at
        once; the results in unit order. With one job, everything runs in this thread in
        unit order (the plan's, as before there were jobs)."""
        done: dict[int, _Done] = {}
        for stage in stages:
            if not self.parallel or len(stage) == 1:
                done.update(self._lane(sorted(i for lane in stage for i in lane), work))
                continue
            from concurrent.futures import ThreadPoolExecutor  # only when tools overlap

            # each lane in a copy of this thread's context: which side's handlers it starts
            # (`edges.handlers.confine.base_side`) goes with it
            contexts = [contextvars.copy_context() for _ in stage]
            with ThreadPoolExecutor(min(self.count, len(stage))) as pool:
                for finished in pool.map(
                    lambda context, lane: context.run(self._lane, lane, work), contexts, stage
                ):
                    done.update(finished)
        return [done[index] for index in sorted(done)]

    def _lane(self, lane: Sequence[int], work: Callable[[int], _Done]) -> dict[int, _Done]:
        finished: dict[int, _Done] = {}
        for index in lane:
            with self._slots:
                finished[index] = work(index)
        return finished
