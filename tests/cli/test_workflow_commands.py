"""Untrusted text never becomes a workflow command (issue 12), by property.

The runner executes `::name::` at the start of a line (after whitespace) and `##[name]`
anywhere in a line, on stdout and stderr. Random hostile strings go in as property
names, tool names, keyword names, handler messages and file names, through `fuzz`,
`lint` and an error path; a parser of both forms must find no command in anything the
gate printed (outside the action the gate means none).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.app.progress import emit
from toolfuzz_gate.cli import run
from toolfuzz_gate.cli.output import CommandGuard

FRAGMENTS = (
    "::warning::owned",
    "::error file=a,line=1::x",
    "##[set-output name=comment-url;]https://example.invalid",
    "##[add-mask]",
    "::",
    "##[",
    "#",
    ":",
    "\n",
    "\r\n",
    " ",
    "\t",
    "%0A",
    "a",
    "\u00e9",
)
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
    max_size=12,
)
HOSTILE = st.lists(st.one_of(st.sampled_from(FRAGMENTS), _TEXT), min_size=1, max_size=6).map(
    "".join
)
_LEADING = re.compile(r"^\s*::[A-Za-z]")


def commands(text: str) -> list[str]:
    """Every line the runner would execute as a command, in either form."""
    return [line for line in re.split(r"\r\n|\n|\r", text) if _LEADING.match(line) or "##[" in line]


def _gate(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    run(list(argv), out, err)
    return out.getvalue() + err.getvalue()


@settings(max_examples=examples(12), suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.slow
@given(name=HOSTILE, said=HOSTILE)
def test_fuzz_prints_no_command_from_names_or_messages(
    name: str, said: str, tmp_path: Path, monkeypatch: object
) -> None:
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "minLength": 1}},
        "required": [name],
    }
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema), "utf-8")
    (tmp_path / "says.txt").write_text(said, "utf-8")
    import os

    os.environ["TOOLFUZZ_SAYS"] = str(tmp_path / "says.txt")
    try:
        printed = _gate(
            "fuzz",
            "--schema",
            str(path),
            "--handler",
            "python:tests.fixtures.handlers.says:crash",
            "--env",
            "TOOLFUZZ_SAYS",
            "--runs",
            "3",
            "--out",
            str(tmp_path / "out"),
        )
    finally:
        del os.environ["TOOLFUZZ_SAYS"]
    assert commands(printed) == [], printed


@pytest.mark.slow
@settings(max_examples=examples(25), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=HOSTILE, keyword=HOSTILE, prop=HOSTILE)
def test_lint_and_refusals_print_no_command(
    tool: str, keyword: str, prop: str, tmp_path: Path
) -> None:
    parameters = {"type": "object", "properties": {prop: {"type": "string", keyword: 1}}}
    declared = [{"type": "function", "function": {"name": tool, "parameters": parameters}}]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(declared), "utf-8")
    assert commands(_gate("lint", str(path))) == []
    printed = _gate(
        "fuzz",
        "--tools",
        str(path),
        "--handler",
        "python:tests.fixtures.handlers.echo:echo",
        "--runs",
        "2",
        "--out",
        str(tmp_path / "out"),
    )
    assert commands(printed) == [], printed


@settings(max_examples=examples(25))
@given(name=HOSTILE)
def test_an_error_naming_a_hostile_file_prints_no_command(name: str) -> None:
    printed = _gate("lint", "/nonexistent/" + name.replace("\x00", ""))
    assert commands(printed) == [], printed


@given(chunks=st.lists(HOSTILE, max_size=8), flush_after=st.sets(st.integers(0, 8)))
@example(chunks=["\x1f::warning::owned"], flush_after=set())  # Unicode whitespace leads
@example(chunks=["\u3000", "::warning::owned"], flush_after={0})
def test_the_guard_makes_every_split_of_every_line_inert(
    chunks: list[str], flush_after: set[int]
) -> None:
    inner = io.StringIO()
    guard = CommandGuard(inner)
    for index, chunk in enumerate(chunks):
        guard.write(chunk)
        if index in flush_after:
            guard.flush()
    emit(guard, "::group::meant")  # type: ignore[arg-type]
    guard.write("tail ##[x")
    guard.flush()
    found = commands(inner.getvalue())
    assert found == ["::group::meant"], inner.getvalue()
