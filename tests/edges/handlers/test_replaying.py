"""The `Replaying` seam of the process adapters (`restart`, `scale_timeout`), which
confirmation uses, and the causes adapters report, against real processes."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import process_gone
from toolfuzz_gate.core.campaign.outcome import OutcomeKind, Replaying
from toolfuzz_gate.edges.effects import DirectoryProbe, ProbedHandler
from toolfuzz_gate.edges.handlers.command import CommandHandler
from toolfuzz_gate.edges.handlers.mcp import McpHandler
from toolfuzz_gate.edges.handlers.python_worker import (
    PythonSpec,
    PythonWorkerHandler,
    WorkerOptions,
)
from toolfuzz_gate.edges.handlers.registry import HandlerConfig

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ECHO = str(FIXTURES / "stdio_tool" / "echo_stdio.py")
PAGED = str(FIXTURES / "mcp_tool" / "paged_mcp.py")
HANDLERS = FIXTURES / "handlers"

Closer = Callable[[], None]


@pytest.fixture
def closing() -> Iterator[list[Closer]]:
    closers: list[Closer] = []
    yield closers
    for close in closers:
        close()


def command(closing: list[Closer], timeout_ms: int = 2000) -> CommandHandler:
    handler = CommandHandler(
        HandlerConfig("command", argv=(sys.executable, ECHO), timeout_ms=timeout_ms)
    )
    closing.append(handler.close)
    return handler


def test_command_restart_starts_a_fresh_process_on_the_next_call(closing: list[Closer]) -> None:
    handler = command(closing)
    assert isinstance(handler, Replaying)
    assert handler.call({"a": 1}).kind is OutcomeKind.ACCEPTED
    first = handler.worker_pid
    assert first is not None
    handler.restart()
    assert process_gone(first)
    assert handler.call({"a": 1}).kind is OutcomeKind.ACCEPTED
    assert handler.worker_pid not in (None, first)


@pytest.mark.slow
def test_command_scale_timeout_gives_a_slow_call_the_longer_budget(closing: list[Closer]) -> None:
    handler = command(closing, timeout_ms=300)
    slow: dict[str, Any] = {"sleep": 0.6}
    assert handler.call(slow).kind is OutcomeKind.TIMEOUT
    handler.scale_timeout(3.0)
    assert handler.call(slow).kind is OutcomeKind.ACCEPTED
    handler.scale_timeout(1.0)
    assert handler.call(slow).kind is OutcomeKind.TIMEOUT


def test_python_worker_restarts_and_reports_the_exception_type_as_cause(
    closing: list[Closer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(HANDLERS)
    handler = PythonWorkerHandler(PythonSpec.parse("python:faulty:crash"), WorkerOptions())
    closing.append(handler.close)
    assert isinstance(handler, Replaying)
    crash = handler.call({})
    assert (crash.kind, crash.cause) == (OutcomeKind.CRASH, "KeyError")
    first = handler.worker_pid
    assert first is not None
    handler.restart()
    assert process_gone(first)
    handler.call({})
    assert handler.worker_pid not in (None, first)


def test_python_worker_scale_timeout(
    closing: list[Closer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(HANDLERS)
    options = WorkerOptions(timeout_s=0.2)
    handler = PythonWorkerHandler(PythonSpec.parse("python:faulty:hang"), options)
    closing.append(handler.close)
    handler.scale_timeout(2.0)
    timed_out = handler.call({})
    assert timed_out.kind is OutcomeKind.TIMEOUT
    assert timed_out.message == "no answer within 0.4 s"


def test_mcp_restart_and_the_json_rpc_code_as_cause(closing: list[Closer]) -> None:
    handler = McpHandler(HandlerConfig("mcp", target="error", argv=(sys.executable, PAGED)))
    closing.append(handler.close)
    assert isinstance(handler, Replaying)
    failed = handler.call({"code": -32000})
    assert (failed.kind, failed.cause) == (OutcomeKind.CRASH, "json-rpc -32000 failed on purpose")
    first = handler.server_pid
    assert first is not None
    handler.restart()
    assert process_gone(first)
    assert handler.call({}).cause == "json-rpc -32603 failed on purpose"
    assert handler.call({"code": -32001}).cause == "json-rpc -32001"  # a code of its own
    # -32603 is whatever a TypeScript tool threw: its words tell two bugs apart (they had one
    # fingerprint on a real server), not the input's values
    missing = {handler.call({"throw": "missing", "name": n}).cause for n in ("zed", "Ann Lee")}
    assert missing == {"json-rpc -32603 entity with name not found"}
    null = handler.call({"throw": "on-null"}).cause
    assert null == "json-rpc -32603 TypeError"  # as V8 words it, whichever property
    assert handler.server_pid not in (None, first)


def test_an_effects_probe_passes_the_seam_through(closing: list[Closer], tmp_path: Path) -> None:
    inner = command(closing, timeout_ms=300)
    handler = ProbedHandler(inner, DirectoryProbe(tmp_path))
    assert isinstance(handler, Replaying)
    handler.scale_timeout(3.0)
    assert handler.call({"sleep": 0.6}).kind is OutcomeKind.ACCEPTED
    first = inner.worker_pid
    handler.restart()
    assert first is not None and process_gone(first)
