"""Cassette files: a record run never writes what a replay would refuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolfuzz_gate.core.agent.cassette import Cassette
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.llm.cassette_file import (
    MAX_CASSETTE_BYTES,
    load_cassette,
    open_session,
    write_cassette,
)
from toolfuzz_gate.errors import LlmError


def _recorded() -> Cassette:
    cassette = Cassette()
    request: JSONObject = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
    cassette.record(request, {"choices": [{"message": {"content": "x" * 5_000}}]})
    return cassette


def test_a_cassette_within_the_limit_is_written_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "c.json"
    write_cassette(path, _recorded())
    assert load_cassette(path).digest() == _recorded().digest()


def test_a_cassette_over_the_limit_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with pytest.raises(LlmError) as refused:
        write_cassette(path, _recorded(), limit=4_096)
    assert refused.value.code == "llm.cassette-invalid"
    assert "more than the 4,096 a replay reads" in refused.value.message
    assert not path.exists()


def test_a_record_session_checks_the_cassette_size_as_it_records() -> None:
    settings = LlmSettings("http://127.0.0.1:9/v1", "m", cassette="c.json", mode="record")
    session, client = open_session(settings, {})
    assert client is not None
    client.close()
    assert session.cassette.max_bytes == MAX_CASSETTE_BYTES
