"""The text the Actions runner reads from a step: `GITHUB_OUTPUT` entries (the gate's are
`step_outputs`) and the `::warning::` / `::notice::` / `::add-mask::` commands, each kept
to exactly one command (`one_command`) (pure: the caller writes them, and passes the
random delimiter in).

A multi-line output is `name<<DELIMITER`, the value, then the delimiter alone on a line; a
value containing the delimiter would let the rest of it set other outputs, so that is
refused (the caller draws a fresh delimiter per run, which a value cannot predict).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.report.untrusted import field, workflow_data

ZERO_WIDTH_SPACE = "\u200b"
LEGACY_COMMAND = "##["
"""The runner reads a legacy command anywhere in a line: a zero-width space splits it."""
OUTPUT_NAMES = (
    "verdict",
    "new-counterexamples",
    "fixed-counterexamples",
    "unsupported-keywords",
    "receipts-path",
    "sarif-path",
    "junit-path",
    "comment-url",
)
"""The step's outputs, as action.yml declares them (a test holds the two equal)."""
_OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,99}$")
_DELIMITER = re.compile(r"^[A-Za-z0-9_]{16,}$")


def render_outputs(outputs: Mapping[str, str], delimiter: str) -> str:
    """`outputs` in the `GITHUB_OUTPUT` file format, every value in delimited form."""
    if not _DELIMITER.match(delimiter):
        raise ValueError("an output delimiter is at least 16 letters, digits or underscores")
    lines: list[str] = []
    for name, value in outputs.items():
        if not _OUTPUT_NAME.match(name):
            raise ValueError(f"{name!r} is not an output name")
        if delimiter in value:
            raise ValueError(f"the value of output {name} contains the delimiter")
        lines += [f"{name}<<{delimiter}", value, delimiter]
    return "".join(line + "\n" for line in lines)


def step_outputs(
    diff: Mapping[str, Any],
    failed: bool,
    where: str,
    report_paths: Mapping[str, str],
    comment_url: str,
) -> dict[str, str]:
    """The step's outputs (`OUTPUT_NAMES`, in that order): the verdict, the counts of the
    diff document's `totals`, where the results went (`where`; each report's output in
    `report_paths`) and the comment's URL ("" without one)."""
    totals: Any = diff.get("totals", {})

    def count(name: str) -> str:
        value = totals.get(name, 0) if isinstance(totals, dict) else 0
        return str(value if isinstance(value, int) else 0)

    values = {
        "verdict": "failed" if failed else "passed",
        "new-counterexamples": count("new"),
        "fixed-counterexamples": count("fixed"),
        "unsupported-keywords": count("unsupportedAdded"),
        "receipts-path": where,
        **report_paths,
        "comment-url": comment_url,
    }
    return {name: values[name] for name in OUTPUT_NAMES}


def mask_command(secret: str) -> str:
    """The command that makes the runner replace `secret` with *** in the log from now on."""
    return f"::add-mask::{workflow_data(secret)}"


def warning_command(message: str) -> str:
    return f"::warning::{workflow_data(field(message, 2000))}"


def notice_command(message: str) -> str:
    return f"::notice::{workflow_data(field(message, 2000))}"


def error_command(message: str) -> str:
    return f"::error::{workflow_data(field(message, 2000))}"


def one_command(line: str) -> str:
    """`line` as exactly one command: on one line, and no legacy `##[` command inside its
    data (which the runner would run too)."""
    flat = line.replace("\r", "").replace("\n", "")
    return flat.replace(LEGACY_COMMAND, "#" + ZERO_WIDTH_SPACE + "#[")
