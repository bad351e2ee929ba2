"""What the action publishes: the PR comment (rendered at shrinking budgets, upserted over
the REST API; anything that stops it is a warning, never the verdict), the step summary and
the step's outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from toolfuzz_gate.app.progress import emit
from toolfuzz_gate.app.reports import REPORTS
from toolfuzz_gate.core.github.action_inputs import ActionInputs
from toolfuzz_gate.core.github.workflow_commands import step_outputs, warning_command
from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.markdown import comment_bodies, marker
from toolfuzz_gate.core.report.untrusted import markdown_text
from toolfuzz_gate.edges.actions_env import Runner, write_outputs, write_summary
from toolfuzz_gate.edges.github.client import GitHubClient
from toolfuzz_gate.edges.github.comments import find_author, upsert_comment
from toolfuzz_gate.errors import GitHubError


@dataclass(frozen=True)
class Posted:
    url: str | None
    note: str = ""


COMMENT_OFF = Posted(None, "the comment input is off: no PR comment")


def not_posted(note: str, out: TextIO) -> Posted:
    """No comment, for a reason the step's log shows as a warning."""
    emit(out, warning_command(f"toolfuzz-gate: {note}"))
    return Posted(None, note)


COMMENT_DEADLINE_S = 180.0
"""The most the comment may take, retries and rate-limit waits included: the verdict is
already decided and never waits longer on GitHub."""
REQUEST_DEADLINE_S = 60.0


def build_client(runner: Runner, token: str) -> GitHubClient:
    return GitHubClient(
        runner.api_url, token, request_deadline=REQUEST_DEADLINE_S, deadline=COMMENT_DEADLINE_S
    )


def post_comment(
    runner: Runner,
    inputs: ActionInputs,
    number: int,
    document: Mapping[str, Any],
    context: ReportContext,
    out: TextIO,
) -> Posted:
    """Upsert the comment on PR `number`; a failure is printed as a warning."""
    if not inputs.token:
        return not_posted("no github-token: no PR comment", out)
    assert inputs.comment != "off"
    try:
        client = build_client(runner, inputs.token)
        try:
            result = upsert_comment(
                client,
                runner.repository,
                number,
                comment_bodies(document, context),
                marker(context),
                inputs.comment,
                find_author(client, inputs.comment_author),
            )
        finally:
            for line in client.retries:
                print(f"comment: retried {line}", file=out)
            client.close()
    except GitHubError as error:
        note = f"the PR comment could not be posted ({error.code}): {error.message}"
        return not_posted(note, out)
    for line in result.notes:
        print(f"comment: {line}", file=out)
    return Posted(result.url, f"PR comment {result.action}: {result.url}")


def finish(
    runner: Runner,
    body: str,
    document: Mapping[str, Any],
    failed: bool,
    posted: Posted,
    where: str,
    out: TextIO,
) -> None:
    """The step summary (the comment `body`, and what happened to the comment) and the
    outputs; `where` is the results directory, workspace-relative as later steps on the
    host see it."""
    # the note can quote GitHub's own error message: Markdown-inert, as any untrusted text
    note = f"\n> {markdown_text(posted.note, 2000)}\n" if posted.note else ""
    write_summary(runner, body + note)
    if posted.note:
        print(f"comment: {posted.note}", file=out)
    paths = {report.output: f"{where}/{report.file}" for report in REPORTS if report.output}
    write_outputs(runner, step_outputs(document, failed, where, paths, posted.url or ""))
