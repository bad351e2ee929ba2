"""The policy's `agent` section: how much of the ToolFuzz method agent mode runs (pure).

ToolFuzz's own defaults are larger (10 prompt sets per tool, templates with up to three
slots); ours keep a run, the tests and the worked example cheap, and the policy raises
them: every number here is a count of model requests or agent replies paid for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.errors import PolicyError

MAX_CONTEXT = 2_000
"""Characters of one tool's user context (the schema bounds it too)."""


@dataclass(frozen=True)
class AgentSettings:
    """How many prompt sets, slots, infills, documentation probes and agent replies."""

    prompt_sets: int = 2
    """Prompt sets asked for per tool (ToolFuzz: 10)."""
    slots: int = 3
    """The most slots ([A], [B], [C]) one template may have (ToolFuzz: 3)."""
    infills: int = 3
    """Infills (prompts) asked for per prompt set."""
    probes: int = 3
    """Documentation probes asked for per tool (0: none)."""
    steps: int = 6
    """Model replies one agent run may take before it ends as `step-limit`."""
    context: tuple[tuple[str, str], ...] = ()
    """(tool, text): what a user of the tool knows that its documentation does not say
    (ToolFuzz's tool context), given to every request that writes prompts for it."""

    def context_for(self, tool: str) -> str:
        return next((text for name, text in self.context if name == tool), "")


PolicyErrorAt = Callable[[str, str, str], PolicyError]


def parse_agent(
    given: Mapping[str, Any] | None, tools: set[str] | None, error_at: PolicyErrorAt
) -> AgentSettings:
    """The settings an already schema-checked `agent` section describes; a context for a
    tool the policy does not name is an error (it would silently do nothing). `tools`:
    the policy's tool names, None when an entry takes every tool of a file or server (its
    tools are named only when it is expanded, so the names cannot be checked here)."""
    given = given or {}
    context = given.get("context", {})
    for name in sorted(context):
        if tools is not None and name not in tools:
            raise error_at(
                jp.join("/agent/context", name),
                f"agent.context names {name!r}, which is not a tool of this policy",
                "name a tool of `tools` (its `name`)",
            )
    defaults = AgentSettings()
    return AgentSettings(
        prompt_sets=int(given.get("prompt_sets", defaults.prompt_sets)),
        slots=int(given.get("slots", defaults.slots)),
        infills=int(given.get("infills", defaults.infills)),
        probes=int(given.get("probes", defaults.probes)),
        steps=int(given.get("steps", defaults.steps)),
        context=tuple(sorted((str(k), str(v).strip()[:MAX_CONTEXT]) for k, v in context.items())),
    )
