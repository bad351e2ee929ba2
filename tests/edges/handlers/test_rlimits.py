"""Resource limits hold for real handler processes, by default, and reaching one is named."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import children_of, process_gone
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.campaign.run_defaults import (
    DEFAULT_CPU_LIMIT_S,
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
)
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.edges.handlers import rlimits
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler
from toolfuzz_gate.edges.handlers.rlimits import Limits, limited

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ESCAPING = FIXTURES / "stdio_tool" / "escaping_stdio.py"

# Echoes its arguments; first allocates `mb` megabytes, forks `fork` sleeping children and
# sleeps `hold` seconds, spins forever or burns `burn` seconds of CPU, as asked.
HUNGRY = """
import json, os, sys, time
for line in sys.stdin:
    request = json.loads(line)
    arguments = request["arguments"]
    if arguments.get("mb"):
        block = bytearray(arguments["mb"] * 1024 * 1024)
    if arguments.get("spin"):
        while True:
            pass
    for _ in range(arguments.get("fork", 0)):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    time.sleep(arguments.get("hold", 0))
    if arguments.get("burn"):
        until = time.process_time() + arguments["burn"]
        while time.process_time() < until:
            pass
    print(json.dumps({"id": request["id"], "ok": True, "output": arguments}), flush=True)
"""


def command(**limits: int) -> HandlerConfig:
    # A generous per-call timeout unless a test sets one: starting Python and touching a few
    # hundred megabytes takes seconds on a loaded runner, and these tests are about limits.
    limits.setdefault("timeout_ms", 20_000)
    return HandlerConfig("command", argv=(sys.executable, "-c", HUNGRY), **limits)  # type: ignore[arg-type]


def test_no_limits_leave_the_command_alone() -> None:
    assert limited(("tool", "--x"), None, None) == ("tool", "--x")
    assert limited(("tool",), 64, None)[-1] == "tool"


def test_limits_are_on_by_default_and_off_when_set_to_zero() -> None:
    defaults = Limits(DEFAULT_MEMORY_LIMIT_MB, DEFAULT_CPU_LIMIT_S, DEFAULT_PROCESS_LIMIT)
    assert Limits.resolve(None, None) == defaults
    assert Limits.resolve(0, 0, 0) == Limits(None, None, None)
    assert Limits.resolve(64, 0, 8) == Limits(64, None, 8)
    assert Limits(None, None).wrap(("tool",)) == ("tool",)


def test_reaching_a_limit_is_recognised_by_what_the_process_says() -> None:
    limits = Limits(256, 5)
    assert limits.reached("exit code 1; stderr: …MemoryError") == "memory 256 MB"
    assert limits.reached("terminate called … std::bad_alloc (killed by SIGABRT)")
    assert limits.reached("the process exited (killed by SIGXCPU)") == "cpu 5 s"
    assert limits.reached("exit code 1; stderr: KeyError: 'x'") is None
    assert Limits(None, None).reached("MemoryError (killed by SIGXCPU)") is None


def test_memory_limit_turns_a_large_allocation_into_resource_exhaustion() -> None:
    with build_handler(command(memory_limit_mb=256)) as handler:
        assert handler.call({"mb": 1}).kind is OutcomeKind.ACCEPTED
        outcome = handler.call({"mb": 1024})
        assert handler.call({"mb": 1}).kind is OutcomeKind.ACCEPTED  # restarted
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.exhausted == "memory 256 MB"
    assert outcome.message.startswith("memory 256 MB limit reached: ")  # in every report
    with build_handler(command(memory_limit_mb=0)) as handler:
        assert handler.call({"mb": 300}).kind is OutcomeKind.ACCEPTED  # no limit: it fits


@pytest.mark.slow
def test_cpu_limit_ends_a_spinning_process_before_the_timeout() -> None:
    config = command(cpu_limit_s=1, timeout_ms=20_000)
    with build_handler(config) as handler:
        outcome = handler.call({"spin": True})
    assert outcome.kind is OutcomeKind.CRASH  # SIGXCPU, well before the 20 s timeout
    assert outcome.exhausted == "cpu 1 s"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="counted through /proc")
def test_passing_the_process_limit_ends_the_call_and_every_process() -> None:
    with build_handler(command(process_limit=20, timeout_ms=20_000)) as handler:
        pid = handler.worker_pid  # type: ignore[attr-defined]
        within = handler.call({"fork": 10})
        children = children_of(handler.worker_pid)  # type: ignore[attr-defined]
        outcome = handler.call({"fork": 40, "hold": 10})
    assert within.kind is OutcomeKind.ACCEPTED and len(children) == 10
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.exhausted == "processes 20"
    assert all(process_gone(child) for child in children) and process_gone(pid)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prlimit is Linux only")
def test_the_cpu_budget_is_per_call_not_per_process_life() -> None:
    with build_handler(command(cpu_limit_s=1, timeout_ms=20_000)) as handler:
        outcomes = [handler.call({"burn": 0.6}) for _ in range(4)]  # 2.4 s in all
    assert [outcome.kind for outcome in outcomes] == [OutcomeKind.ACCEPTED] * 4


def _exhaustion(config: HandlerConfig) -> list[tuple[str, object]]:
    with build_handler(config) as handler:
        result = fuzz(
            {"type": "object", "properties": {"n": {"type": "integer"}}},
            handler,
            ToolSpec("t"),
            FuzzConfig(seed=41, runs=1),
            handler_label=config.label(),
            replay_command="x",
        )
    return sorted(
        {(cx.finding.failure.value, cx.finding.error.get("limit")) for cx in result.counterexamples}
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["python", "command"])
def test_a_handler_allocating_without_bound_is_stopped_at_the_default_limit(
    kind: str, tmp_path: Path
) -> None:
    if kind == "python":
        config = HandlerConfig("python", "hungry:hoard", cwd=str(FIXTURES / "handlers"))
    else:
        argv = (sys.executable, str(ESCAPING), "hungry", str(tmp_path))
        config = HandlerConfig("command", argv=argv)
    limit = f"memory {DEFAULT_MEMORY_LIMIT_MB} MB"
    assert _exhaustion(config) == [("resource-exhaustion", limit)]


REPORT_LIMITS = (
    "import resource as r; "
    f"print(r.getrlimit(r.{rlimits.MEMORY_RLIMIT}), r.getrlimit(r.RLIMIT_CPU), flush=True)"
)


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="util-linux prlimit")
def test_prlimit_sets_the_limits_the_shim_sets_without_a_second_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = Limits(256, 7)
    argv = (sys.executable, "-c", REPORT_LIMITS)
    fast = limits.wrap(argv)
    assert fast[0] == shutil.which("prlimit") and sys.executable not in fast[:-3]
    monkeypatch.setattr(rlimits, "_prlimit", lambda: None)
    shim = limits.wrap(argv)
    assert shim[:2] == (sys.executable, "-c")
    seen = {
        subprocess.run(wrapped, capture_output=True, text=True, check=True).stdout
        for wrapped in (fast, shim)
    }
    assert len(seen) == 1
    hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)[1]
    assert seen == {f"({256 << 20}, {256 << 20}) (7, {hard_cpu})\n"}
