"""`run` without a policy: fuzz the built-in renderPoster contract and pick the verdict."""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import BuiltinRunRequest
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.report.terminal import render_receipt_summary
from toolfuzz_gate.edges.execute import ToolRun, execute
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.edges.handlers.builtin import SPEC as BUILTIN_SPEC
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.exitcodes import ExitCode


def builtin_tool_run(request: BuiltinRunRequest) -> ToolRun:
    tool = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
        # The built-in contract is a pure function whose schema says everything.
        checks=resolve_checks(deterministic=True, strict=True),
    )
    return ToolRun(
        poster.SCHEMA,
        HandlerConfig.from_spec(BUILTIN_SPEC),
        tool,
        request.config,
        build_replay_command(request.argv),
    )


def run_builtin(request: BuiltinRunRequest, out: TextIO) -> ExitCode:
    tool_run = builtin_tool_run(request)
    receipt_path = request.out / f"{tool_run.tool.name}.json"
    result = execute(tool_run, receipt_path, request.cases, diagnostics=request.diagnostics)
    verdict = ExitCode.FAILED if result.counterexamples else ExitCode.PASSED
    summary: JSONObject = {
        "format": "toolfuzz-summary/1",
        "verdict": "failed" if verdict else "passed",
        "tools": [
            {
                "tool": tool_run.tool.name,
                "receipt": receipt_path.name,
                "receiptHash": result.receipt.receipt_hash,
                "counterexamples": len(result.counterexamples),
                "coverage": dict[str, JSON](result.receipt.coverage),
            }
        ],
    }
    write_document(request.out / "summary.json", summary)
    print(render_receipt_summary(result.receipt, str(receipt_path)), file=out)
    print(f"gate: {'FAILED' if verdict else 'passed'}", file=out)
    return verdict
