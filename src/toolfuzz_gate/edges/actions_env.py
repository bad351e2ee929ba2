"""The GitHub Actions runner's side of a step: the variables it sets, the event file, and
the files a step appends to (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`) (edge).

Every file the runner names is untrusted input or a shared sink: the event is read bounded,
outputs are written in delimited form with a random delimiter drawn here, and the summary
is appended (other steps' summaries stay).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolfuzz_gate.core.github.workflow_commands import render_outputs
from toolfuzz_gate.edges.files import load_json
from toolfuzz_gate.errors import UsageError

MAX_SUMMARY_BYTES = 1024 * 1024
"""GitHub's limit for one step's summary."""


@dataclass(frozen=True)
class Runner:
    """The runner variables the action reads (`GITHUB_*`), each checked where it is used."""

    event_name: str
    event_path: str | None
    workspace: Path
    repository: str
    api_url: str
    output_file: str | None
    summary_file: str | None
    on_actions: bool
    """Is this a real Actions runner (GITHUB_ACTIONS=true), which reads workflow commands?"""


def read_runner(environ: Mapping[str, str]) -> Runner:
    name = environ.get("GITHUB_EVENT_NAME", "")
    if not name:
        raise UsageError(
            "GITHUB_EVENT_NAME is not set: `toolfuzz-gate action` runs inside GitHub Actions",
            hint="outside Actions, use `toolfuzz-gate run --policy FILE --baseline auto`",
        )
    return Runner(
        event_name=name,
        event_path=environ.get("GITHUB_EVENT_PATH") or None,
        workspace=Path(environ.get("GITHUB_WORKSPACE") or ".").resolve(),
        repository=environ.get("GITHUB_REPOSITORY", ""),
        api_url=(environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/"),
        output_file=environ.get("GITHUB_OUTPUT") or None,
        summary_file=environ.get("GITHUB_STEP_SUMMARY") or None,
        on_actions=environ.get("GITHUB_ACTIONS") == "true",
    )


def in_workspace(workspace: Path, name: str, relative: str) -> Path:
    """`workspace / relative` with every symlink resolved; a path that leaves the workspace
    that way is refused (the inputs were checked as text, which a symlink fools)."""
    root = workspace.resolve()
    resolved = (root / relative).resolve()
    if not resolved.is_relative_to(root):
        raise UsageError(
            f"input {name} ({relative[:200]!r}) leads out of the workspace through a symlink",
            hint="name a path inside the workspace that is not, or does not pass, a symlink "
            "leading out of it",
        )
    return resolved


def load_event(runner: Runner) -> Any:
    """The event payload (None when the runner names no event file)."""
    if runner.event_path is None:
        return None
    return load_json(Path(runner.event_path), what="GitHub event")


def write_outputs(runner: Runner, outputs: Mapping[str, str]) -> None:
    """Append `outputs` to `GITHUB_OUTPUT` (nothing when the runner names no file)."""
    if runner.output_file is None:
        return
    delimiter = f"toolfuzz_{secrets.token_hex(16)}"
    while any(delimiter in value for value in outputs.values()):
        delimiter = f"toolfuzz_{secrets.token_hex(16)}"
    _append(runner.output_file, render_outputs(outputs, delimiter))


def write_summary(runner: Runner, markdown: str) -> None:
    """Append `markdown` to the step summary, cut to what GitHub accepts for one step."""
    if runner.summary_file is None:
        return
    data = markdown.encode("utf-8")[:MAX_SUMMARY_BYTES]
    _append(runner.summary_file, data.decode("utf-8", errors="ignore"))


def _append(file: str, text: str) -> None:
    with open(file, "a", encoding="utf-8", newline="\n") as sink:
        sink.write(text)
