"""Claims the docs make about the gate's outputs, held to the code that makes them: the
report table (`REPORTS`), every place that lists the `fail-on` values (`FAIL_ON`), every
place that lists the exit codes (`ExitCode`), and the members of `summary.json`, read from
what `run --policy`, `fuzz` and the built-in `run` really write. Beside `test_docs.py`, which
holds the registries' tables (keywords, formats, invariants, policy keys) and the links.
Also the defaults the docs show (`core.campaign.run_defaults`) and the synopsis of every
command's flags (`cli.parser`)."""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli_helpers import invoke, poster_repository
from toolfuzz_gate.app.reports import REPORTS
from toolfuzz_gate.cli.parser import build_parser
from toolfuzz_gate.core.campaign.run_defaults import (
    BUILTIN_RUNS,
    DEFAULT_RUNS,
    DEFAULT_SEED,
    DEFAULT_TIMEOUT_MS,
)
from toolfuzz_gate.core.gate.handler_kinds import POLICY_KINDS
from toolfuzz_gate.core.gate.policy import FAIL_ON, GateRules, RunOptions
from toolfuzz_gate.core.github.workflow_commands import OUTPUT_NAMES
from toolfuzz_gate.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REJECTS = "toolfuzz_gate.contract.poster:ToolError"
WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _marked(text: str, marker: str) -> str:
    match = re.search(rf"<!-- {marker}:begin -->\n(.*?)<!-- {marker}:end -->", text, re.S)
    assert match, f"no {marker} block"
    return match[1]


def _rows(table: str, *, raw: bool = False) -> list[list[str]]:
    """The body rows of a Markdown table, each cell stripped of spaces and (unless `raw`) of
    its outer code backticks."""
    lines = [line for line in table.splitlines() if line.startswith("|")]
    assert len(lines) > 2 and set(lines[1]) <= set("|-: ")
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    return cells if raw else [[cell.strip("`") for cell in row] for row in cells]


def _section(page: Path, heading: str) -> str:
    return _text(page).split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _quoted(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _action() -> Any:
    return yaml.safe_load(_text(ROOT / "action.yml"))


# --- reports -----------------------------------------------------------------------------------


def test_the_report_table_is_the_reports_registry() -> None:
    rows = _rows(_marked(_text(DOCS / "reports-and-receipts.md"), "reports"))
    expected = [[r.file, r.render.__name__, r.published] for r in REPORTS]
    assert rows == expected


def test_each_report_the_action_names_by_output_is_an_output_of_action_yml() -> None:
    named = [report.output for report in REPORTS if report.output is not None]
    assert named == ["sarif-path", "junit-path"]
    assert set(named) <= set(OUTPUT_NAMES) and set(named) <= set(_action()["outputs"])


# --- fail-on -----------------------------------------------------------------------------------


def test_action_yml_names_exactly_the_fail_on_values() -> None:
    described = _action()["inputs"]["fail-on"]["description"]
    listed = described.split("subset of", 1)[1].split(".", 1)[0]
    assert WORD.findall(listed) == list(FAIL_ON)


def test_the_action_page_names_exactly_the_fail_on_values() -> None:
    rows = _rows(_section(DOCS / "action.md", "## Inputs and outputs"), raw=True)
    (meaning,) = [row[2] for row in rows if row[0] == "`fail-on`"]
    assert [v for v in _quoted(meaning) if WORD.fullmatch(v)] == list(FAIL_ON)


def test_the_policy_page_names_exactly_the_fail_on_values() -> None:
    page = _text(DOCS / "policy.md")
    example = page.split("  fail_on: [", 1)[1].split("  flaky:", 1)[0]
    in_example = [w for w in WORD.findall(example.replace("# also:", "")) if w in FAIL_ON]
    assert sorted(in_example) == sorted(FAIL_ON)
    prose = _section(DOCS / "policy.md", "## What fails the gate").split("`min_coverage`", 1)[0]
    named = {v for v in _quoted(prose) if v in FAIL_ON}
    assert named == set(FAIL_ON), sorted(set(FAIL_ON) - named)


def test_the_shipped_policy_schema_enumerates_exactly_the_fail_on_values() -> None:
    schema = json.loads(_text(ROOT / "src" / "toolfuzz_gate" / "policy.schema.json"))
    items = schema["properties"]["gate"]["properties"]["fail_on"]["items"]
    assert items["then"]["enum"] == list(FAIL_ON)


# --- exit codes --------------------------------------------------------------------------------

EVERY_CODE = {int(code) for code in ExitCode}


def _codes(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"\b(\d{1,3})\b", text)}


def test_action_yml_states_every_exit_code() -> None:
    header = _text(ROOT / "action.yml").split("\nname:", 1)[0]
    stated = header.split("exit code", 1)[1].split("The container image", 1)[0]
    assert _codes(stated) == EVERY_CODE


def test_the_action_page_states_every_exit_code_of_the_step() -> None:
    section = _section(DOCS / "action.md", "## Inputs and outputs")
    stated = section.split("The step's exit code", 1)[1].split("Inputs reach", 1)[0]
    assert _codes(stated) == EVERY_CODE


# --- summary.json ------------------------------------------------------------------------------

COMMANDS = ("run --policy", "fuzz", "run")


def _summary_rows() -> dict[str, tuple[set[str], str]]:
    rows = _rows(_marked(_text(DOCS / "policy.md"), "summary"), raw=True)
    return {member.strip("`"): (set(_quoted(by)), meaning) for member, by, meaning in rows}


def _written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """The summary.json each command writes: `run --policy` and `fuzz` over the poster with a
    lax width check (it has counterexamples, so `findings` are not empty), and the built-in."""
    repo = poster_repository(tmp_path)
    monkeypatch.chdir(repo)  # `fuzz`'s python handler imports from the current directory
    policy = repo / "toolfuzz.yml"
    policy.write_text(
        "version: 1\ntools:\n  - name: lax\n    schema: schemas/poster.json\n"
        f'    handler: {{python: "lax_width:render_poster", rejects: ["{REJECTS}"]}}\n',
        encoding="utf-8",
    )
    runs = {
        "run --policy": ("run", "--policy", str(policy), "--root", str(repo)),
        "fuzz": (
            *("fuzz", "--schema", str(repo / "schemas" / "poster.json")),
            *("--handler", "python:lax_width:render_poster", "--rejects", REJECTS),
        ),
        "run": ("run",),
    }
    written = {}
    for command, argv in runs.items():
        out = tmp_path / command.replace(" ", "")
        status, said, err = invoke(*argv, "--out", str(out), "--runs", "16")
        assert status == (0 if command == "run" else 1), said + err
        written[command] = json.loads(_text(out / "summary.json"))
    return written


@pytest.mark.slow
def test_the_summary_table_is_what_each_command_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _summary_rows()
    written = _written(tmp_path, monkeypatch)
    for command, summary in written.items():
        documented = {member for member, (by, _) in rows.items() if command in by}
        assert set(summary) == documented, command
        assert summary["format"] == "toolfuzz-summary/1"
    full = written["run --policy"]
    assert set(_quoted(rows["counts"][1])) == set(full["counts"])
    assert set(_quoted(rows["rootCauses"][1])) == set(full["rootCauses"])
    tools = rows["tools"][1]
    (entry,) = full["tools"]
    assert entry["findings"], "the lax poster has counterexamples"
    assert set(_quoted(tools)) == set(entry) | {key for f in entry["findings"] for key in f}
    (builtin_entry,) = written["run"]["tools"]
    assert set(builtin_entry) == set(entry)  # the built-in run's summary is a policy run's
    assert written["fuzz"]["regressions"] == written["run"]["regressions"] == []


# --- defaults and flags ------------------------------------------------------------------------


def test_the_policy_example_shows_the_defaults_a_policy_gets() -> None:
    example = yaml.safe_load(_text(DOCS / "policy.md").split("```yaml\n", 1)[1].split("```")[0])
    options = RunOptions()
    shown = example["defaults"]
    assert shown["seeds"] == list(options.seeds) == [DEFAULT_SEED]
    assert shown["runs"] == options.runs == DEFAULT_RUNS
    assert shown["timeout_ms"] == options.timeout_ms == DEFAULT_TIMEOUT_MS
    assert shown["max_output_bytes"] == options.max_output_bytes
    assert shown["format_assertion"] == options.format_assertion
    assert shown["default_draft"] == options.default_draft
    assert shown["dialect"] == options.dialect
    assert tuple(example["gate"]["fail_on"]) == GateRules().fail_on
    assert example["gate"]["flaky"] == GateRules().flaky


def test_the_commands_page_and_readme_state_the_command_line_defaults() -> None:
    assert f"seed {DEFAULT_SEED}, {BUILTIN_RUNS} runs" in _text(DOCS / "commands.md")
    assert f"seed {DEFAULT_SEED}, {BUILTIN_RUNS} runs" in _text(ROOT / "README.md")
    fuzz = build_parser().parse_args(["fuzz", "--schema", "s.json"])
    assert (fuzz.seed, fuzz.runs, fuzz.timeout_ms) == (
        DEFAULT_SEED,
        DEFAULT_RUNS,
        DEFAULT_TIMEOUT_MS,
    )


def _synopsis() -> dict[str, set[str]]:
    """Per command, the flags docs/commands.md's synopsis shows (HANDLER's belong to fuzz)."""
    block = _section(DOCS / "commands.md", "## Synopsis").split("```", 2)[1]
    flags: dict[str, set[str]] = {}
    command = ""
    for line in block.splitlines():
        named = re.match(r"toolfuzz-gate (\w+)", line)
        command = named[1] if named else "fuzz" if line.startswith("HANDLER") else command
        if command:
            flags.setdefault(command, set()).update(re.findall(r"--[a-z][a-z-]*", line))
    return flags


def test_the_synopsis_shows_every_flag_of_every_command() -> None:
    (commands,) = [
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    synopsis = _synopsis()
    assert set(synopsis) == set(commands.choices)
    for name, parser in commands.choices.items():
        flags = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
        assert synopsis[name] == flags - {"--help"}, name


def test_the_readme_lists_every_page_of_the_docs() -> None:
    section = _section(ROOT / "README.md", "## Documentation")
    listed = {link for link in re.findall(r"\]\(([^)#]+)\)", section)}
    pages = {page.relative_to(ROOT).as_posix() for page in DOCS.glob("*.md")}
    assert pages <= listed, sorted(pages - listed)


# --- the commands page's example -----------------------------------------------------------------


@pytest.mark.slow
def test_the_commands_example_prints_what_the_page_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    block = _section(DOCS / "commands.md", "## Example").split("```\n", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("$ toolfuzz-gate fuzz"))
    end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
    argv = shlex.split(" ".join(line.rstrip("\\") for line in lines[start : end + 1]))[2:]
    shutil.copytree(ROOT / "tests" / "fixtures" / "poster_faults", tmp_path / "faults")
    monkeypatch.chdir(tmp_path / "faults")
    status, said, err = invoke(*argv)
    assert status == 1, err
    masked = re.sub(r"\(sha256 [0-9a-f]+\)", "(sha256 …)", said)
    masked = re.sub(r"[0-9.]+ s$", "… s", masked, flags=re.MULTILINE)  # a progress line's time
    assert masked.splitlines() == lines[end + 1 :]
    # the receipt it wrote: every member is named in the Receipts section, and its one
    # counterexample has the members of the section's example
    receipt = json.loads(_text(Path("toolfuzz-receipts") / "renderPoster.json"))
    section = _section(DOCS / "reports-and-receipts.md", "## Receipts")
    members = section.split("Members: ", 1)[1].split("A counterexample:", 1)[0]
    assert set(receipt) <= set(_quoted(members)), sorted(set(receipt) - set(_quoted(members)))
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    (counterexample,) = receipt["counterexamples"]
    assert counterexample == example


def test_the_action_page_names_every_report_the_step_writes() -> None:
    step = _section(DOCS / "action.md", "## What one step does")
    written = step.split("writes into `output-dir`", 1)[1].split(";", 1)[0]
    assert {report.file for report in REPORTS} <= set(_quoted(written))


# --- handler kinds -----------------------------------------------------------------------------

HANDLERS = DOCS / "handlers.md"
KINDS = POLICY_KINDS
"""The handler kinds a policy and `fuzz` take (the handler-kind registry)."""


def _first_cells(section: str) -> list[str]:
    """The first column of the section's first table."""
    table = itertools.takewhile(
        lambda line: line.startswith("|"), section[section.index("\n|") + 1 :].splitlines()
    )
    return [row[0] for row in _rows("\n".join(table), raw=True)]


def test_the_handlers_page_has_one_row_per_kind_in_each_table() -> None:
    text = _text(HANDLERS)
    kinds = re.search(r"\n## The (kinds)\n(.*?)\n## ", text, re.S)
    assert kinds, "no 'The kinds' section"
    named = [
        next(k for k in KINDS if f"--{k}" in cell or f"`{k}:" in cell or f" {k}:" in cell)
        for cell in _first_cells(kinds[2])
    ]
    assert named == list(KINDS)
    outcomes = _section(HANDLERS, "## Outcomes and rejection codes, per kind")
    assert [cell.strip("`") for cell in _first_cells(outcomes)] == list(KINDS)
    policy = json.loads(_text(ROOT / "src" / "toolfuzz_gate" / "policy.schema.json"))
    assert set(KINDS) <= set(policy["$defs"]["handler"]["properties"])
