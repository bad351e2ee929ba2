"""The handler contract's defaults and the shared JSON-lines loop, against a real child process."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator

import pytest

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_members import NO_NOTES, HandlerNotes
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.edges.effects import ProbedHandler
from toolfuzz_gate.edges.handlers.base import (
    ManagedHandler,
    Silence,
    encode_line,
    exchange,
    unanswered,
)
from toolfuzz_gate.edges.handlers.rlimits import Limits
from toolfuzz_gate.edges.handlers.worker_process import Stop, WorkerProcess

# Writes a log line, then answers each request line with the same line.
ECHO = (
    "import sys\n"
    "for line in sys.stdin:\n"
    "    print('log', flush=True)\n"
    "    print(line, end='', flush=True)\n"
)


class Quiet(ManagedHandler):
    closed = False

    def call(self, arguments: JSONObject) -> Outcome:
        return Outcome(OutcomeKind.ACCEPTED)

    def close(self) -> None:
        self.closed = True


class Noticing(Quiet):
    def notes(self) -> HandlerNotes:
        return HandlerNotes(stdout_noise_lines=2)


class Still:
    def snapshot(self) -> JSON:
        return 0


@pytest.fixture
def echo() -> Iterator[WorkerProcess]:
    with tempfile.TemporaryDirectory() as folder:
        process = WorkerProcess([sys.executable, "-c", ECHO], {}, folder)
        try:
            yield process
        finally:
            process.kill()


def test_the_contract_notes_nothing_and_closes_on_leaving() -> None:
    with Quiet() as handler:
        assert handler.notes() == NO_NOTES and not handler.notes()
    assert handler.closed


def test_an_effects_probe_passes_the_wrapped_handlers_notes_on() -> None:
    assert ProbedHandler(Noticing(), Still()).notes() == HandlerNotes(stdout_noise_lines=2)
    assert ProbedHandler(Quiet(), Still()).notes() == NO_NOTES


def test_exchange_passes_lines_by_until_one_is_the_answer(echo: WorkerProcess) -> None:
    seen: list[bytes] = []

    def answer(line: bytes) -> bytes | None:
        seen.append(line)
        return None if line == b"log" else line

    deadline = time.monotonic() + 10
    reply = exchange(echo, encode_line({"id": 1}), deadline, 100, answer)
    assert (reply, seen) == (b'{"id": 1}', [b"log", b'{"id": 1}'])


def test_an_overlong_answer_is_capped_at_the_limit_and_costs_the_process(
    echo: WorkerProcess,
) -> None:
    line = encode_line({"text": "x" * 500})
    reply = exchange(echo, line, time.monotonic() + 10, 100, lambda read: None)
    assert reply == Silence(Stop.OVERFLOW)
    outcome = unanswered(Stop.OVERFLOW, echo, 1.0, Limits())
    assert outcome == Outcome(OutcomeKind.ACCEPTED, output_capped=True, output_bytes=101)
    assert echo.exited() or echo.process.returncode is not None


def test_a_request_to_a_process_that_is_gone_was_never_read() -> None:
    with tempfile.TemporaryDirectory() as folder:
        gone = WorkerProcess([sys.executable, "-c", "pass"], {}, folder)
        try:
            while not gone.exited():
                time.sleep(0.01)
            reply = exchange(gone, b"{}\n", time.monotonic() + 10, 100, lambda read: read)
            assert reply == Silence(Stop.EOF, writing=True)
            assert unanswered(Stop.EOF, gone, 1.0, Limits()) is None
        finally:
            gone.kill()


def test_silence_past_the_deadline_is_a_timeout(echo: WorkerProcess) -> None:
    outcome = unanswered(Stop.TIMEOUT, echo, 0.25, Limits())
    # The process is killed for its silence: the call cost the handler its process.
    assert outcome == Outcome(OutcomeKind.TIMEOUT, message="no answer within 0.25 s", ended=True)
