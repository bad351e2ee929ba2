"""`lint`: compile declared tools without running anything, and report what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.requests import LintRequest
from toolfuzz_gate.core.campaign.stateful.links import listed_graph
from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_document
from toolfuzz_gate.core.lint.tool_report import (
    ToolReport,
    render_lint_json,
    render_lint_text,
    report_tool,
    unreadable,
)
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.files import load_json
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.errors import InputFileError, ToolfuzzError, ToolsError, UsageError
from toolfuzz_gate.exitcodes import ExitCode


def lint_reports(request: LintRequest) -> list[ToolReport]:
    """One report per declared tool; a file that yields no tools is one error report."""
    if not request.files and not request.models:
        raise UsageError("lint needs a FILE or --model MODULE:CLASS")
    reports: list[ToolReport] = []
    sources: list[tuple[str, list[ToolDeclaration], dict[str, int]]] = []
    for path in request.files:
        try:
            declared = load_declarations(path)
        except InputFileError as error:
            reports.append(unreadable(str(path), error.code, error.message))
            continue
        except ToolsError as error:
            reports.append(
                unreadable(str(path), error.code, error.detail, error.pointer or "", error.line)
            )
            continue
        sources.append((declared.file, declared.tools, declared.lines))
    for reference in request.models:
        try:
            sources.append((f"--model {reference}", [load_model_tool(reference)], {}))
        except ToolsError as error:
            reports.append(unreadable(f"--model {reference}", error.code, error.detail))
    options = request.options
    for file, tools, lines in sources:
        reports.extend(
            report_tool(tool, file=file, lines=lines, dialect=request.dialect, options=options)
            for tool in tools
        )
    return reports


def _stateful_graph(path: Path) -> list[str]:
    """The kinds and links a stateful campaign would infer among an MCP tools file's tools
    (`core.campaign.stateful.links.listed_graph`), when it has two or more."""
    try:
        document = load_json(path, what="tools file")
    except ToolfuzzError:
        return []
    return listed_graph(document)


def lint(request: LintRequest, out: TextIO) -> ExitCode:
    reports = lint_reports(request)
    if request.format == "json":
        document: JSON = render_lint_json(reports)
        out.write(canonical_document(document).decode("utf-8"))
    else:
        print(render_lint_text(reports), file=out)
        for path in request.files:
            graph = _stateful_graph(path)
            if graph:
                print(f"stateful graph of {path} (kinds, then links):", file=out)
                print("\n".join(f"  {line}" for line in graph), file=out)
    return ExitCode.PASSED if all(r.clean for r in reports) else ExitCode.USAGE
