"""The PR comment: layout, stage order under the budget, and hostile text kept inert."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.core.report import scenario
from tests.core.report.hostile import SETTINGS, contexts, diffs, hostile_text
from tests.receipts import typed
from toolfuzz_gate.core.gate.receipt_diff import diff_receipts
from toolfuzz_gate.core.report.context import SchemaSource
from toolfuzz_gate.core.report.markdown import (
    FALLBACK_BUDGETS,
    MIN_BUDGET,
    comment_bodies,
    render_markdown,
)
from toolfuzz_gate.core.report.untrusted import (
    BLOCK_CAP,
    ELLIPSIS,
    cap,
    clean,
    fence,
    utf16_units,
)

ALLOWED_TAGS = {"<details>", "</details>", "<summary>", "</summary>", "<sub>", "</sub>"}
_OPEN = re.compile(r"^(`{3,})(.*)$")


@dataclass
class Parsed:
    outside: list[str] = field(default_factory=list)
    blocks: list[tuple[str, str]] = field(default_factory=list)  # (info, content)


def parse(body: str) -> Parsed:
    """Split a body into text outside fences and fenced blocks, by CommonMark's fence rules
    (backtick fences at the line start: the renderer never indents one); an unclosed fence
    fails the test."""
    parsed = Parsed()
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            parsed.outside.append(lines[i])
            i += 1
            continue
        ticks, info = opened.group(1), opened.group(2)
        assert "`" not in info, f"not a fence opener: {lines[i]!r}"
        closing = re.compile(rf"^`{{{len(ticks)},}}\s*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        assert j < len(lines), f"fence opened at line {i + 1} is never closed"
        parsed.blocks.append((info, "\n".join(lines[i + 1 : j])))
        i = j + 1
    return parsed


def _cx(number: int, **changes: Any) -> dict[str, Any]:
    cx = {
        "tool": "t",
        "failure": "crash",
        "fingerprint": f"{number:024x}",
        "path": f"/p{number}",
        "error": {"reason": f"reason {number}"},
        "input": {"value": "v" * 200, "n": number},
    }
    cx.update(changes)
    return cx


def _diff(new: int, still: int = 0, fixed: int = 0, unsupported: int = 0) -> dict[str, Any]:
    return {
        "format": "toolfuzz-diff/1",
        "tools": [
            {
                "tool": "t",
                "status": "changed",
                "counterexamples": {
                    "new": [_cx(i) for i in range(new)],
                    "stillFailing": [_cx(1000 + i) for i in range(still)],
                    "fixed": [_cx(2000 + i) for i in range(fixed)],
                },
                "unsupported": {
                    "added": [{"keyword": "k", "path": f"/u{i}"} for i in range(unsupported)],
                    "removed": [],
                    "still": [],
                },
                "receipt": {"base": "t.json", "head": "t.json"},
            }
        ],
        "totals": {"new": new, "fixed": fixed, "stillFailing": still},
    }


def test_the_marker_is_the_first_line_and_the_sections_follow_the_issue() -> None:
    body = render_markdown(scenario.diff(), scenario.context())
    assert body.split("\n")[0] == "<!-- toolfuzz-gate:pr-7 -->"
    assert "## toolfuzz-gate: \u274c failed" in body
    assert "**base** 1111111 \u00b7 **head** 2222222 \u00b7 **seed** 41" in body
    assert "<details><summary>Still failing (1)</summary>" in body
    assert "<details><summary>Fixed (1)</summary>" in body
    assert (
        "| searchDocs | schema.unsupported-keyword | keyword dependentSchemas is not supported "
        "| tests/fixtures/report/search.tools.json:11 | /tools/0/inputSchema/properties/filters "
        "| new |"
    ) in body
    blocks = parse(body).blocks
    replay = "toolfuzz-gate replay renderPoster.json --fingerprint 8f57b61d8ce72698857063fc"
    assert ("sh", replay) in blocks
    inputs = [json.loads(content) for info, content in blocks if info == "json"]
    assert inputs == [scenario.diff()["tools"][0]["counterexamples"]["new"][0]["input"]]


def test_short_shas_come_from_the_diff_when_the_context_has_none() -> None:
    body = render_markdown(scenario.diff(), scenario.context(head_sha=None, base_sha=None))
    assert "**base** 1111111 \u00b7 **head** 2222222 \u00b7" in body
    assert "**base** unknown \u00b7 **head** unknown" in render_markdown(
        _diff(1), scenario.context(head_sha=None, base_sha=None)
    )


def test_a_passing_verdict_says_so() -> None:
    body = render_markdown(_diff(0), scenario.context(failed=False, reasons=()))
    assert "## toolfuzz-gate: \u2705 passed" in body


def test_input_bodies_go_first_when_the_budget_is_short() -> None:
    diff = _diff(new=3, still=2, fixed=2)
    full = render_markdown(diff, scenario.context())
    body = render_markdown(diff, scenario.context(), budget=utf16_units(full) - 1)
    assert "Minimized inputs left out" in body
    assert [info for info, _ in parse(body).blocks] == ["sh"] * 4  # 3 new, 1 still-failing list
    assert "| /p1000 |" in body and "| /p2000 |" in body


def test_then_still_failing_rows_then_fixed_rows() -> None:
    diff = _diff(new=3, still=40, fixed=40)
    full = render_markdown(diff, scenario.context())
    no_inputs = render_markdown(diff, scenario.context(), budget=utf16_units(full) - 1)
    assert "Minimized inputs left out" in no_inputs and "| /p1000 |" in no_inputs
    assert render_markdown(diff, scenario.context(), budget=utf16_units(no_inputs)) == no_inputs
    short = render_markdown(diff, scenario.context(), budget=utf16_units(no_inputs) - 1)
    assert "40 still failing counterexamples left out" in short
    assert "| /p1000 |" not in short and "| /p2000 |" in short
    shorter = render_markdown(diff, scenario.context(), budget=utf16_units(short) - 1)
    assert "40 fixed counterexamples left out" in shorter
    assert "| /p2000 |" not in shorter and "| /p2 |" in shorter


def test_then_new_rows_beyond_what_fits_with_a_count_of_the_rest() -> None:
    body = render_markdown(_diff(new=300, still=5, fixed=5), scenario.context(), budget=8000)
    assert utf16_units(body) <= 8000
    shown = len(re.findall(r"^\| \d+ \| t \| crash \| /p\d+ \|", body, re.M))
    assert 0 < shown < 300
    assert f"\u2026 {300 - shown} more new counterexamples, see the receipts." in body
    assert "| /p0 |" in body  # the first rows are the ones kept


def test_new_rows_beyond_twenty_go_before_unsupported_rows() -> None:
    diff = _diff(new=30, unsupported=200)
    body = render_markdown(diff, scenario.context(), budget=9000)
    assert utf16_units(body) <= 9000
    assert len(re.findall(r"^\| \d+ \| t \| crash \|", body, re.M)) == 20
    assert "\u2026 10 more new counterexamples, see the receipts." in body
    kept = len(re.findall(r"^\| t \| schema\.unsupported-keyword \|", body, re.M))
    assert 0 < kept < 200 and f"\u2026 {200 - kept} more unsupported keywords" in body


def test_then_unsupported_rows_and_last_the_bare_verdict() -> None:
    body = render_markdown(_diff(new=0, unsupported=400), scenario.context(), budget=3000)
    assert (
        utf16_units(body) <= 3000
        and "more unsupported keywords and refusal reasons, see the receipts" in body
    )
    loud = scenario.context(reasons=("&" * 300,) * 10)
    bare = render_markdown(_diff(new=5), loud, budget=MIN_BUDGET)
    assert utf16_units(bare) <= MIN_BUDGET
    assert bare.startswith("<!-- toolfuzz-gate:pr-7 -->\n\n## toolfuzz-gate: \u274c failed")
    assert "every detail is in the receipts" in bare


@pytest.mark.slow
def test_the_fallback_comments_shrink_to_the_minimum_without_repeats() -> None:
    big = _diff(new=300, still=40, fixed=40, unsupported=200)
    bodies = comment_bodies(big, scenario.context())
    assert bodies[0] == render_markdown(big, scenario.context())
    assert len(bodies) == len(FALLBACK_BUDGETS) and len(set(bodies)) == len(bodies)
    sizes = [utf16_units(body) for body in bodies]
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] <= MIN_BUDGET
    assert comment_bodies(_diff(0), scenario.context(failed=False, reasons=()))[1:] == []


def test_a_budget_below_the_minimum_is_refused() -> None:
    with pytest.raises(ValueError):
        render_markdown(_diff(1), scenario.context(), budget=MIN_BUDGET - 1)


_MENTION = re.compile(r"@[A-Za-z0-9]")
_ISSUE = re.compile(r"#[0-9]")
_TAG = re.compile(r"<[^>]*>")
_INVISIBLE = re.compile(
    "[\u202a-\u202e\u2066-\u2069\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
    "\u200b-\u200f\u2060-\u2064\ufeff\u061c\U000e0000-\U000e007f]"
)
_LINK = re.compile(r"(?i)://|www\.")


@st.composite
def hostile_cases(draw: st.DrawFn) -> tuple[dict[str, Any], Any, int]:
    diff = draw(diffs)
    return diff, draw(contexts(diff)), draw(st.integers(MIN_BUDGET, 60_000))


@pytest.mark.slow
@SETTINGS
@given(hostile_cases())
def test_hostile_text_never_escapes_its_fence_mentions_or_overflows(case: Any) -> None:
    diff, context, budget = case
    body = render_markdown(diff, context, budget=budget)
    assert utf16_units(body) <= budget
    body.encode("utf-8")  # no lone surrogate reaches the comment
    parsed = parse(body)
    first, *rest = parsed.outside
    assert re.fullmatch(r"<!-- toolfuzz-gate:[A-Za-z0-9._-]{1,64} -->", first)
    outside = "\n".join(rest)
    assert "<!--" not in outside and "-->" not in outside
    assert not _MENTION.search(outside) and not _ISSUE.search(outside)
    assert not _LINK.search(outside)
    assert set(_TAG.findall(outside)) <= ALLOWED_TAGS
    assert not _INVISIBLE.search(body)
    for info, content in parsed.blocks:
        assert info in ("json", "sh", "text")  # text: the handler's words, fenced
        if info == "json" and not content.endswith(ELLIPSIS):
            json.loads(content)
        if info == "json":
            assert "<" not in content and ">" not in content
    for line in rest:
        if line.startswith("| "):
            assert _cells(line) in (6, 5), line


def _cells(row: str) -> int:
    """Table cells in a row: pipes not escaped by a backslash, minus one."""
    count, i = 0, 0
    while i < len(row):
        if row[i] == "\\":
            i += 2
            continue
        count += row[i] == "|"
        i += 1
    return count - 1


@SETTINGS
@given(st.lists(st.one_of(hostile_text, st.sampled_from(("\n```", "\n````\n", "\n`"))), max_size=6))
def test_a_fence_holds_any_content_whole(pieces: list[str]) -> None:
    content = "".join(pieces)
    parsed = parse(fence(content, "json"))
    assert parsed.outside == []
    kept = clean(content, keep_newlines=True).replace("\r\n", "\n").replace("\r", "\n")
    assert parsed.blocks == [("json", cap(kept, BLOCK_CAP))]


def test_refused_tools_share_the_unsupported_table_and_lost_counterexamples_are_not_fixed() -> None:
    base = {"lax": {**_receipt("lax"), "counterexamples": [_cx(7, tool="lax")]}}
    head = {
        "lax": _refused("lax", ("schema.unsupported-keyword", "/properties/w/not", 4)),
        "countries": _refused("countries", ("schema.limit-enum", "/properties/c/enum", 9)),
    }
    document = diff_receipts(
        {k: typed(v) for k, v in base.items()}, {k: typed(v) for k, v in head.items()}
    )
    context = scenario.context(
        sources={"countries": SchemaSource("tools.json", {}, "/tools/1/inputSchema")}
    )
    body = render_markdown(document, context)
    assert "### Refused tools and unsupported keywords (2)" in body
    assert (
        "| countries | schema.limit-enum | message of schema.limit-enum | tools.json:9 "
        "| /tools/1/inputSchema/properties/c/enum | new |"
    ) in body
    assert "| lax | schema.unsupported-keyword |" in body
    assert "### Not run on head (1)" in body and "| 1 | lax | crash | /p7 | reason 7 |" in body
    assert "Fixed (" not in body and "1 fixed" not in body and "1 not run on head" in body


def _receipt(tool: str) -> dict[str, Any]:
    return {
        "tool": tool,
        "coverage": {},
        "invariants": {},
        "unsupported": [],
        "counterexamples": [],
    }


def _refused(tool: str, *reasons: tuple[str, str, int]) -> dict[str, Any]:
    entries = [
        {
            "code": c,
            "pointer": p,
            "line": n,
            "keyword": "",
            "message": f"message of {c}",
            "hint": "",
        }
        for c, p, n in reasons
    ]
    return {**_receipt(tool), "refused": {"code": reasons[0][0], "reasons": entries}}


def test_a_flaky_counterexample_says_how_often_it_failed() -> None:
    diff = scenario.diff()
    new = diff["tools"][0]["counterexamples"]["new"][0]
    new.update(flaky=True, reproduced={"runs": 3, "failed": 1})
    body = render_markdown(diff, scenario.context())
    assert "(flaky: failed 1 of 3 runs, a re-run may pass) |" in body
    new.update(reproduced="forged")
    assert "(flaky: a re-run may pass) |" in render_markdown(diff, scenario.context())
    new.update(flaky=False)
    assert "flaky" not in render_markdown(diff, scenario.context())
