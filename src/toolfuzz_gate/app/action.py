"""`toolfuzz-gate action`: the GitHub Action's entrypoint. Reads the runner's variables, the
event and the `INPUT_*` inputs, runs the gate (or, in `mode: report`, only renders the
comment from a results directory), and hands the runner its outputs, step summary and
annotations. Exits with the verdict; a comment that cannot be posted is a warning.

The token is masked first and then only handed to the REST client: it is never printed,
written to a file or given to a handler (`edges.handlers.environment` refuses it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.action_publish import COMMENT_OFF, Posted, finish, post_comment
from toolfuzz_gate.app.action_report import report_action
from toolfuzz_gate.app.action_trust import (
    agent_on_trusted_cassette,
    governed_policy,
    guard_run,
)
from toolfuzz_gate.app.agent_gate import AgentForGate, with_stored_base
from toolfuzz_gate.app.baseline import (
    BASE_RECEIPTS,
    HeadReceipts,
    rerun_baseline_diff,
    stored_baseline_diff,
    wait_head,
)
from toolfuzz_gate.app.gate_results import GateOutcome
from toolfuzz_gate.app.jobs import Jobs
from toolfuzz_gate.app.model_key import keep_key_from_handlers
from toolfuzz_gate.app.policy_gate import run_gate
from toolfuzz_gate.app.policy_plan import override_values
from toolfuzz_gate.app.policy_replay import with_head_sample
from toolfuzz_gate.app.progress import emit, say_command
from toolfuzz_gate.app.reports import ANNOTATIONS, COMMENT
from toolfuzz_gate.app.requests import ActionRequest, PolicyRunRequest, RunOverrides
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.action_budget import with_action_budgets
from toolfuzz_gate.core.gate.policy_trust import Trust
from toolfuzz_gate.core.github.action_inputs import ActionInputs, read_inputs
from toolfuzz_gate.core.github.event import Event, parse_event
from toolfuzz_gate.core.github.workflow_commands import (
    error_command,
    mask_command,
    notice_command,
    warning_command,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.actions_env import (
    Runner,
    in_workspace,
    load_event,
    read_runner,
    write_outputs,
)
from toolfuzz_gate.edges.files import refuse_symlinks, write_document
from toolfuzz_gate.edges.git import Git, resolve_base
from toolfuzz_gate.edges.handlers.confine import Confinement, base_side, confine_handlers
from toolfuzz_gate.edges.policy_file import LoadedPolicy, load_policy
from toolfuzz_gate.edges.privileges import hand_back, invoker
from toolfuzz_gate.edges.runner_files import runner_private
from toolfuzz_gate.errors import GitError, ToolfuzzError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

PR_FILE = "pr.json"


def run_action(request: ActionRequest, out: TextIO) -> ExitCode:
    runner = read_runner(request.environ)
    try:
        inputs = read_inputs(request.environ)
        if runner.on_actions and inputs.token:
            emit(out, mask_command(inputs.token))
        _check_paths(runner, inputs)
        event = parse_event(runner.event_name, load_event(runner), runner.repository)
        if inputs.mode == "report":
            return report_action(runner, inputs, event, out)
        return _run(runner, inputs, event, out, request.environ)
    except ToolfuzzError as error:
        if runner.on_actions:
            emit(out, error_command(f"toolfuzz-gate: {error.message}"))
        write_outputs(runner, {"verdict": "error"})
        raise


def _check_paths(runner: Runner, inputs: ActionInputs) -> None:
    """Each path input stays in the workspace once symlinks are resolved."""
    for name, value in (
        ("policy", inputs.policy),
        ("output-dir", inputs.output_dir),
        ("results-dir", inputs.results_dir),
        ("baseline", inputs.baseline_dir),
    ):
        if value is not None:
            in_workspace(runner.workspace, name, value)


def _run(
    runner: Runner, inputs: ActionInputs, event: Event, out: TextIO, environ: Mapping[str, str]
) -> ExitCode:
    workspace = runner.workspace
    directory = in_workspace(workspace, "output-dir", inputs.output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    # every handler runs as an unprivileged user where the gate is root (`confine`), or
    # became root through the runner user's sudo (`privileges`)
    try:
        refuse_symlinks(directory, "input output-dir")
        return _confined_run(runner, inputs, event, out, environ, directory)
    finally:
        hand_back(directory)  # the runner's user's again, once the gate became root for it


def _confined_run(
    runner: Runner,
    inputs: ActionInputs,
    event: Event,
    out: TextIO,
    environ: Mapping[str, str],
    directory: Path,
) -> ExitCode:
    workspace = runner.workspace
    sudo_for = invoker()
    private = runner_private(environ)  # earlier steps' file commands and scripts
    with confine_handlers(workspace, widen=sudo_for is not None, withhold=private) as confinement:
        if confinement.note is not None:
            say_command(out, warning_command(f"toolfuzz-gate: {confinement.note}"))
        if sudo_for is not None:
            say_command(
                out, notice_command(f"toolfuzz-gate: {_became_root(sudo_for, confinement)}")
            )
        guard = guard_run(environ, workspace)  # before the first handler starts
        # what a developer types in a checkout to reproduce the run (receipts name it)
        argv = ("run", "--policy", inputs.policy, *_override_flags(inputs))
        run = PolicyRunRequest(
            policy=in_workspace(workspace, "policy", inputs.policy),
            out=directory,
            root=workspace,
            overrides=RunOverrides(seed=inputs.seed, runs=inputs.runs),
            argv=argv,
            jobs=inputs.jobs,
            environ=environ,
        )
        git = Git(workspace, safe_directory=str(workspace))
        ref = _base_ref(git, inputs, event, out)
        loaded, changed, key_names = governed_policy(
            _with_fail_on(load_policy(run.policy, run.root), inputs.fail_on), git, ref
        )
        loaded = replace(loaded, policy=with_action_budgets(loaded.policy))
        keep_key_from_handlers(loaded, environ, key_names)

        def base(head: HeadReceipts, replay: str, jobs: Jobs) -> JSONObject | None:
            """The diff against the base the `baseline` input names, or None (no base); its
            breaking interface changes tried on the head's handler, as `run --baseline`
            tries them."""
            overrides = override_values(run.overrides)
            with base_side():  # its handlers run as the base's own user (`confine`)
                stored = _stored_baseline(runner, inputs)
                if stored is not None:
                    diff = stored_baseline_diff(stored, wait_head(head), loaded, overrides)
                elif inputs.baseline == "none" or ref is None:
                    return None
                else:
                    keep = workspace / inputs.output_dir / BASE_RECEIPTS
                    diff = rerun_baseline_diff(
                        run, loaded, head, replay, out, git, ref, label="base", keep=keep,
                        jobs=jobs,
                    )  # fmt: skip
            return with_head_sample(diff, loaded, overrides)  # the head's handler, its user

        def after(written: list[Written]) -> tuple[AgentForGate, Trust]:
            if in_workspace(workspace, "output-dir", inputs.output_dir) != directory:
                raise UsageError(  # the handlers ran in the workspace: they could plant one
                    f"the output directory {inputs.output_dir!r} became a symlink during the run"
                )
            refuse_symlinks(directory, "input output-dir")
            agent, noted, advisory = agent_on_trusted_cassette(
                loaded, written, directory, out, environ, git, ref
            )
            agent = with_stored_base(agent, _stored_baseline(runner, inputs))
            failures = [*advisory, *guard.release()]  # every handler is reaped: agent mode's too
            if ref is not None and inputs.baseline == "rerun" and guard.lent_names:
                noted.append(
                    "the base ran with this pull request's installed dependencies "
                    f"({', '.join(guard.lent_names[:3])}), checked unchanged after the run"
                )
            return agent, Trust((*changed, *noted), tuple(failures))

        beside = inputs.baseline == "rerun"
        outcome = run_gate(
            loaded, run, out, base=base, beside=beside, after=after, key=inputs.comment_key
        )
    pull = event.pull_request
    if pull is not None:
        write_document(
            directory / PR_FILE,
            {"format": "toolfuzz-pr/1", "number": pull.number, "headSha": pull.head_sha},
        )
    for line in outcome.reports[ANNOTATIONS.file].splitlines():
        emit(out, line)  # the gate's own commands, their data escaped by `render_annotations`
    posted = _comment(runner, inputs, event, outcome, out)
    body = outcome.reports[COMMENT.file]
    failed = outcome.verdict.failed
    finish(runner, body, outcome.document, failed, posted, inputs.output_dir, out)
    return outcome.exit_code


def _became_root(sudo_for: tuple[int, int], confinement: Confinement) -> str:
    said = (
        f"the gate became root through sudo (uid {sudo_for[0]} may sudo without a password) "
        "to run handlers as unprivileged users; what it wrote in the output directory is "
        "that user's again afterwards"
    )
    if confinement.widened:
        said += (
            "; made searchable by others for the run, so handlers can reach the workspace: "
            + ", ".join(confinement.widened)
        )
    if confinement.withheld:
        said += "; closed to others for the run: " + ", ".join(confinement.withheld)
    return said


def _override_flags(inputs: ActionInputs) -> list[str]:
    flags: list[str] = []
    if inputs.seed is not None:
        flags += ["--seed", str(inputs.seed)]
    if inputs.runs is not None:
        flags += ["--runs", str(inputs.runs)]
    return flags


def _with_fail_on(loaded: LoadedPolicy, fail_on: tuple[str, ...] | None) -> LoadedPolicy:
    if fail_on is None:
        return loaded
    rules = replace(loaded.policy.gate, fail_on=fail_on)
    return replace(loaded, policy=replace(loaded.policy, gate=rules))


def _base_ref(git: Git, inputs: ActionInputs, event: Event, out: TextIO) -> str | None:
    """The base commit: a pull request's, a push's `before`, or None (no base)."""
    if event.pull_request is not None:
        try:
            found = resolve_base(git, event.pull_request.base_ref, event.pull_request.base_sha)
        except GitError:
            if inputs.baseline == "rerun":
                raise
            return None  # a stored or no baseline needs no history
        if found.warning:
            say_command(out, notice_command(f"toolfuzz-gate: {found.warning}"))
        return found.sha
    if event.before is not None:
        return event.before
    say_command(
        out,
        notice_command(
            f"toolfuzz-gate: a {event.name} event has no base commit; gating on this "
            "commit's findings alone"
        ),
    )
    return None


def _stored_baseline(runner: Runner, inputs: ActionInputs) -> Path | None:
    """The stored baseline's directory (`baseline: dir:PATH`), else None."""
    if inputs.baseline != "dir" or inputs.baseline_dir is None:
        return None
    return in_workspace(runner.workspace, "baseline", inputs.baseline_dir)


def _comment(
    runner: Runner, inputs: ActionInputs, event: Event, outcome: GateOutcome, out: TextIO
) -> Posted:
    pull = event.pull_request
    if inputs.comment == "off":
        return COMMENT_OFF
    if pull is None:
        return Posted(None, f"a {event.name} event has no pull request to comment on")
    if pull.from_fork:
        return Posted(
            None,
            "a pull request from a fork gets a read-only token: no PR comment (the summary, "
            "annotations and output directory have everything; the workflow_run report "
            "workflow can comment, see the README)",
        )
    return post_comment(runner, inputs, pull.number, outcome.document, outcome.context, out)
