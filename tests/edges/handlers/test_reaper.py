"""No process left behind: helpers that escape a handler's process group end with it.

Real processes throughout: `tests/fixtures/stdio_tool/escaping_stdio.py` starts a helper on
each call (in its own session holding the protocol pipes, or a double-forked daemon) and
records every pid it starts, so a test can check each one is gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import HAS_PROC, alive, process_gone
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.edges.handlers import reaper
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler
from toolfuzz_gate.edges.handlers.worker_process import WorkerProcess

ESCAPING = Path(__file__).resolve().parents[2] / "fixtures" / "stdio_tool" / "escaping_stdio.py"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}},
    "required": ["n"],
    "additionalProperties": False,
}

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="process checks read /proc")


@pytest.fixture
def pids(tmp_path: Path) -> Iterator[Path]:
    """Where the fixture records its pids; anything still alive afterwards is killed."""
    directory = tmp_path / "pids"
    directory.mkdir()
    yield directory
    for entry in directory.iterdir():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(entry.name), signal.SIGKILL)


def recorded(directory: Path) -> list[int]:
    return sorted(int(entry.name) for entry in directory.iterdir())


def left_behind(directory: Path) -> list[int]:
    return [pid for pid in recorded(directory) if not process_gone(pid, within_s=2.0)]


def escaping(mode: str, directory: Path, **options: object) -> HandlerConfig:
    argv = (sys.executable, str(ESCAPING), mode, str(directory))
    options.setdefault("timeout_ms", 1000)
    return HandlerConfig("command", argv=argv, **options)  # type: ignore[arg-type]


def fuzz_five_runs(config: HandlerConfig) -> list[OutcomeKind]:
    """The issue's scenario: `--runs 5` against the handler; every call's outcome kind."""
    kinds: list[OutcomeKind] = []
    with build_handler(config) as handler:

        class Watched:
            def call(self, arguments: object) -> object:
                outcome = handler.call(arguments)  # type: ignore[arg-type]
                kinds.append(outcome.kind)
                return outcome

        fuzz(
            SCHEMA,
            Watched(),  # type: ignore[arg-type]
            ToolSpec("t"),
            FuzzConfig(seed=41, runs=5),
            handler_label=config.label(),
            replay_command="x",
        )
    return kinds


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["session", "daemon"])
def test_helpers_that_escape_the_group_are_ended_and_no_call_waits_for_them(
    mode: str, pids: Path
) -> None:
    kinds = fuzz_five_runs(escaping(mode, pids))
    # The handler exits after each answer: the next call is a crash at once, never a
    # timeout spent waiting for a pipe only the helper holds.
    assert OutcomeKind.TIMEOUT not in kinds
    assert OutcomeKind.CRASH in kinds and OutcomeKind.ACCEPTED in kinds
    assert len(recorded(pids)) > 10
    assert left_behind(pids) == []
    # Reaped too, not zombies: as PID 1 in a container nobody else would reap them.
    assert [pid for pid in recorded(pids) if Path(f"/proc/{pid}").exists()] == []


def test_helpers_of_a_handler_that_stays_up_end_when_it_is_closed(pids: Path) -> None:
    with build_handler(escaping("serve", pids)) as handler:
        for n in range(3):
            assert handler.call({"n": n}).kind is OutcomeKind.ACCEPTED
        helpers = recorded(pids)
        assert all(alive(pid) for pid in helpers)  # the gate does not end them per call
    assert left_behind(pids) == []


def test_helpers_of_a_python_handler_end_with_its_worker(pids: Path) -> None:
    config = HandlerConfig("python", "escaping:spawn", cwd=str(ESCAPING.parents[1] / "handlers"))
    with build_handler(config) as handler:
        for _ in range(3):
            assert handler.call({"pids": str(pids)}).kind is OutcomeKind.ACCEPTED
        assert len(recorded(pids)) == 3
    assert left_behind(pids) == []


def test_a_handler_exit_is_noticed_although_a_helper_holds_its_stdout(pids: Path) -> None:
    with build_handler(escaping("session", pids, timeout_ms=30_000)) as handler:
        assert handler.call({"n": 1}).kind is OutcomeKind.ACCEPTED
        started = time.monotonic()
        outcome = handler.call({"n": 2})
        waited = time.monotonic() - started
    assert outcome.kind is OutcomeKind.CRASH
    assert "exited" in outcome.message
    assert waited < 15  # far below the 30 s timeout the old pipe-bound wait ran into
    assert left_behind(pids) == []


def test_ending_strays_never_takes_the_exit_status_of_the_gates_own_commands(
    pids: Path,
) -> None:
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3); exit(3)"])
    with build_handler(escaping("daemon", pids)) as handler:
        handler.call({"n": 1})
        handler.call({"n": 2})  # a crash: the daemon is ended and reaped meanwhile
    assert own.wait(timeout=10) == 3
    assert left_behind(pids) == []


def test_the_gate_is_the_reaper_of_orphans_below_it() -> None:
    assert reaper.become_subreaper() is True  # Linux 3.4+
    worker = WorkerProcess(
        [sys.executable, "-c", "import os, time; os.fork() or time.sleep(60)"], {}, "/"
    )
    try:
        table: dict[int, reaper.Entry] = {}
        deadline = time.monotonic() + 10
        while not reaper.strays(WorkerProcess.live_pids(), table):
            assert time.monotonic() < deadline, "the orphan never came to the gate"
            time.sleep(0.02)
            table = reaper.process_table()
        (orphan,) = reaper.strays(WorkerProcess.live_pids(), table)
        assert table[orphan].ppid == os.getpid()
    finally:
        worker.kill()
    assert process_gone(orphan)


def test_descendants_follow_parent_links_and_strays_skip_the_gates_session() -> None:
    me, session = os.getpid(), os.getsid(0)
    table = {
        10: reaper.Entry(me, 10, "S"),  # a live handler process
        11: reaper.Entry(10, 10, "S"),
        12: reaper.Entry(11, 12, "S"),
        20: reaper.Entry(me, 20, "S"),  # an orphan adopted from some handler
        21: reaper.Entry(20, 20, "Z"),
        30: reaper.Entry(me, session, "S"),  # the gate's own command (git, say)
        31: reaper.Entry(30, session, "S"),
    }
    assert reaper.descendants([10], table) == {11, 12}
    assert reaper.strays([10], table) == {20, 21}


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


_GATE = [sys.executable, "-m", "toolfuzz_gate", "fuzz", "--runs", "1000", "--timeout-ms", "1000"]


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("mode", ["session", "serve", "daemon", "hungry"])
def test_interrupting_the_gate_leaves_nothing_behind(
    mode: str, signum: signal.Signals, pids: Path, tmp_path: Path
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "properties": {"n": {"type": "integer"}}}')
    argv = [*_GATE, "--schema", str(schema), "--tool", "t", "--receipt", str(tmp_path / "r")]
    argv += ["--command", "--", sys.executable, str(ESCAPING), mode, str(pids)]
    gate = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_interrupt,  # a runner started in the background ignores SIGINT
    )
    try:
        deadline = time.monotonic() + 30
        while len(recorded(pids)) < 4 and gate.poll() is None:
            assert time.monotonic() < deadline, "the gate never got going"
            time.sleep(0.02)
        gate.send_signal(signum)
        _, stderr = gate.communicate(timeout=30)
    finally:
        gate.kill()
        gate.wait(timeout=10)
    assert "interrupted" in stderr
    assert "Traceback" not in stderr
    assert gate.returncode == 128 + signum  # 130 for Ctrl-C, 143 for SIGTERM
    assert left_behind(pids) == []
