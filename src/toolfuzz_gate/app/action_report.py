"""`mode: report`: the second workflow of the workflow_run pattern, for pull requests from
forks. It runs no code from the pull request and posts no Markdown the pull request wrote,
but the results are the first run's, which the fork controls: the comment is labelled as
"reported by the pull request's own run".
The comment is rendered here from the first workflow's receipts (JSON, checked like any
receipt), with its agent sections from the agent receipts in `agent/` when that run ran
agent mode, the verdict is the first workflow's conclusion as GitHub reports it, and the PR
number (from the event, else the results' `pr.json`) must name a pull request whose head
is the commit the first workflow ran on.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from toolfuzz_gate.app.action_publish import (
    COMMENT_OFF,
    Posted,
    build_client,
    finish,
    not_posted,
    post_comment,
)
from toolfuzz_gate.app.reports import COMMENT
from toolfuzz_gate.core.gate.causes import grouped_diff
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, Revision
from toolfuzz_gate.core.github.action_inputs import ActionInputs
from toolfuzz_gate.core.github.event import Event
from toolfuzz_gate.core.github.names import is_issue_number
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.report.agent_fixes import agent_rows
from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.markdown import render_markdown
from toolfuzz_gate.edges.actions_env import Runner, in_workspace
from toolfuzz_gate.edges.agent_receipts import AGENT_DIRECTORY, load_agent_receipts
from toolfuzz_gate.edges.files import load_json, refuse_symlinks, write_atomic
from toolfuzz_gate.edges.github.pulls import pull_request_head
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.errors import GitHubError, InputFileError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

MAX_PR_FILE_BYTES = 4096
AgentRows = tuple[Mapping[str, Any], ...]
REPORTED_BY = "reported by the pull request's own run"
"""The report's heading says so: a fork controls that run, so its receipts can be forged
(a receipt's hash is no signature), and only the verdict of a run the fork cannot alter
(branch protection on the gate's own job) can block a merge."""


def report_action(runner: Runner, inputs: ActionInputs, event: Event, out: TextIO) -> ExitCode:
    if event.name != "workflow_run" or event.run_head_sha is None:
        raise UsageError(
            "mode report runs in a workflow triggered by workflow_run (it comments on the "
            f"first workflow's results); this is a {event.name} event",
            hint="use mode: run (the default) in the workflow that runs on pull_request",
        )
    results = in_workspace(runner.workspace, "results-dir", inputs.results_dir)
    refuse_symlinks(results, "input results-dir")  # a fork's artifact: read nothing through one
    document = report_document(results, event.run_head_sha)
    failed = event.run_conclusion != "success"
    reached, fixes = report_agent_rows(results)
    context = ReportContext(
        failed=failed,
        reasons=(f"the gate's workflow concluded {event.run_conclusion or 'without a result'}",),
        head_sha=event.run_head_sha[:7],
        seeds=_seeds(document),
        key=inputs.comment_key,
        reported_by=REPORTED_BY,
        agent_fixes=fixes,
        agent_reached=reached,
    )
    # the body goes beside the downloaded results, never over a file they brought
    directory = in_workspace(runner.workspace, "output-dir", f"{inputs.output_dir}/report")
    directory.mkdir(parents=True, exist_ok=True)
    body = render_markdown(document, context)
    write_atomic(directory / COMMENT.file, body.encode("utf-8"))
    posted = _post(runner, inputs, event, results, document, context, out)
    finish(runner, body, document, failed, posted, inputs.results_dir, out)
    return ExitCode.PASSED


def report_document(results: Path, head_sha: str) -> JSONObject:
    """The diff the comment shows: the results' receipts against their `base/`, each
    checked as any receipt is (a forged or edited one is an error naming it)."""
    head = load_receipts(results)
    if not head.receipts:
        raise InputFileError(
            f"{results} holds no receipts",
            hint="download the first workflow's output-dir artifact into results-dir",
        )
    base = results / "base"
    return grouped_diff(
        load_receipts(base) if base.is_dir() else ReceiptSet({}),
        head,
        base_ref=Revision("base", None),
        head_ref=Revision("HEAD", head_sha),
    )


def report_agent_rows(results: Path) -> tuple[AgentRows, AgentRows]:
    """The comment's agent sections from the first run's agent receipts (`agent/` in the
    results, each checked as any agent receipt is), diffed against `base/agent/` when the
    results have one; none when that run did not run agent mode."""
    head = load_agent_receipts(results / AGENT_DIRECTORY)
    if head is None:
        return (), ()
    return agent_rows(head, load_agent_receipts(results / "base" / AGENT_DIRECTORY))


def _seeds(document: JSONObject) -> tuple[int, ...]:
    tools: Any = document.get("tools", [])
    seeds = set()
    for entry in tools if isinstance(tools, list) else []:
        head = entry.get("head") if isinstance(entry, dict) else None
        seed = head.get("seed") if isinstance(head, dict) else None
        if isinstance(seed, int):
            seeds.add(seed)
    return tuple(sorted(seeds))


def _post(
    runner: Runner,
    inputs: ActionInputs,
    event: Event,
    results: Path,
    document: JSONObject,
    context: ReportContext,
    out: TextIO,
) -> Posted:
    if inputs.comment == "off":
        return COMMENT_OFF
    numbers = event.run_pull_requests or _numbers_from_results(results)
    if not numbers:
        return Posted(None, "the first workflow's results name no pull request: no PR comment")
    if not inputs.token:
        return post_comment(runner, inputs, numbers[0], document, context, out)
    assert event.run_head_sha is not None
    try:
        with build_client(runner, inputs.token) as client:
            matching = [
                number
                for number in numbers[:10]
                if pull_request_head(client, runner.repository, number) == event.run_head_sha
            ]
    except GitHubError as error:
        note = f"cannot read pull request #{numbers[0]} ({error.code}): no PR comment"
        return not_posted(note, out)
    if matching:
        return post_comment(runner, inputs, matching[0], document, context, out)
    note = (
        f"pull request #{numbers[0]} does not have the head {event.run_head_sha[:12]} the "
        "gate ran on (a newer push, or a number that is not this run's): no PR comment"
    )
    return not_posted(note, out)


def _numbers_from_results(results: Path) -> tuple[int, ...]:
    path = results / "pr.json"
    if not path.is_file():
        return ()
    data = load_json(path, max_bytes=MAX_PR_FILE_BYTES, what="pull request file")
    number = data.get("number") if isinstance(data, dict) else None
    return (number,) if is_issue_number(number) else ()
