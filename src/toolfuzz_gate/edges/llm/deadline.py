"""Deadlines on the model endpoint: one for each request, one for the run (edge).

The client's timeouts bound each socket operation, not a request: an endpoint that drips
its answer a byte at a time never trips the read timeout, and a dead one makes every
request run its attempts to the end (a measured run: 252 s for one dripping request, 489 s
for a dead endpoint). Here each request, its retries and the waits between them included,
runs in a worker thread the caller stops waiting for at the request's deadline
(`llm.request_deadline_s`) or the run's (`llm.run_deadline_s`, from the first request),
whichever comes first; then the run stops with `llm.request-deadline` or
`llm.run-deadline`. The abandoned worker is told to stop at its next retry, and its socket
ends with the client's session, which the run closes on the error (a deadline ends the
run, so the flag that stops it is the run's).

The client's wait between attempts (`wait_then`) is also where a retry is counted against
`llm.max_requests` (`ModelSession.retried`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from toolfuzz_gate.core.agent.session import Transport
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.errors import LlmError

Clock = Callable[[], float]


class Deadlines:
    """The request and run deadlines of one agent run against an endpoint."""

    def __init__(self, settings: LlmSettings, clock: Clock = time.monotonic) -> None:
        self._request_s = settings.request_deadline_s
        self._run_s = settings.run_deadline_s
        self._clock = clock
        self._run_ends: float | None = None
        self._abandoned = threading.Event()

    def bound(self, transport: Transport) -> Transport:
        """`transport`, each call of it given up at its deadline."""

        def call(body: JSONObject) -> JSON:
            now = self._clock()
            if self._run_ends is None:
                self._run_ends = now + self._run_s
            left = self._run_ends - now
            if left <= 0:
                raise self._run_error()
            limit = min(self._request_s, left)
            done: list[JSON] = []
            failed: list[BaseException] = []

            def work() -> None:
                try:
                    done.append(transport(body))
                except BaseException as error:  # handed to the caller's thread
                    failed.append(error)

            worker = threading.Thread(target=work, name="toolfuzz-llm-request", daemon=True)
            worker.start()
            worker.join(limit)
            if worker.is_alive():
                self._abandoned.set()
                raise self._request_error() if limit == self._request_s else self._run_error()
            if failed:
                raise failed[0]
            return done[0]

        return call

    def wait_then(
        self, retried: Callable[[], None], sleep: Callable[[float], None]
    ) -> Callable[[float], None]:
        """The client's wait before an attempt after the first: the retry counted
        (`retried`, which raises when the budget is spent), then `sleep`; a worker its
        caller gave up on stops here instead of trying again."""

        def wait(seconds: float) -> None:
            self._stop_if_abandoned()
            retried()
            sleep(seconds)
            self._stop_if_abandoned()

        return wait

    def _stop_if_abandoned(self) -> None:
        if self._abandoned.is_set():
            raise LlmError("the request was given up at its deadline", code="llm.request-deadline")

    def _request_error(self) -> LlmError:
        return LlmError(
            f"the model endpoint did not answer one request within {self._request_s:g} s "
            "(llm.request_deadline_s), its retries included",
            code="llm.request-deadline",
            hint="an endpoint that sends its answer very slowly, or a slow model: raise "
            "llm.request_deadline_s if it is only slow, else check the server",
        )

    def _run_error(self) -> LlmError:
        return LlmError(
            f"agent mode ran past its {self._run_s:g} s (llm.run_deadline_s), counted from its "
            "first request to the model endpoint",
            code="llm.run-deadline",
            hint="check that the endpoint answers at all (a dead one holds every request to "
            "its deadline); else raise llm.run_deadline_s, or lower agent.prompt_sets and "
            "agent.probes",
        )
