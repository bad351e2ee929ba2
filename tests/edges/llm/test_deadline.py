"""Deadlines on the model endpoint and retries counted against the budget, against the
loopback stand-in: a slow-drip answer stops at the request's deadline, a dead endpoint at
the run's, each with its own code and hint; a retry is a request of `max_requests`, and a
replay charges the recording's retries."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.llm_server import Canned, Drip, LoopbackModel, Turn, dead_endpoint, sequence
from toolfuzz_gate.core.agent.cassette import Cassette, parse_cassette
from toolfuzz_gate.core.agent.session import ModelSession
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.llm.cassette_file import open_session
from toolfuzz_gate.errors import LlmError

ASKED: list[JSONObject] = [{"role": "user", "content": "Where is Paris?"}]
ANSWER = '{"choices": [{"message": {"role": "assistant", "content": "In France."}}]}'


def _settings(url: str, **given: object) -> LlmSettings:
    return LlmSettings(url, "stand-in", mode="live", **given)  # type: ignore[arg-type]


def _ask(settings: LlmSettings) -> tuple[LlmError, float]:
    session, client = open_session(settings, {}, sleep=lambda seconds: None)
    started = time.monotonic()
    try:
        with pytest.raises(LlmError) as raised:
            session.ask(ASKED)
    finally:
        assert client is not None
        client.close()
    return raised.value, time.monotonic() - started


def test_a_slow_drip_answer_stops_at_the_request_deadline() -> None:
    # 300 bytes at one per 0.05 s: 15 s to finish, each read well inside the read timeout
    with LoopbackModel(lambda body: Drip(ANSWER + " " * 200, 0.05)) as model:
        settings = _settings(model.url, request_deadline_s=0.4, run_deadline_s=60.0)
        error, took = _ask(settings)
    assert error.code == "llm.request-deadline"
    assert "within 0.4 s (llm.request_deadline_s)" in error.message
    assert "raise llm.request_deadline_s" in error.hint
    assert took < 3.0  # not the 15 s the answer takes


def test_a_dead_endpoint_stops_at_the_run_deadline() -> None:
    with dead_endpoint() as url:
        error, took = _ask(_settings(url, request_deadline_s=60.0, run_deadline_s=0.4))
    assert error.code == "llm.run-deadline"
    assert "0.4 s (llm.run_deadline_s)" in error.message
    assert "check that the endpoint answers at all" in error.hint
    assert took < 3.0  # not the 4 attempts of 120 s reads


def test_a_drip_within_the_deadline_is_answered() -> None:
    with LoopbackModel(lambda body: Drip(ANSWER, 0.001)) as model:
        session, client = open_session(_settings(model.url, request_deadline_s=30.0), {})
        assert session.ask(ASKED).content == "In France."
        assert client is not None
        client.close()


def test_retries_count_toward_max_requests() -> None:
    failing = Canned(500, '{"error": "down"}')
    with LoopbackModel(lambda body: failing) as model:
        error, _ = _ask(_settings(model.url, max_requests=3))
        assert error.code == "llm.budget-exceeded"
        assert len(model.requests) == 3  # not the client's 4 attempts: the budget is 3


def test_a_replay_charges_the_recorded_retries(tmp_path: Path) -> None:
    answers = sequence([Canned(503, "busy"), Canned(500, "down"), Turn("In France.")])
    with LoopbackModel(answers) as model:
        settings = _settings(model.url, max_requests=5, cassette=str(tmp_path / "c.json"))
        recording = replace(settings, mode="record")
        session, client = open_session(recording, {}, sleep=lambda seconds: None)
        assert session.ask(ASKED).content == "In France."
        assert client is not None
        client.close()
    assert session.budget.requests == 3
    (entry,) = session.cassette.entries.values()
    assert entry["attempts"] == 3
    replayed = parse_cassette(session.cassette.document(), "c.json")
    again = ModelSession(replace(settings, mode="replay"), replayed, None)
    assert again.ask(ASKED).content == "In France."
    assert again.budget.requests == 3  # what the recording spent, so the receipts agree
    tight = ModelSession(replace(settings, mode="replay", max_requests=2), replayed, None)
    with pytest.raises(LlmError, match="budget"):
        tight.ask(ASKED)  # a replay stops where a recording under this budget would


@pytest.mark.parametrize("attempts", [1, 0, 101, "3", True])
def test_a_cassette_entry_with_a_bad_attempt_count_is_refused(attempts: object) -> None:
    recorded = Cassette()
    recorded.record({"model": "stand-in", "messages": list(ASKED)}, {"choices": []}, 2)
    document: dict[str, Any] = json.loads(json.dumps(recorded.document()))
    assert parse_cassette(document, "c.json").entries == recorded.entries
    (entry,) = document["entries"].values()
    entry["attempts"] = attempts
    with pytest.raises(LlmError, match="`attempts` is not an integer from 2 to 100"):
        parse_cassette(document, "c.json")
