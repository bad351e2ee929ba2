"""The model session: replay answers from the cassette only, record keeps every exchange."""

from __future__ import annotations

import pytest

from toolfuzz_gate.core.agent.cassette import Cassette
from toolfuzz_gate.core.agent.chat import build_request
from toolfuzz_gate.core.agent.session import ModelSession
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.errors import LlmError

MESSAGES: list[JSONObject] = [{"role": "user", "content": "hello"}]


def _answer(text: str, tokens: int = 10) -> JSON:
    return {"choices": [{"message": {"content": text}}], "usage": {"total_tokens": tokens}}


def _settings(mode: str, max_tokens: int = 1000) -> LlmSettings:
    return LlmSettings("http://h/v1", "m", cassette="c.json", mode=mode, max_tokens=max_tokens)


def test_record_then_replay_gives_the_same_replies_without_a_transport() -> None:
    sent: list[JSONObject] = []

    def transport(body: JSONObject) -> JSON:
        sent.append(body)
        return _answer("hi there")

    recording = ModelSession(_settings("record"), Cassette(), transport)
    first = recording.ask(MESSAGES)
    assert sent == [build_request(_settings("record"), MESSAGES)]
    replaying = ModelSession(_settings("replay"), recording.cassette, None)
    assert replaying.ask(MESSAGES) == first
    assert replaying.budget.spent() == recording.budget.spent()


def test_replay_without_the_request_is_a_cassette_miss() -> None:
    session = ModelSession(_settings("replay"), Cassette(), None)
    with pytest.raises(LlmError) as raised:
        session.ask(MESSAGES)
    assert raised.value.code == "llm.cassette-miss" and "'hello'" in raised.value.message


def test_live_mode_records_nothing() -> None:
    session = ModelSession(_settings("live"), Cassette(), lambda body: _answer("x"))
    session.ask(MESSAGES)
    assert session.cassette.entries == {}


def test_the_budget_stops_requests_before_the_transport_is_used() -> None:
    sent: list[JSONObject] = []

    def transport(body: JSONObject) -> JSON:
        sent.append(body)
        return _answer("x", tokens=30)

    session = ModelSession(_settings("live", max_tokens=50), Cassette(), transport)
    session.ask(MESSAGES)
    session.ask(MESSAGES)
    with pytest.raises(LlmError) as raised:
        session.ask(MESSAGES)
    assert raised.value.code == "llm.budget-exceeded"
    assert len(sent) == 2


def test_an_answer_without_usage_is_counted_and_charged_an_estimate() -> None:
    unmetered: JSON = {"choices": [{"message": {"content": "x" * 400}}]}
    session = ModelSession(_settings("live", max_tokens=150), Cassette(), lambda body: unmetered)
    session.ask(MESSAGES)
    assert session.unmetered == 1
    assert session.budget.tokens >= 100  # about four characters a token
    session.ask(MESSAGES)
    with pytest.raises(LlmError) as raised:  # the estimate spends the budget as usage would
        session.ask(MESSAGES)
    assert raised.value.code == "llm.budget-exceeded"
