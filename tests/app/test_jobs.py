"""Running units at the same time (`app.jobs.Jobs`): results in plan order, lanes in order,
never more at once than the jobs, stages one after another."""

from __future__ import annotations

import threading
import time

import pytest

from toolfuzz_gate.app.jobs import Jobs


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[int] = set()
        self.most = 0
        self.order: list[int] = []
        self.overlapped: set[frozenset[int]] = set()

    def work(self, index: int) -> str:
        with self.lock:
            self.overlapped |= {frozenset((index, other)) for other in self.running}
            self.running.add(index)
            self.most = max(self.most, len(self.running))
            self.order.append(index)
        time.sleep(0.02)
        with self.lock:
            self.running.discard(index)
        return f"unit {index}"


@pytest.mark.parametrize("count", [1, 2, 3])
def test_results_come_in_unit_order_and_lanes_keep_theirs(count: int) -> None:
    recorder = Recorder()
    stages = [((0, 2), (1,), (3, 4)), ((5,),), ((6,), (7,))]
    done = Jobs(count).run(stages, recorder.work)
    assert done == [f"unit {index}" for index in range(8)]
    assert recorder.most <= count
    order = recorder.order
    assert order.index(0) < order.index(2) and order.index(3) < order.index(4)
    # a stage starts when the one before it has ended: 5 overlaps nothing
    assert not any(5 in pair for pair in recorder.overlapped)
    assert (
        max(order.index(i) for i in range(5)) < order.index(5) < min(order.index(6), order.index(7))
    )
    assert not any(pair <= {0, 2} or pair <= {3, 4} for pair in recorder.overlapped)
    if count == 1:
        assert order == list(range(8)) and not recorder.overlapped


def test_lanes_do_overlap_with_two_jobs() -> None:
    both = threading.Barrier(2, timeout=10)  # broken unless the two lanes run at once

    def meet(index: int) -> int:
        both.wait()
        return index

    assert Jobs(2).run([((0,), (1,))], meet) == [0, 1]


def test_one_job_runs_everything_in_the_calling_thread() -> None:
    threads = Jobs(1).run([((0,), (1,))], lambda index: threading.current_thread())
    assert threads == [threading.main_thread()] * 2
