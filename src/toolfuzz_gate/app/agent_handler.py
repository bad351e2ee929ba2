"""The tool's handler as agent mode calls it: started (and reset) for each agent run when
the policy declares a reset, and each call judged as `replay` judges a case."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack

from toolfuzz_gate.app.tool_setup import ReplaySetup
from toolfuzz_gate.core.agent.loop import ToolResult
from toolfuzz_gate.core.agent.reachability import failure_record
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.campaign.outcome import Handler
from toolfuzz_gate.core.gate.regression import STILL_FAILING, RegressionCase, replay_case
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler


class Running:
    """The tool's handler for agent runs. A tool whose policy declares a reset
    (`reset_command`, `reset_tool`) gets a fresh handler, reset first, before each agent
    run calls it (`restart`): every run starts from the same state, as every seed does."""

    def __init__(self, config: HandlerConfig) -> None:
        self.config = config
        self.resets = bool(config.reset_command) or config.reset_tool is not None
        self._stack = ExitStack()
        self.handler: Handler = self._stack.enter_context(build_handler(config))
        self._used = False

    def restart(self) -> None:
        if not self._used:  # the handler just started (and reset) is still fresh
            self._used = True
            return
        self._stack.close()
        self._stack = ExitStack()
        self.handler = self._stack.enter_context(build_handler(self.config))

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def caller(
    make_case: Callable[[JSONObject, bool], RegressionCase],
    unjudged: bool,
    running: Running,
    setup: ReplaySetup,
    fingerprinted: bool = False,
) -> Callable[[JSONObject], ToolResult]:
    """Runs one agent call on the handler and judges it as `make_case` (arguments,
    validity) says; `unjudged` is the validity assumed when the engine refused the schema.
    `fingerprinted`: the case is a finding's, and the record says whether the call
    reproduced it (`reproduces`: its failure class, path and cause)."""

    def call(arguments: JSONObject) -> ToolResult:
        bound = setup.spec.with_fixed(arguments)  # `fixed_arguments`: every call carries them
        if isinstance(bound, dict):
            arguments = bound
        valid = setup.judge(arguments) if setup.judge is not None else unjudged
        return _judged(make_case(arguments, valid), valid, running, setup, fingerprinted)

    return call


def verbatim(case: RegressionCase, running: Running, setup: ReplaySetup) -> ToolResult:
    """The finding's own call, run as is: does it still reproduce on its own?"""
    return _judged(case, case.valid, running, setup, True)


def _judged(
    case: RegressionCase, valid: bool, running: Running, setup: ReplaySetup, fingerprinted: bool
) -> ToolResult:
    replayed = replay_case(case, running.handler, setup.spec)
    said = bounded_message(" ".join(replayed.said.split()), 200)
    failures: list[JSON] = list(failure_record(replayed.findings))
    record: JSONObject = {"outcome": replayed.observed, "valid": valid, "failures": failures}
    if fingerprinted and case.failure is not Failure.UNDER_SPECIFIED:  # a note: its rejection
        record["reproduces"] = replayed.outcome == STILL_FAILING
    if said:
        record["said"] = said
    if replayed.output_text is not None:
        record["output"] = replayed.output_text
    shown = replayed.output_text if replayed.output_text is not None else said
    return ToolResult(replayed.observed + (f": {shown}" if shown else ""), record)
