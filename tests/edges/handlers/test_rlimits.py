"""Resource limits hold for real handler processes."""

from __future__ import annotations

import sys

from toolfuzz_gate.core.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler
from toolfuzz_gate.edges.handlers.rlimits import limited

# Echoes its arguments; allocates `mb` megabytes first, or burns CPU when asked.
HUNGRY = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    arguments = request["arguments"]
    if arguments.get("mb"):
        block = bytearray(arguments["mb"] * 1024 * 1024)
    if arguments.get("spin"):
        while True:
            pass
    print(json.dumps({"id": request["id"], "ok": True, "output": arguments}), flush=True)
"""


def command(**limits: int) -> HandlerConfig:
    return HandlerConfig("command", argv=(sys.executable, "-c", HUNGRY), **limits)  # type: ignore[arg-type]


def test_no_limits_leave_the_command_alone() -> None:
    assert limited(("tool", "--x"), None, None) == ("tool", "--x")
    assert limited(("tool",), 64, None)[-1] == "tool"


def test_memory_limit_turns_a_large_allocation_into_a_crash() -> None:
    with build_handler(command(memory_limit_mb=256)) as handler:
        assert handler.call({"mb": 1}).kind is OutcomeKind.ACCEPTED
        assert handler.call({"mb": 1024}).kind is OutcomeKind.CRASH
        assert handler.call({"mb": 1}).kind is OutcomeKind.ACCEPTED  # restarted
    with build_handler(command()) as handler:
        assert handler.call({"mb": 300}).kind is OutcomeKind.ACCEPTED  # no limit: it fits


def test_cpu_limit_ends_a_spinning_process_before_the_timeout() -> None:
    config = command(cpu_limit_s=1, timeout_ms=20_000)
    with build_handler(config) as handler:
        outcome = handler.call({"spin": True})
    assert outcome.kind is OutcomeKind.CRASH  # SIGXCPU, well before the 20 s timeout
