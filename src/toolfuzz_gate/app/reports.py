"""The files a reviewer and CI read after `run --policy`: the PR comment body, SARIF, JUnit
and workflow annotations, rendered by `core.report` from the diff (or, without a baseline,
from a diff against nothing: every finding is new); and `diff BASE_DIR HEAD_DIR`, which
prints the same diff document, or the same comment body, for two stored receipt directories.

`REPORTS` is the one table of them: each report's file, its renderer and where the Action
publishes it. Code names a report by its entry (`COMMENT.file`), never by position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.requests import DiffRequest
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.causes import grouped_diff
from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, gate_failed, receipt_keys
from toolfuzz_gate.core.gate.verdict import Verdict
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_document
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.agent_fixes import agent_rows
from toolfuzz_gate.core.report.annotations import render_annotations
from toolfuzz_gate.core.report.context import ReplayFrom, ReportContext, SchemaSource
from toolfuzz_gate.core.report.junit import render_junit
from toolfuzz_gate.core.report.markdown import render_markdown
from toolfuzz_gate.core.report.sarif import render_sarif
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.files import write_atomic
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.exitcodes import ExitCode


@dataclass(frozen=True)
class Report:
    """One report file: its name in the output directory, the pure renderer that writes it
    from the diff document and the report context, and where the Action publishes it
    (`output`: the step output that gives its path, when one does)."""

    file: str
    render: Callable[[JSONObject, ReportContext], str]
    published: str
    output: str | None = None


COMMENT = Report("comment.md", render_markdown, "the PR comment and the step summary")
SARIF = Report("results.sarif", render_sarif, "the `sarif-path` output", "sarif-path")
JUNIT = Report("junit.xml", render_junit, "the `junit-path` output", "junit-path")
ANNOTATIONS = Report(
    "annotations.txt", render_annotations, "printed by the step: workflow commands"
)
REPORTS = (COMMENT, SARIF, JUNIT, ANNOTATIONS)
"""Every report `run --policy`, `merge` and the Action write, in the order they are written
(docs/reports-and-receipts.md's table of reports is held to it)."""


def schema_source(tool: ToolPolicy, loaded: LoadedPolicy) -> SchemaSource:
    """Where `tool`'s schema sits: its file relative to the root, the schema's pointer in
    it, and each pointer's line. A schema that lives in a server or a model has no file in
    the repository: reports point at the tool's entry in the policy instead."""
    if tool.schema is not None:
        path = Path(tool.schema)
        return SchemaSource(_relative(path, loaded), line_index(path.read_text("utf-8")))
    if tool.tools is not None:
        declared = load_declarations(Path(tool.tools))
        pointer = next((t.pointer for t in declared.tools if t.name == tool.pick), "")
        return SchemaSource(_relative(Path(tool.tools), loaded), declared.lines, pointer)
    entry = loaded.lines.get(tool.pointer, 1)
    return SchemaSource(_relative(Path(loaded.file), loaded), {"": entry})


def _relative(path: Path, loaded: LoadedPolicy) -> str:
    try:
        return path.resolve().relative_to(loaded.root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def build_report_context(
    document: JSONObject,
    verdict: Verdict,
    written: Sequence[Written],
    key: str = "default",
    replay_from: ReplayFrom | None = None,
    agent: Sequence[JSONObject] = (),
    agent_base: Sequence[JSONObject] | None = None,
) -> ReportContext:
    """What the renderers need beside the diff `document`: verdict, shas, seeds, the
    comment key, where each tool's schema lives, how to replay from the root, and the
    findings of the `agent` receipts (when the gate ran agent mode), against the base's
    `agent_base` when those were at hand."""
    reached, fixes = agent_rows(agent, agent_base)
    return ReportContext(
        failed=verdict.failed,
        reasons=tuple(verdict.reasons),
        head_sha=_sha(document.get("head")),
        base_sha=_sha(document.get("base")),
        seeds=tuple(sorted({item.receipt.seed for item in written})),
        key=key,
        replay_from=replay_from or ReplayFrom(),
        sources={
            k: item.source
            for k, item in zip(receipt_keys([w.receipt for w in written]), written, strict=True)
            if item.source is not None
        },
        agent_fixes=fixes,
        agent_reached=reached,
    )


def report_document(diff: JSONObject | None, head: ReceiptSet, each: bool = False) -> JSONObject:
    """The diff the reports show, read by root cause: `diff` (already grouped), or without a
    base a diff against nothing (every finding is new)."""
    if diff is not None:
        return diff
    return grouped_diff(ReceiptSet({}), head, each=each)


def write_reports(directory: Path, document: JSONObject, context: ReportContext) -> dict[str, str]:
    """Each report written into `directory`; returns each file's text by file name."""
    written: dict[str, str] = {}
    for report in REPORTS:
        text = written[report.file] = report.render(document, context)
        write_atomic(directory / report.file, text.encode("utf-8"))
    return written


def _sha(side: object) -> str | None:
    sha = side.get("sha") if isinstance(side, dict) else None
    return sha[:7] if isinstance(sha, str) and sha else None


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
