"""Hostile diff documents and contexts for the report property tests."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.profiles import examples
from toolfuzz_gate.core.report.context import ReportContext, SchemaSource

SETTINGS = settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])

ATOMS = (
    "```",
    "`",
    "````````",
    "~~~",
    "-->",
    "<!--",
    "<!-- toolfuzz-gate:default -->",
    "<details>",
    "</details>",
    "@user",
    "@",
    "#12",
    "#",
    "org/repo#7",
    "\u202e",
    "\u2066",
    "\r",
    "\n",
    "\r\n",
    "\x00",
    "\x1b[31m",
    "\x85",
    "\u2028",
    "\ud800",
    "::",
    "::error::",
    "%0A",
    "%",
    ",",
    ":",
    "|",
    "\\",
    "*_[]",
    "&amp;",
    "'",
    '"',
    "$(rm -rf ~)",
    "\U0001f600",
    "https://evil.example/x",
    "www.evil.example",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\U000e0041",
    "\u2060",
)

atoms = st.sampled_from(ATOMS)
hostile_text = st.one_of(
    st.lists(st.one_of(atoms, st.text(max_size=12)), max_size=8).map("".join),
    st.sampled_from(("`" * 300, "@a" * 3000, "<!--" * 2000, "x" * 70_000)),
)
hostile_json: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), hostile_text),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(hostile_text, children, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def counterexamples(draw: st.DrawFn, tool: str) -> dict[str, Any]:
    return {
        "tool": tool,
        "failure": draw(st.one_of(st.sampled_from(("crash", "hostile-accepted")), hostile_text)),
        "fingerprint": draw(hostile_text),
        "path": draw(hostile_text),
        "error": {
            "reason": draw(hostile_text),
            "code": draw(hostile_text),
            "message": draw(hostile_text),
        },
        "input": draw(hostile_json),
    }


@st.composite
def tool_entries(draw: st.DrawFn) -> dict[str, Any]:
    tool = draw(hostile_text)
    groups = st.lists(counterexamples(tool), max_size=3)
    item = st.fixed_dictionaries({"keyword": hostile_text, "path": hostile_text})
    items = st.lists(item, max_size=2)
    reason = st.fixed_dictionaries(
        {
            "code": st.one_of(st.sampled_from(("schema.limit-enum",)), hostile_text),
            "pointer": hostile_text,
            "line": st.one_of(st.none(), st.integers(-1, 10**6)),
            "message": hostile_text,
            "hint": hostile_text,
        }
    )
    reasons = draw(st.lists(reason, max_size=2))
    return {
        "tool": tool,
        "status": draw(st.sampled_from(("added", "removed", "changed", "unchanged"))),
        "schemaDigestChanged": False,
        "counterexamples": {
            "new": draw(groups),
            "fixed": draw(groups),
            "stillFailing": draw(groups),
            "notRunOnHead": draw(groups),
        },
        "refused": {
            "state": "new" if reasons else None,
            "added": [r["code"] for r in reasons[:1]],
            "base": [],
            "head": reasons,
        },
        "unsupported": {"added": draw(items), "removed": [], "still": draw(items)},
        "coverage": [],
        "invariants": [],
        "receipt": {"base": draw(hostile_text), "head": draw(hostile_text)},
    }


diffs = st.lists(tool_entries(), max_size=3).map(
    lambda entries: {"format": "toolfuzz-diff/1", "tools": entries, "totals": {"new": 1}}
)


@st.composite
def contexts(draw: st.DrawFn, diff: dict[str, Any]) -> ReportContext:
    sources = {}
    for entry in diff["tools"]:
        lines = draw(st.dictionaries(hostile_text, st.integers(1, 10_000), max_size=3))
        sources[entry["tool"]] = SchemaSource(draw(hostile_text), lines, draw(hostile_text))
    return ReportContext(
        failed=draw(st.booleans()),
        reasons=tuple(draw(st.lists(hostile_text, max_size=3))),
        head_sha=draw(st.one_of(st.none(), hostile_text)),
        base_sha=draw(st.one_of(st.none(), hostile_text)),
        seeds=(41,),
        key=draw(hostile_text),
        sources=sources,
    )
