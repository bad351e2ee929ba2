"""Workflow-command annotations: at most ten findings and a roll-up, nothing injectable."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.core.report import scenario
from tests.core.report.hostile import SETTINGS, contexts, diffs
from toolfuzz_gate.core.report.annotations import LIMIT, render_annotations

_FINDING = re.compile(r"^::error file=([^,:]*),line=([0-9]+),title=([^,:]*)::(.*)$")


def test_the_scenario_annotates_new_findings_then_rolls_up() -> None:
    lines = render_annotations(scenario.diff(), scenario.context()).splitlines()
    assert lines == [
        f"::error file={scenario.POSTER_FILE},line=6,title=toolfuzz-gate%3A hostile-accepted"
        " in renderPoster::accepted a call that breaks maximum at /width (at /width)",
        f"::error file={scenario.SEARCH_FILE},line=11,title=toolfuzz-gate%3A unsupported keyword"
        " dependentSchemas::searchDocs: the gate cannot test dependentSchemas at"
        " /properties/filters",
        "::error::toolfuzz-gate failed: 1 new counterexamples, 1 unsupported keywords added,"
        " 1 still failing, 1 fixed - 1 new counterexample; policy fails on new counterexamples",
    ]


def test_a_passing_verdict_rolls_up_as_a_notice() -> None:
    text = render_annotations(scenario.diff(), scenario.context(failed=False, reasons=()))
    assert text.splitlines()[-1].startswith("::notice::toolfuzz-gate passed")


def test_at_most_ten_findings_and_the_roll_up_counts_the_rest() -> None:
    diff = scenario.diff()
    cx = diff["tools"][0]["counterexamples"]["new"][0]
    diff["tools"][0]["counterexamples"]["new"] = [{**cx, "path": f"/w{i}"} for i in range(14)]
    lines = render_annotations(diff, scenario.context()).splitlines()
    assert len(lines) == LIMIT + 1
    assert "(5 more findings not annotated, see the report)" in lines[-1]


@st.composite
def hostile_cases(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    diff = draw(diffs)
    return diff, draw(contexts(diff))


@pytest.mark.slow
@SETTINGS
@given(hostile_cases())
def test_no_text_ends_a_line_or_starts_a_second_command(case: Any) -> None:
    diff, context = case
    text = render_annotations(diff, context)
    assert "\r" not in text and text.endswith("\n")
    lines = text[:-1].split("\n")
    findings = sum(
        len(t["counterexamples"]["new"])
        + len(t["unsupported"]["added"])
        + sum(
            r["code"] in t["refused"]["added"] and r["code"] != "schema.unsupported-keyword"
            for r in t["refused"]["head"]
        )
        for t in diff["tools"]
    )
    assert len(lines) == min(findings, LIMIT) + 1
    for line in lines[:-1]:
        assert _FINDING.match(line), line
    assert lines[-1].startswith("::error::" if context.failed else "::notice::")
