"""The files a reviewer and CI read after `run --policy`: the PR comment body, SARIF, JUnit
and workflow annotations, rendered by `core.report` from the diff (or, without a baseline,
from a diff against nothing: every finding is new).

`comment.md` is the Markdown the action posts and puts in the step summary; `results.sarif`
goes to code scanning; `junit.xml` to test reporters; `annotations.txt` holds the
`::error` workflow commands a step prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolfuzz_gate.app.policy_plan import Written
from toolfuzz_gate.core.gate.causes import group_diff
from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, diff_sets, receipt_keys
from toolfuzz_gate.core.gate.verdict import Verdict
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.agent_fixes import agent_fix_rows
from toolfuzz_gate.core.report.annotations import render_annotations
from toolfuzz_gate.core.report.context import ReplayFrom, ReportContext, SchemaSource
from toolfuzz_gate.core.report.junit import render_junit
from toolfuzz_gate.core.report.markdown import render_markdown
from toolfuzz_gate.core.report.sarif import render_sarif
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.files import write_atomic
from toolfuzz_gate.edges.policy_file import LoadedPolicy

REPORT_FILES = ("comment.md", "results.sarif", "junit.xml", "annotations.txt")


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
) -> ReportContext:
    """What the renderers need beside the diff `document`: verdict, shas, seeds, the
    comment key, where each tool's schema lives, how to replay from the root, and the
    erroneous prompt sets of the `agent` receipts (when the gate ran agent mode)."""
    return ReportContext(
        failed=verdict.failed,
        reasons=tuple(verdict.reasons),
        head_sha=_sha(document.get("head")),
        base_sha=_sha(document.get("base")),
        seeds=tuple(sorted({int(str(item.receipt["seed"])) for item in written})),
        key=key,
        replay_from=replay_from or ReplayFrom(),
        sources={
            k: item.source
            for k, item in zip(receipt_keys([w.receipt for w in written]), written, strict=True)
            if item.source is not None
        },
        agent_fixes=agent_fix_rows(agent),
    )


def report_document(diff: JSONObject | None, head: ReceiptSet, each: bool = False) -> JSONObject:
    """The diff the reports show, read by root cause: `diff` (already grouped), or without a
    base a diff against nothing (every finding is new)."""
    if diff is not None:
        return diff
    return group_diff(diff_sets(ReceiptSet({}), head), head.receipts, each=each)


def write_reports(directory: Path, document: JSONObject, context: ReportContext) -> dict[str, str]:
    """Each report written into `directory`; returns each file's text by file name."""
    rendered = (
        render_markdown(document, context),
        render_sarif(document, context),
        render_junit(document, context),
        render_annotations(document, context),
    )
    for name, text in zip(REPORT_FILES, rendered, strict=True):
        write_atomic(directory / name, text.encode("utf-8"))
    return dict(zip(REPORT_FILES, rendered, strict=True))


def _sha(side: object) -> str | None:
    sha = side.get("sha") if isinstance(side, dict) else None
    return sha[:7] if isinstance(sha, str) and sha else None
