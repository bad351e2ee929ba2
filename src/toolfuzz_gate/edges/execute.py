"""Run one tool end to end: start its handler, fuzz, write the receipt and case log (edge)."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass
from pathlib import Path

from toolfuzz_gate.core.canonical import JSON, JSONObject
from toolfuzz_gate.core.fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.receipt import receipt_hash
from toolfuzz_gate.core.tool import ToolSpec
from toolfuzz_gate.edges.files import JsonLinesWriter, write_document
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler


@dataclass(frozen=True)
class ToolRun:
    schema: JSON
    handler: HandlerConfig
    tool: ToolSpec
    config: FuzzConfig
    replay_command: str


def execute(
    run: ToolRun,
    receipt_path: Path,
    cases_path: Path | None = None,
    *,
    diagnostics: bool = False,
) -> FuzzResult:
    """Fuzz and write the receipt. Diagnostics (durations, host) only when asked for:
    without them the file is byte-identical across runs, not just equal in hash."""
    sink = JsonLinesWriter(cases_path) if cases_path is not None else None
    try:
        with build_handler(run.handler) as handler:
            result = fuzz(
                run.schema,
                handler,
                run.tool,
                run.config,
                handler_label=run.handler.label(),
                replay_command=run.replay_command,
                sink=sink,
                clock=time.monotonic if diagnostics else None,
            )
    finally:
        if sink is not None:
            sink.close()
    notes = _handler_notes(handler)
    if notes:
        result.receipt["handlerNotes"] = notes
        result.receipt["receiptHash"] = receipt_hash(result.receipt)
    block = result.receipt.get("diagnostics")
    if isinstance(block, dict):
        block["host"] = {"python": platform.python_version(), "system": platform.system()}
    write_document(receipt_path, result.receipt)
    return result


def _handler_notes(handler: object) -> JSONObject:
    """What the adapter noticed about the handler beyond single calls (deterministic)."""
    handler = getattr(handler, "inner", handler)  # seen through an effects probe
    noise = getattr(handler, "stdout_noise", 0)
    if not isinstance(noise, int) or noise <= 0:
        return {}
    notes: JSONObject = {"stdoutNoiseLines": noise}
    sample = getattr(getattr(handler, "noise", None), "sample", None)
    if isinstance(sample, str):
        notes["stdoutNoiseSample"] = sample
    return notes
