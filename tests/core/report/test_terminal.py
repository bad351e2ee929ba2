"""The terminal summary names every broken check as the receipt does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.documents import doc
from toolfuzz_gate.core.campaign.invariants import INVARIANTS
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.report.terminal import render_receipt_summary
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.registry import build_handler

FIXTURES = Path(__file__).parents[2] / "fixtures" / "poster_faults"


def test_each_broken_invariant_is_shown_with_the_failure_classes_its_counterexamples_carry(
    monkeypatch: Any,
) -> None:
    monkeypatch.chdir(FIXTURES)
    schema = json.loads((FIXTURES / "poster_schema.json").read_text(encoding="utf-8"))
    config = HandlerConfig(
        "python", "lax_width:render_poster", rejects=("toolfuzz_gate.contract.poster:ToolError",)
    )
    with build_handler(config) as handler:
        receipt = fuzz(
            schema,
            handler,
            ToolSpec("renderPoster"),
            FuzzConfig(41, 24),
            handler_label=config.label(),
            replay_command="",
        ).receipt
    text = render_receipt_summary(receipt, "r.json")
    receipt = doc(receipt)
    broken = [name for name, held in receipt["invariants"].items() if not held]
    assert broken, "the lax handler breaks at least one invariant"
    classes = {inv.name: {f.value for f in inv.failures} for inv in INVARIANTS}
    for name in broken:
        carried = sorted(
            {c["failure"] for c in receipt["counterexamples"] if c["failure"] in classes[name]}
        )
        assert carried
        assert f"{name} ({', '.join(carried)})" in text
    for example in receipt["counterexamples"]:
        assert f"    {example['failure']} at " in text
