"""Requests from the documentation alone: read from the model's list, judged on their own."""

from __future__ import annotations

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.documentation_probe import (
    probe_case,
    probe_entry,
    probe_messages,
    read_prompts,
)
from toolfuzz_gate.core.agent.loop import AgentRun, FunctionTool, Step
from toolfuzz_gate.core.campaign.findings import InputKind


def test_requests_are_read_one_per_line_without_marks_quotes_or_repeats() -> None:
    reply = Reply('1. Where is Paris?\n\n- "Find Rome"\n2) Where is Paris?\n* Oslo\n• Bern', (), 0)
    assert read_prompts(reply) == ["Where is Paris?", "Find Rome", "Oslo"]
    assert read_prompts(Reply("", (), 0)) == []


def test_the_request_names_the_tool_and_its_description_only() -> None:
    text = str(probe_messages(FunctionTool("geocode", "Find a city.", {}), 2)[1]["content"])
    assert text.startswith("Write 2 different natural requests")
    assert "'geocode'" in text and "Find a city." in text


def test_a_call_is_judged_by_its_own_validity() -> None:
    valid = probe_case("geocode", {"city": "Paris"}, True)
    assert (valid.input_kind, valid.mutation, valid.valid) == (InputKind.VALID, "valid", True)
    invalid = probe_case("geocode", {"city": 3}, False)
    assert (invalid.input_kind, invalid.mutation, invalid.valid) == (
        InputKind.HOSTILE,
        "agent",
        False,
    )


def test_an_entry_collects_the_failures_of_every_call() -> None:
    steps = (
        Step("call", "geocode", "{}", {}, {"failures": ["crash"]}),
        Step("bad-arguments", "geocode", "{", None, {}),
        Step("call", "geocode", "{}", {}, {"failures": ["crash", "timeout"]}),
    )
    entry = probe_entry("p", AgentRun("p", steps, "", "answered", 3))
    assert (entry["failures"], entry["failing"]) == (["crash", "timeout"], True)
    quiet = probe_entry("p", AgentRun("p", steps[1:2], "ok", "answered", 2))
    assert (quiet["failures"], quiet["failing"]) == ([], False)
