"""`edges.handlers.helper_command`: a reset or effects command the policy names runs once,
and what it leaves running is ended with the handlers (issue 26: nothing outlives its step).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from toolfuzz_gate.edges.handlers import reaper
from toolfuzz_gate.edges.handlers.helper_command import run_helper
from toolfuzz_gate.edges.handlers.worker_process import WorkerProcess

LINGER = """
import os, sys, time
if {leave} and os.fork() == 0:  # a child left behind, in the helper's session
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(null, stream)
    with open(sys.argv[1], "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(60)
    os._exit(0)
print("state 3")
"""


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


@pytest.mark.skipif(not reaper.HAS_PROC, reason="reads /proc")
@pytest.mark.parametrize("leave", [False, True])
def test_what_a_helper_leaves_running_is_ended_with_the_handlers(
    tmp_path: Path, leave: bool
) -> None:
    reaper.become_subreaper()  # as the gate is before its first handler starts
    pid_file = tmp_path / "pid"
    argv = [sys.executable, "-c", LINGER.format(leave=leave), str(pid_file)]
    out = run_helper("effects command", argv, cwd=str(tmp_path), env={}, timeout_s=10.0)
    assert out.strip() == b"state 3"
    if not leave:
        assert not pid_file.exists()
        return
    deadline = time.monotonic() + 5.0
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.01)
    pid = int(pid_file.read_text())
    assert _running(pid)
    WorkerProcess.kill_all()  # what the action does once the handlers are done
    assert not _running(pid)
