"""Progress lines: one per tool as it starts and ends, grouped in Actions, never a command."""

from __future__ import annotations

import io
import re
from typing import TextIO, cast

import pytest

from tests.receipts import fingerprint_of, typed
from toolfuzz_gate.app.progress import Progress
from toolfuzz_gate.cli.output import CommandGuard

HOSTILE = "evil\n::warning::owned ##[set-output name=x;]y %0A::error::z"


def test_a_tool_is_told_as_it_starts_and_as_it_ends() -> None:
    out = io.StringIO()
    progress = Progress(out, side="base", grouped=False)
    progress.start("search", 41, 24)
    found = [{"fingerprint": fingerprint_of("a")}]
    progress.done(
        "search", typed({"cases": {"valid": 24, "hostile": 20}, "counterexamples": found})
    )
    lines = out.getvalue().splitlines()
    assert lines[0] == "[base] search: seed 41, 24 runs ..."
    assert re.fullmatch(r"\[base\] search: 44 cases, 1 findings, \d+\.\d s", lines[1])


@pytest.mark.parametrize("grouped", [True, False])
def test_a_hostile_tool_name_never_becomes_a_workflow_command(grouped: bool) -> None:
    out = io.StringIO()
    guard = CommandGuard(out)  # what `run` prints through
    progress = Progress(cast(TextIO, guard), grouped=grouped)
    progress.start(HOSTILE, 41, 24)
    progress.done(HOSTILE, typed({"refused": {"code": "schema.limit-enum"}}))
    guard.flush()
    lines = out.getvalue().splitlines()
    assert "##[" not in out.getvalue()  # the legacy form works anywhere in a line
    commands = [line for line in lines if line.lstrip().startswith("::")]
    if grouped:
        assert commands[0].startswith("::group::") and commands[1:] == ["::endgroup::"]
    else:
        assert commands == []
    assert len(lines) == (4 if grouped else 2)  # the name's newline made no line of its own
