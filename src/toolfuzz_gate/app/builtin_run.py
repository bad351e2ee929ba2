"""`run` without a policy: fuzz the built-in renderPoster contract (`app.front_doors`) and
gate it as `fuzz` gates a tool (`app.summary.gate_without_base`)."""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.front_doors import build_policy_spec, builtin_tool
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import BuiltinRunRequest
from toolfuzz_gate.app.summary import gate_without_base
from toolfuzz_gate.app.written import Written, receipt_name
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.report.terminal import render_receipt_summary
from toolfuzz_gate.edges.execute import ToolRun, execute
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.exitcodes import ExitCode


def builtin_tool_run(request: BuiltinRunRequest) -> ToolRun:
    tool = builtin_tool()
    return ToolRun(
        poster.SCHEMA,
        HandlerConfig.from_policy(tool.handler, tool.name, tool.options),
        build_policy_spec(tool, tool.options),
        request.config,
        build_replay_command(request.argv),
    )


def run_builtin(request: BuiltinRunRequest, out: TextIO) -> ExitCode:
    tool_run = builtin_tool_run(request)
    receipt_path = request.out / receipt_name(tool_run.tool.name)
    result = execute(tool_run, receipt_path, request.cases, diagnostics=request.diagnostics)
    print(render_receipt_summary(result.receipt, str(receipt_path)), file=out)
    written = [Written(result.receipt, receipt_path.name, False)]
    return gate_without_base(written, request.out, out, allow_unreached=False)
