"""Start a tool's handler once and replay regression cases through it (edge)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.regression import RegressionCase, Replayed, replay_case
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.registry import build_handler


def replay_cases(
    handler: HandlerConfig,
    tool: ToolSpec,
    cases: Sequence[RegressionCase],
    is_valid: Callable[[JSON], bool] | None = None,
) -> list[Replayed]:
    """Each case judged against one running handler, in order (none started for no cases);
    `is_valid` judges the inputs under the tool's current schema when it is known."""
    if not cases:
        return []
    with build_handler(handler) as running:
        return [
            replay_case(case, running, tool, None if is_valid is None else is_valid(case.input))
            for case in cases
        ]
