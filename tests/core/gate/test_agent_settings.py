"""The policy's `agent` section: its sizes, its defaults, and the context's tool names."""

from __future__ import annotations

import pytest

from toolfuzz_gate.core.gate.agent_settings import AgentSettings, parse_agent
from toolfuzz_gate.errors import PolicyError


def _error(pointer: str, message: str, hint: str) -> PolicyError:
    return PolicyError(message, file="p.yml", line=1, key=pointer, hint=hint)


def test_the_defaults_are_small_and_each_key_overrides_one() -> None:
    assert parse_agent(None, {"t"}, _error) == AgentSettings(2, 3, 3, 3, 6, ())
    given = {"prompt_sets": 10, "slots": 1, "infills": 5, "probes": 0, "steps": 4}
    assert parse_agent(given, {"t"}, _error) == AgentSettings(10, 1, 5, 0, 4, ())


def test_the_context_is_per_tool_and_names_a_tool_of_the_policy() -> None:
    found = parse_agent({"context": {"b": " users in France ", "a": "x"}}, {"a", "b"}, _error)
    assert found.context == (("a", "x"), ("b", "users in France"))
    assert found.context_for("b") == "users in France" and found.context_for("c") == ""
    with pytest.raises(PolicyError, match=r"agent\.context names 'c', which is not a tool"):
        parse_agent({"context": {"c": "x"}}, {"a"}, _error)
    # a whole entry's tools are named when it is expanded: nothing to check the name against
    assert parse_agent({"context": {"c": "x"}}, None, _error).context_for("c") == "x"
