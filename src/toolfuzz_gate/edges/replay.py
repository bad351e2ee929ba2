"""Start a tool's handler once and replay regression cases through it (edge)."""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.regression import RegressionCase, Replayed, replay_case
from toolfuzz_gate.core.tool import ToolSpec
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler


def replay_cases(
    handler: HandlerConfig, tool: ToolSpec, cases: Sequence[RegressionCase]
) -> list[Replayed]:
    """Each case judged against one running handler, in order (none started for no cases)."""
    if not cases:
        return []
    with build_handler(handler) as running:
        return [replay_case(case, running, tool) for case in cases]
