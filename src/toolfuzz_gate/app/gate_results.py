"""The verdict over a policy run's receipts, and what is written from it: `diff.json`,
`summary.json`, the reports, and the lines printed. Shared by `run --policy`, `merge` and
the action, so a merged run's summary is the unsharded run's, byte for byte.
The verdict is `core.gate.verdict.decide`, then the regression corpus's outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.agent_gate import AgentForGate, agent_for_gate
from toolfuzz_gate.app.policy_plan import receipt_set
from toolfuzz_gate.app.policy_replay import CorpusRun
from toolfuzz_gate.app.reports import build_report_context, report_document, write_reports
from toolfuzz_gate.app.written import Written, build_summary
from toolfuzz_gate.core.gate.causes import group_diff, root_cause_counts
from toolfuzz_gate.core.gate.policy_trust import Trust, with_trust
from toolfuzz_gate.core.gate.regression import gate_on_regressions
from toolfuzz_gate.core.gate.verdict import Verdict, decide
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.report.causes_console import render_causes
from toolfuzz_gate.core.report.context import ReplayFrom, ReportContext
from toolfuzz_gate.core.report.terminal import render_receipt_summary, render_refused_summary
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.exitcodes import ExitCode


@dataclass(frozen=True)
class GateOutcome:
    """What `gate` decided and wrote: the exit code, and the diff document and report
    context the reports were rendered from (the action renders its comment from them)."""

    exit_code: ExitCode
    verdict: Verdict
    document: JSONObject
    context: ReportContext
    reports: Mapping[str, str]
    """Each report's text by file name, as written (the action publishes them)."""


def gate(
    loaded: LoadedPolicy,
    written: Sequence[Written],
    diff: JSONObject | None,
    directory: Path,
    out: TextIO,
    corpus: CorpusRun,
    key: str = "default",
    *,
    agent: AgentForGate | None = None,
    trust: Trust | None = None,
    environ: Mapping[str, str] | None = None,
) -> GateOutcome:
    """The verdict over `written` (and the diff, and the replayed regression corpus):
    `diff.json`, `summary.json` and the reports written into `directory`, the receipts and
    reasons printed; `key` is the PR comment's key. `agent`: what agent mode gave when the
    caller ran it already (else it runs here when `fail_on` asks); `trust`: what the run
    found the pull request tried against the gate itself (`core.gate.policy_trust`);
    `environ`: where agent mode reads the model's key (the command line's environment)."""
    tried = (
        agent
        if agent is not None
        else agent_for_gate(loaded, written, directory, out, environ or {})
    )
    trust = trust or Trust()
    head = [item.receipt for item in written]
    receipts = receipt_set(written)
    each = loaded.policy.gate.instances == "each"
    if diff is not None:
        diff = group_diff(diff, receipts.receipts, each=each)
    verdict = with_trust(
        gate_on_regressions(
            decide(
                loaded.policy.gate,
                head,
                diff,
                tried.receipts,
                agent_unavailable=tried.unavailable,
                agent_base=tried.base,
            ),
            corpus.replayed,
        ),
        trust,
    )
    if diff is not None:
        write_document(directory / "diff.json", diff)
    document = report_document(diff, receipts, each)
    summary = build_summary(verdict, written)
    summary["regressions"] = corpus.summary()
    summary["rootCauses"] = root_cause_counts(document)
    write_document(directory / "summary.json", summary)
    context = replace(
        build_report_context(
            document,
            verdict,
            written,
            key,
            replay_from_root(loaded, directory),
            tried.receipts,
            tried.base,
        ),
        trust=trust.changed,
    )
    reports = write_reports(directory, document, context)
    for item in written:
        print(render_written(item), file=out)
    for line in render_causes(document):
        print(line, file=out)
    for reason in verdict.reasons:
        print(f"  - {reason}", file=out)
    print(f"gate: {'FAILED' if verdict.failed else 'passed'}", file=out)
    exit_code = ExitCode.FAILED if verdict.failed else ExitCode.PASSED
    if tried.unavailable is not None and loaded.policy.gate.agent_unjudged == "fail":
        exit_code = ExitCode.MODEL  # every report is written; the exit code names the cause
    return GateOutcome(exit_code, verdict, document, context, reports)


def replay_from_root(loaded: LoadedPolicy, directory: Path) -> ReplayFrom:
    """How a reviewer replays these receipts from the repository root: the receipts
    directory and the policy as paths from the root (absolute when outside it)."""
    root = loaded.root.resolve()

    def shown(path: Path) -> str:
        found = path.resolve()
        return str(found.relative_to(root)) if found.is_relative_to(root) else str(found)

    return ReplayFrom(shown(directory), loaded.file and shown(Path(loaded.file)))


def render_written(item: Written) -> str:
    """The receipt's summary lines, or, for a refused tool, each reason it was refused
    (code, pointer, line, message and hint, as the console prints a schema error)."""
    if not item.refused:
        return render_receipt_summary(item.receipt, item.file)
    return render_refused_summary(item.receipt, item.file)
