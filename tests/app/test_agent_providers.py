"""Issue 30, providers: the same agent run through Anthropic's Messages API and through an
Azure deployment URL (`api-version` query, `api-key` header), recorded against the
loopback stand-in speaking each, and replayed byte for byte with no endpoint at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_agent import KEY, MODEL, _agent, _replay_policy, _repository
from tests.app.test_agent import receipts as receipts  # the module's campaign fixture
from tests.llm_server import MESSAGES, LoopbackModel
from toolfuzz_gate.exitcodes import ExitCode

AZURE_ROOT = "/openai/deployments/geo-4o"
AZURE_QUERY = {"api-version": "2024-10-21"}


def _record_and_replay(
    tmp_path: Path, receipts: Path, model: LoopbackModel, **llm: Any
) -> tuple[bytes, list[Any], str]:
    """The receipt a record run wrote (checked equal to two replays' with the endpoint
    gone), the requests the endpoint saw, and the cassette's text."""
    with model:
        root = _repository(tmp_path, base_url=model.url, mode="record", **llm)
        code, out, err = _agent(root, receipts, tmp_path / "recorded", KEY=KEY)
        assert code == ExitCode.FAILED, out + err
    _replay_policy(root)
    for attempt in ("one", "two"):
        code, out, err = _agent(root, receipts, tmp_path / attempt)
        assert code == ExitCode.FAILED, out + err
        assert (tmp_path / attempt / "geocode.json").read_bytes() == (
            tmp_path / "recorded" / "geocode.json"
        ).read_bytes()
    cassette = (root / "c.json").read_text(encoding="utf-8")
    return (tmp_path / "recorded" / "geocode.json").read_bytes(), model.requests, cassette


def _findings(receipt: bytes) -> list[Any]:
    document = json.loads(receipt)
    return [(f["input"], f["outcome"], f["agentReachable"]) for f in document["findings"]]


@pytest.mark.slow
def test_the_messages_api_finds_what_chat_completions_finds_and_replays_byte_for_byte(
    tmp_path: Path, receipts: Path
) -> None:
    chat, _, _ = _record_and_replay(
        tmp_path / "chat", receipts, LoopbackModel(MODEL), api_key_env="KEY"
    )
    native, asked, cassette = _record_and_replay(
        tmp_path / "native",
        receipts,
        LoopbackModel(MODEL, api=MESSAGES),
        api="anthropic-messages",
        api_key_env="KEY",
        max_completion_tokens=512,
    )
    assert _findings(native) == _findings(chat)
    assert any(reachable for _, _, reachable in _findings(native))
    assert json.loads(native)["llm"]["api"] == "anthropic-messages"
    assert "api" not in json.loads(chat)["llm"]
    assert json.loads(native)["llm"]["parameters"] == {
        "max_completion_tokens": 512,
        "temperature": 0,
    }
    assert asked and all(r.path == "/v1/messages" for r in asked)
    assert all(r.headers["x-api-key"] == KEY for r in asked)
    assert all(r.headers["anthropic-version"] == "2023-06-01" for r in asked)
    assert all("Authorization" not in r.headers for r in asked)
    assert all(r.body["max_tokens"] == 512 and "seed" not in r.body for r in asked)
    # the agent's turns went out as tool_use and tool_result blocks, and came back
    turns = [t for r in asked for t in r.body["messages"] if isinstance(t["content"], list)]
    kinds = {block["type"] for turn in turns for block in turn["content"]}
    assert {"tool_use", "tool_result"} <= kinds
    assert KEY not in cassette and KEY not in native.decode()


def test_an_azure_deployment_url_gets_its_api_version_and_its_api_key_header(
    tmp_path: Path, receipts: Path
) -> None:
    azure = LoopbackModel(MODEL, root=AZURE_ROOT, headers={"api-key": KEY}, query=AZURE_QUERY)
    receipt, asked, cassette = _record_and_replay(
        tmp_path,
        receipts,
        azure,
        api_key_env="KEY",
        api_key_header="api-key",
        query=AZURE_QUERY,
        headers={"x-ms-client-request-id": "trace-7f3a"},
        temperature=None,
        seed=None,
    )
    assert any(reachable for _, _, reachable in _findings(receipt))
    assert asked and all(r.path == AZURE_ROOT + "/chat/completions" for r in asked)
    assert all(r.query == {"api-version": ["2024-10-21"]} for r in asked)
    assert all(r.headers["x-ms-client-request-id"] == "trace-7f3a" for r in asked)
    assert all("Authorization" not in r.headers for r in asked)
    assert all("temperature" not in r.body and "seed" not in r.body for r in asked)
    assert json.loads(receipt)["llm"]["parameters"] == {}
    assert KEY not in cassette and KEY not in receipt.decode()
    assert "trace-7f3a" not in cassette  # headers travel, they are not recorded
