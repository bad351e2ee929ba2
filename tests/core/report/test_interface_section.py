"""The PR comment's "Interface changes" section (`core.report.interface_section`): breaking
changes first with their example call, the rest collapsed, a description change as a word
diff, and every untrusted name, pointer and description inert."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.report.context import ReportContext
from toolfuzz_gate.core.report.interface_section import render_interface_section, word_diff
from toolfuzz_gate.core.report.markdown import render_markdown


def entry(change: str, breaking: bool, **more: Any) -> dict[str, Any]:
    return {
        "tool": "search",
        "pointer": "",
        "change": change,
        "breaking": breaking,
        "evidence": None,
        "base": None,
        "head": None,
        **more,
    }


HOSTILE = "Ask </details> @owner, see https://evil.example #12 **now** <!-- x -->"
DIFF: dict[str, Any] = {
    "format": "toolfuzz-diff/1",
    "base": {"ref": None, "sha": None},
    "head": {"ref": None, "sha": None},
    "tools": [],
    "totals": {},
    "interface": [
        entry(
            "bound-narrowed",
            True,
            pointer="/inputSchema/properties/q/maxLength",
            base=24,
            head=12,
            evidence={"refused": 13, "of": 30, "call": {"q": "a" * 13}, "error": None},
        ),
        entry(
            "description-changed", False, pointer="/description", base="Search notes.", head=HOSTILE
        ),
        entry("bound-widened", False, pointer="/inputSchema/properties/n/maximum", base=5, head=9),
    ],
}


def test_breaking_first_with_its_call_then_the_rest_collapsed() -> None:
    text = "\n\n".join(render_interface_section(DIFF))
    assert text.startswith("### Interface changes (1 breaking, 2 other)")
    assert "bound-narrowed in search /inputSchema/properties/q/maxLength (24 \u2192 12)" in text
    assert "refuses 13 of the base's 30 valid calls" in text
    assert '"q": "aaaaaaaaaaaaa"' in text
    assert text.index("bound-narrowed") < text.index(
        "<details><summary>Other interface changes (2)"
    )
    assert "| search | bound-widened | /inputSchema/properties/n/maximum | 5 \u2192 9 |" in text


def test_a_description_is_a_word_diff_and_inert() -> None:
    assert word_diff("Search the notes.", "Search all notes.") == "Search ~~the~~ **all** notes."
    text = render_markdown(DIFF, ReportContext(failed=False, seeds=(41,)))
    section = text[text.index("### Interface changes") :]
    assert "</details> @" not in section and "<!-- x" not in section
    assert "@owner" not in section and "https://" not in section and " #12" not in section
    assert "&lt;/details&gt;" in section and "\uff20owner" in section


def test_no_interface_change_no_section() -> None:
    assert render_interface_section({**DIFF, "interface": []}) == []
    assert render_interface_section({"tools": []}) == []


def test_sarif_and_annotations_point_at_the_changed_line_where_it_is_known() -> None:
    import json

    from toolfuzz_gate.core.report.annotations import render_annotations
    from toolfuzz_gate.core.report.context import SchemaSource
    from toolfuzz_gate.core.report.sarif import render_sarif

    lines = {
        "/tools/0/inputSchema": 4,
        "/tools/0/inputSchema/properties/q": 7,
        "/tools/0/inputSchema/properties/q/maxLength": 8,
    }
    source = SchemaSource("tools.json", lines, "/tools/0/inputSchema")
    context = ReportContext(failed=False, seeds=(41,), sources={"search": source})
    results = json.loads(render_sarif(DIFF, context))["runs"][0]["results"]
    [breaking] = [r for r in results if r["ruleId"] == "breaking-change"]
    region = breaking["locations"][0]["physicalLocation"]
    assert (region["artifactLocation"]["uri"], region["region"]["startLine"]) == ("tools.json", 8)
    assert (
        breaking["level"] == "warning"
        and "refuses 13 of the base's 30" in breaking["message"]["text"]
    )
    annotations = render_annotations(DIFF, context)
    assert (
        "::error file=tools.json,line=8,title=toolfuzz-gate%3A breaking interface change::"
        in annotations
    )
    # an MCP server's listing has no line: nothing is pointed at
    unknown = ReportContext(failed=False, seeds=(41,))
    assert "breaking-change" not in [
        r["ruleId"] for r in json.loads(render_sarif(DIFF, unknown))["runs"][0]["results"]
    ]
