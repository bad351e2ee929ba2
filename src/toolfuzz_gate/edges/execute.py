"""Run one tool end to end: start its handler, fuzz, write the receipt and case log (edge).

`attempt` is what every entry point runs per tool: a tool whose schema is refused, or
whose handler cannot be reached, gets its refused receipt and the caller goes on.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.refusal import Refusal, error_refusal, schema_refusals
from toolfuzz_gate.core.campaign.time_budget import earliest
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import (
    FuzzConfig,
    FuzzResult,
    fuzz,
    refusal,
    refused_receipt,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.edges.files import JsonLinesWriter, write_document
from toolfuzz_gate.edges.handlers import timing
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.registry import build_handler
from toolfuzz_gate.errors import HandlerError, SchemaError


@dataclass(frozen=True)
class ToolRun:
    schema: JSON
    handler: HandlerConfig
    tool: ToolSpec
    config: FuzzConfig
    replay_command: str
    run_ends_at: float | None = None
    """When the run's budget ends, on `time.monotonic` (None: the run has none)."""
    run_budget_s: float | None = None


@dataclass(frozen=True)
class SchemaLines:
    """Where a tool's schema sits in its file, to give refusals a line: pointer -> 1-based
    line for the file, and the schema's own pointer in it ("" when the file is the schema)."""

    lines: Mapping[str, int]
    root: str = ""


@dataclass(frozen=True)
class Attempt:
    """One tool's outcome: its receipt, whether it was refused, and the fuzz result when
    it ran."""

    receipt: Receipt
    refused: bool
    result: FuzzResult | None = None


def attempt(
    run: ToolRun,
    receipt_path: Path,
    cases_path: Path | None = None,
    *,
    diagnostics: bool = False,
    located: SchemaLines | None = None,
) -> Attempt:
    """Fuzz the tool and write its receipt, or, when its schema is refused or its handler
    cannot be used, write its refused receipt naming why."""
    lines, root = (located.lines, located.root) if located is not None else (None, "")
    problems = refusal(run.schema, run.config)
    if problems:
        return refuse(run, receipt_path, schema_refusals(problems, lines, root))
    try:
        result = execute(run, receipt_path, cases_path, diagnostics=diagnostics)
    except SchemaError as error:  # what only generation finds (a pattern it cannot sample)
        return refuse(run, receipt_path, schema_refusals(error.problems, lines, root))
    except HandlerError as error:
        return refuse(run, receipt_path, (error_refusal(error),))
    return Attempt(result.receipt, False, result)


def refuse(run: ToolRun, receipt_path: Path, reasons: tuple[Refusal, ...]) -> Attempt:
    """Write the refused receipt of `run` for `reasons`."""
    receipt = refused_receipt(
        run.schema,
        reasons,
        run.tool,
        run.config,
        handler_label=run.handler.label(),
        replay_command=run.replay_command,
    )
    write_receipt(receipt_path, receipt)
    return Attempt(receipt, True)


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
    budget = earliest(time.monotonic, run.config.budget_s, run.run_ends_at, run.run_budget_s)
    try:
        with timing.profiling() as profile, build_handler(run.handler) as handler:
            result = fuzz(
                run.schema,
                timing.timed(handler),
                run.tool,
                run.config,
                handler_label=run.handler.label(),
                replay_command=run.replay_command,
                sink=sink,
                clock=time.monotonic if diagnostics else None,
                budget=budget,
            )
    finally:
        if sink is not None:
            sink.close()
    receipt = result.receipt
    notes = handler.notes()
    if notes:
        receipt = receipt.with_notes(notes)
    if receipt.diagnostics is not None:
        import platform  # only for --diagnostics

        host: JSONObject = {"python": platform.python_version(), "system": platform.system()}
        block = replace(receipt.diagnostics, host=host, profile=profile.as_json())
        receipt = receipt.with_diagnostics(block)
    write_receipt(receipt_path, receipt)
    return replace(result, receipt=receipt)


def write_receipt(path: Path, receipt: Receipt) -> None:
    """Write `receipt`'s canonical bytes to `path`."""
    write_document(path, receipt.document())
