"""Golden files for the fixed scenario's Markdown, SARIF, JUnit and annotations.

Regenerate after an intended change with
`TOOLFUZZ_UPDATE_GOLDEN=1 python -m pytest tests/core/report/test_golden.py` and review the diff.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from tests.core.report import scenario
from toolfuzz_gate.core.report.annotations import render_annotations
from toolfuzz_gate.core.report.junit import render_junit
from toolfuzz_gate.core.report.markdown import render_markdown
from toolfuzz_gate.core.report.sarif import render_sarif

GOLDEN = scenario.REPO / "tests" / "golden" / "report"

RENDERERS: dict[str, Callable[[], str]] = {
    "comment.md": lambda: render_markdown(scenario.diff(), scenario.context()),
    "results.sarif": lambda: render_sarif(scenario.diff(), scenario.context()),
    "junit.xml": lambda: render_junit(scenario.diff()),
    "annotations.txt": lambda: render_annotations(scenario.diff(), scenario.context()),
}


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_matches_the_golden_file(name: str) -> None:
    rendered = RENDERERS[name]()
    path = GOLDEN / name
    if os.environ.get("TOOLFUZZ_UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8", newline="\n")
    assert rendered == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_rendering_is_deterministic(name: str) -> None:
    assert RENDERERS[name]() == RENDERERS[name]()
