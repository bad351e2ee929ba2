"""A bug in the gate: the short message on stderr, and the traceback in a file the user can
attach to a report (the output directory's `internal-error.txt`, else a temporary file) and,
on an Actions runner, in the step summary."""

from __future__ import annotations

import re
import tempfile
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.core.github.action_inputs import workspace_path
from toolfuzz_gate.core.report.untrusted import BLOCK_CAP, fence
from toolfuzz_gate.edges.actions_env import in_workspace
from toolfuzz_gate.edges.secrets import is_secret
from toolfuzz_gate.errors import ToolfuzzError

TRACEBACK_FILE = "internal-error.txt"


def report_internal_error(
    error: BaseException,
    argv: Sequence[str],
    environ: Mapping[str, str],
    out_dir: Path | None,
    stderr: TextIO,
) -> None:
    print(_redacted(f"internal error: {type(error).__name__}: {error}", environ), file=stderr)
    text = _redacted("".join(traceback.format_exception(error)), environ)
    report = f"toolfuzz-gate {' '.join(argv)[:2000]}\n\n{text}"
    written = _write(report, _directory(argv, environ, out_dir))
    where = f" with {written}" if written is not None else ""
    print(f"this is a bug in toolfuzz-gate; please report it{where}", file=stderr)
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if argv[:1] == ["action"] and summary and environ.get("GITHUB_ACTIONS") == "true":
        block = (  # the end of a traceback says most; the fence keeps it inert
            "\n<details><summary>toolfuzz-gate: internal error (a bug; please report it "
            f"with this traceback)</summary>\n\n{fence(text[-(BLOCK_CAP - 1) :], 'text')}"
            "\n\n</details>\n"
        )
        try:
            with open(summary, "a", encoding="utf-8", errors="replace") as sink:
                sink.write(block)
        except OSError:
            pass


CREDENTIAL_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|^AUTH|_AUTH_")
"""Variable names that hold credentials by convention (`OPENAI_API_KEY`, `HF_TOKEN`): their
values never reach an error report, whichever of them the policy's `llm.api_key_env` names."""


def _redacted(text: str, environ: Mapping[str, str]) -> str:
    """`text` without the value of any secret variable (a message may quote one)."""
    for name, value in environ.items():
        if (is_secret(name) or CREDENTIAL_NAME.search(name.upper())) and len(value) >= 4:
            text = text.replace(value, "***")
    return text


def _directory(argv: Sequence[str], environ: Mapping[str, str], out_dir: Path | None) -> Path:
    """The output directory: the command's `--out`, the action's `output-dir` (inside the
    workspace once symlinks are resolved), else the temporary directory."""
    if out_dir is not None:
        return out_dir
    if argv[:1] == ["action"] and environ.get("GITHUB_WORKSPACE"):
        named = environ.get("INPUT_OUTPUT-DIR", "").strip() or "toolfuzz-gate-results"
        try:
            return in_workspace(
                Path(environ["GITHUB_WORKSPACE"]), "output-dir", workspace_path("output-dir", named)
            )
        except ToolfuzzError:
            pass
    return Path(tempfile.gettempdir())


def _write(report: str, directory: Path) -> Path | None:
    """The file written (a fresh name in a shared temporary directory), or None."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if directory == Path(tempfile.gettempdir()):
            handle, name = tempfile.mkstemp(prefix="toolfuzz-gate-internal-error-", suffix=".txt")
            with open(handle, "w", encoding="utf-8", errors="replace") as sink:
                sink.write(report)
            return Path(name)
        path = directory / TRACEBACK_FILE
        path.write_text(report, encoding="utf-8", errors="replace")
        return path
    except OSError:
        return None
