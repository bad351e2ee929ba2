"""The fixed report scenario of the golden files: two tools, one new counterexample, one
fixed, one still failing, one unsupported keyword added (hand-written diff document)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.report.context import ReportContext, SchemaSource

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures" / "report"
POSTER_FILE = "tests/fixtures/report/renderPoster.schema.json"
SEARCH_FILE = "tests/fixtures/report/search.tools.json"


def diff() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / "diff.json").read_text(encoding="utf-8"))
    return loaded


def source(file: str, root: str = "") -> SchemaSource:
    return SchemaSource(file, line_index((REPO / file).read_text(encoding="utf-8")), root)


def context(**changes: Any) -> ReportContext:
    fields: dict[str, Any] = {
        "failed": True,
        "reasons": ("1 new counterexample; policy fails on new counterexamples",),
        "head_sha": "2222222",
        "base_sha": "1111111",
        "seeds": (41,),
        "key": "pr-7",
        "sources": {
            "renderPoster": source(POSTER_FILE),
            "searchDocs": source(SEARCH_FILE, "/tools/0/inputSchema"),
        },
    }
    fields.update(changes)
    return ReportContext(**fields)
