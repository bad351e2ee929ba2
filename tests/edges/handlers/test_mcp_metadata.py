"""The mcp adapter honours what `tools/list` says beyond the schema (issue 14), against a
real stdlib server (`meta_mcp.py`): a tool that requires task augmentation is never called
plainly, and progress notifications put a call's timeout off, up to a hard maximum."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers import mcp
from toolfuzz_gate.edges.handlers.base import Deadline
from toolfuzz_gate.edges.handlers.mcp import McpHandler, list_tools
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
from toolfuzz_gate.errors import HandlerError, TaskRequiredError

SERVER = (
    sys.executable,
    str(Path(__file__).resolve().parents[2] / "fixtures" / "mcp_tool" / "meta_mcp.py"),
)
TIMEOUT_MS = 250
"""Per call; `long` and `hush` work 5 x 0.1 s, twice that."""


def config(tool: str = "", **options: Any) -> HandlerConfig:
    return HandlerConfig("mcp", target=tool, argv=SERVER, timeout_ms=TIMEOUT_MS, **options)


@pytest.fixture
def long() -> Iterator[McpHandler]:
    with McpHandler(config("long")) as handler:
        yield handler


def test_the_listing_keeps_task_support_and_only_boolean_hints() -> None:
    tools = {tool["name"]: tool for tool in list_tools(config())}
    assert tools["research"]["taskSupport"] == "required"
    assert tools["annotated"]["taskSupport"] == "optional"
    assert tools["annotated"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": True,
    }
    assert "taskSupport" not in tools["plain"] and tools["plain"]["annotations"] == {}


def test_a_tool_that_requires_tasks_is_refused_before_any_call() -> None:
    with pytest.raises(TaskRequiredError) as raised:
        McpHandler(config("research"))
    assert raised.value.code == "handler.task-required"
    assert isinstance(raised.value, HandlerError)  # every entry point already handles it
    assert "taskSupport: required" in raised.value.message


def test_a_tool_whose_tasks_are_optional_is_called_plainly() -> None:
    with McpHandler(config("annotated")) as handler:
        outcome = handler.call({"n": 3})
    assert outcome.kind is OutcomeKind.ACCEPTED and outcome.structured == {"n": 3}


@pytest.mark.slow
def test_progress_notifications_keep_a_long_call_alive(long: McpHandler) -> None:
    first = long.call({})
    assert first.kind is OutcomeKind.ACCEPTED, first.message
    second = long.call({})
    assert second.kind is OutcomeKind.ACCEPTED, second.message
    assert isinstance(first.structured, dict) and isinstance(second.structured, dict)
    tokens = first.structured["token"], second.structured["token"]
    assert all(type(token) is int for token in tokens) and tokens[0] != tokens[1]


def test_without_progress_the_same_work_times_out() -> None:
    with McpHandler(config("hush")) as handler:
        outcome = handler.call({})
        assert outcome.kind is OutcomeKind.TIMEOUT
        assert outcome.message == "no answer within 0.25 s"
        assert handler.call({"x": 1}).kind is OutcomeKind.REJECTED  # on a fresh server


@pytest.mark.slow
def test_progress_forever_times_out_at_the_hard_maximum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp, "PROGRESS_MAX_FACTOR", 4)  # 1 s in all, to keep the test short
    with McpHandler(config("forever")) as handler:
        outcome = handler.call({})
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert outcome.message == (
        "no answer within 1 s, the most progress notifications extend a 0.25 s timeout to"
    )


def test_the_effects_snapshot_asks_for_no_progress() -> None:
    # `long` as its own effects tool: without a token it never reports, so the snapshot
    # before the call is held to the plain per-call timeout.
    with McpHandler(config("long", effects="long")) as handler:
        outcome = handler.call({})
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert outcome.message == "the effects tool long no answer within 0.25 s"


def test_a_deadline_moves_one_window_past_each_sign_of_life_up_to_its_limit() -> None:
    deadline = Deadline(2.0, 30.0, start=100.0)
    assert (deadline.at, deadline.limit) == (102.0, 130.0)
    assert not deadline.extended and not deadline.capped
    deadline.extend(101.0)
    assert deadline.at == 103.0 and deadline.extended
    deadline.extend(100.5)  # an older sign of life never pulls it in
    assert deadline.at == 103.0
    deadline.extend(129.0)
    assert deadline.at == 130.0 and deadline.capped
    assert Deadline(6.0, 1.0, start=0.0).limit == 6.0  # never less than one window


@pytest.mark.slow
def test_a_longer_budget_forgives_more_silence_under_the_same_ceiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mcp, "PROGRESS_MAX_FACTOR", 4)
    with McpHandler(config("forever")) as handler:
        handler.scale_timeout(3.0)  # as confirming a timeout does
        outcome = handler.call({})
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert outcome.message == (
        "no answer within 1 s, the most progress notifications extend a 0.25 s timeout to"
    )
