"""`diff`: compare two receipt directories and print the diff as JSON or Markdown."""

from __future__ import annotations

from typing import TextIO

from toolfuzz_gate.app.requests import DiffRequest
from toolfuzz_gate.core.gate.causes import grouped_diff
from toolfuzz_gate.core.gate.receipt_diff import gate_failed
from toolfuzz_gate.core.jsonutil.canonical import canonical_document
from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.markdown import render_markdown
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.exitcodes import ExitCode


def diff(request: DiffRequest, out: TextIO) -> ExitCode:
    head = load_receipts(request.head)
    document = grouped_diff(load_receipts(request.base), head)
    if request.format == "json":
        out.write(canonical_document(document).decode("utf-8"))
    else:
        # the same body the PR comment has (`core.report.markdown`), verdict from the diff alone
        seeds = tuple(sorted({r.seed for r in head.receipts.values()}))
        context = ReportContext(failed=gate_failed(document), seeds=seeds)
        out.write(render_markdown(document, context))
    return ExitCode.FAILED if gate_failed(document) else ExitCode.PASSED
