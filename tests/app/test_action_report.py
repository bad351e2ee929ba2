"""`mode: report` reads an artifact a pull request's own run produced, so every receipt in it
is hostile until checked: a forged receipt, sealed with a correct hash but with any member
replaced by any JSON value, is refused as a gate error or rendered as an inert comment,
never an internal error (the report must not crash on its input)."""

from __future__ import annotations

import copy
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.profiles import examples
from tests.receipts import sealed
from toolfuzz_gate.app.action_report import report_document
from toolfuzz_gate.app.fuzz import fuzz
from toolfuzz_gate.app.requests import FuzzRequest
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig
from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.markdown import BODY_BUDGET, marker, render_markdown
from toolfuzz_gate.core.report.untrusted import utf16_units
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.errors import ToolfuzzError

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
HEAD_SHA = "a" * 40
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "<!-- toolfuzz-gate:default -->", "`" * 12, "@admin #1", "x" * 3000]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A receipt the engine really wrote, with a counterexample (the lax width handler)."""
    out = tmp_path_factory.mktemp("genuine")
    request = FuzzRequest(
        config=FuzzConfig(41, 24),
        handler={
            "--handler": "python:lax_width:render_poster",
            "--rejects": ["toolfuzz_gate.contract.poster:ToolError"],
        },
        schema=FAULTS / "poster_schema.json",
        tool="renderPoster",
        expected_rejections=("policy-pixel-budget", "policy-duplicate-semantic-intent"),
        error_codes="^(schema|policy)-",
        dry_run="dryRun",
        out=out,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(FAULTS)
        assert fuzz(request, io.StringIO()) == 1
    receipt: dict[str, Any] = json.loads((out / "renderPoster.json").read_text())
    assert receipt["counterexamples"]
    return receipt


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            found += _places(item, (*path, index))
    return found


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), as_base=st.booleans())
def test_a_forged_receipt_is_refused_or_rendered_inert(
    genuine: dict[str, Any], tmp_path: Path, data: st.DataObject, as_base: bool
) -> None:
    forged = copy.deepcopy(genuine)
    places = [p for p in _places(forged) if p[-1] not in ("receiptHash", "diagnostics")]
    place = data.draw(st.sampled_from(places))
    holder = forged
    for key in place[:-1]:
        holder = holder[key]
    holder[place[-1]] = data.draw(HOSTILE)
    forged.pop("receiptHash")
    results = tmp_path / "results"
    shutil.rmtree(results, ignore_errors=True)
    (results / "base").mkdir(parents=True)
    write_document(results / "renderPoster.json", genuine if as_base else sealed(forged))
    write_document(results / "base" / "renderPoster.json", sealed(forged) if as_base else genuine)
    try:
        document = report_document(results, HEAD_SHA)
    except ToolfuzzError:
        event("refused")
        return  # refused, naming the file: the gate's error, exit 2
    event("rendered")
    context = ReportContext(failed=True, reasons=("forged",), key="default")
    body = render_markdown(document, context)
    assert body.startswith(marker(context) + "\n")
    assert body.count("<!--") == 1  # nothing in the receipt forged a second marker
    assert utf16_units(body) <= BODY_BUDGET
