"""The policy's `stateful` section: whether and how each MCP server's stateful campaign runs
(pure; its shape is checked by `policy.schema.json` before this reads it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.stateful.links import Link
from toolfuzz_gate.core.campaign.stateful.sequence_checks import CHECKS


@dataclass(frozen=True)
class StatefulSettings:
    enabled: bool = True
    sequences: int = 24
    max_calls: int = 6
    shrink_runs: int = 30
    checks: tuple[str, ...] = tuple(CHECKS)
    kinds: tuple[tuple[str, str], ...] = ()
    links: tuple[Link, ...] = ()

    def kind_of(self, tool: str) -> str | None:
        return dict(self.kinds).get(tool)


def parse_stateful(section: Mapping[str, Any] | None) -> StatefulSettings:
    if not section:
        return StatefulSettings()
    switches = section.get("checks", {})
    defaults = StatefulSettings()
    return StatefulSettings(
        enabled=section.get("enabled", True),
        sequences=section.get("sequences", defaults.sequences),
        max_calls=section.get("max_calls", defaults.max_calls),
        shrink_runs=section.get("shrink_runs", defaults.shrink_runs),
        checks=tuple(name for name in CHECKS if switches.get(name, True)),
        kinds=tuple(sorted(section.get("kinds", {}).items())),
        links=tuple(
            Link(item["from"], item["output"], item["to"], item["input"], True, "policy")
            for item in section.get("links", [])
        ),
    )
