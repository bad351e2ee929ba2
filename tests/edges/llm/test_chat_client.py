"""The chat-completions client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket

import pytest

from tests.llm_server import Call, Canned, LoopbackModel, Turn, completion, sequence
from toolfuzz_gate.core.agent.chat import parse_reply
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.llm.chat_client import ChatClient, Retries
from toolfuzz_gate.errors import LlmError

KEY = "sk-test-0123456789abcdefghijklmnop"
BODY: JSONObject = {"model": "stand-in", "messages": [{"role": "user", "content": "hi"}]}
OK = Turn("hello")


def test_a_request_is_posted_with_the_key_as_a_bearer_token() -> None:
    with LoopbackModel(sequence([Turn(calls=(Call("f", '{"a":1}'),))])) as model:
        answer = ChatClient(model.url, KEY, sleep=_never)(BODY)
    assert answer == completion(Turn(calls=(Call("f", '{"a":1}'),)))
    (logged,) = model.requests
    assert logged.path == "/v1/chat/completions"
    assert logged.headers["Authorization"] == f"Bearer {KEY}"
    assert logged.body == BODY
    assert parse_reply(answer).tool_calls[0].arguments == '{"a":1}'


def test_without_a_key_no_authorization_header_is_sent() -> None:
    with LoopbackModel(sequence([OK])) as model:
        ChatClient(model.url, None, sleep=_never)(BODY)
    assert "Authorization" not in model.requests[0].headers


def test_429_and_500_are_retried_with_backoff() -> None:
    waits: list[float] = []
    faults = [Canned(429, "{}"), Canned(500, "{}"), Canned(503, "{}")]
    with LoopbackModel(sequence([*faults, OK])) as model:
        answer = ChatClient(model.url, KEY, sleep=waits.append)(BODY)
    assert parse_reply(answer).content == "hello"
    assert len(model.requests) == 4
    assert waits == [1.0, 2.0, 4.0]


def test_retry_after_is_honoured_up_to_the_cap() -> None:
    waits: list[float] = []
    faults = [
        Canned(429, "{}", (("Retry-After", "7"),)),
        Canned(429, "{}", (("Retry-After", "900"),)),
    ]
    with LoopbackModel(sequence([*faults, OK])) as model:
        ChatClient(model.url, KEY, sleep=waits.append)(BODY)
    assert waits == [7.0, 30.0]


def test_a_fault_that_persists_is_an_error_after_the_bounded_attempts() -> None:
    waits: list[float] = []
    with LoopbackModel(sequence([Canned(500, '{"error": "boom"}')] * 3)) as model:
        client = ChatClient(model.url, KEY, retries=Retries(attempts=3), sleep=waits.append)
        with pytest.raises(LlmError) as raised:
            client(BODY)
    assert raised.value.code == "llm.failed"
    assert "HTTP 500" in raised.value.message and "after 3 attempts" in raised.value.message
    assert len(model.requests) == 3 and len(waits) == 2


def test_rate_limiting_beyond_the_retries_is_its_own_code() -> None:
    with LoopbackModel(sequence([Canned(429, "slow down")] * 2)) as model:
        client = ChatClient(model.url, KEY, retries=Retries(attempts=2), sleep=_ignore)
        with pytest.raises(LlmError) as raised:
            client(BODY)
    assert raised.value.code == "llm.rate-limited"


def test_a_key_the_endpoint_echoes_is_never_in_the_error() -> None:
    echo = f'{{"error": {{"message": "Incorrect API key provided: {KEY}"}}}}'
    with LoopbackModel(sequence([Canned(401, echo)])) as model:
        with pytest.raises(LlmError) as raised:
            ChatClient(model.url, KEY, sleep=_never)(BODY)
    assert raised.value.code == "llm.forbidden"
    assert len(model.requests) == 1  # not retried
    assert KEY not in raised.value.render() and "Incorrect API key" in raised.value.render()
    assert KEY not in repr(ChatClient(model.url, KEY))


def test_an_unreachable_endpoint_is_retried_then_reported() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits: list[float] = []
    client = ChatClient(f"http://127.0.0.1:{port}/v1", KEY, sleep=waits.append)
    with pytest.raises(LlmError) as raised:
        client(BODY)
    assert raised.value.code == "llm.unreachable"
    assert len(waits) == 3
    assert KEY not in raised.value.render()


def test_an_answer_that_is_not_json_is_malformed() -> None:
    with LoopbackModel(sequence([Canned(200, "<html>proxy login</html>")])) as model:
        with pytest.raises(LlmError) as raised:
            ChatClient(model.url, KEY, sleep=_never)(BODY)
    assert raised.value.code == "llm.malformed-response"


def _never(seconds: float) -> None:
    raise AssertionError(f"the client slept {seconds} s without a fault")


def _ignore(seconds: float) -> None:
    pass


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text", ['{"choices": NaN}', '{"usage": 1e400}', DEEP])
def test_an_answer_canonical_json_cannot_hold_is_malformed(text: str) -> None:
    with LoopbackModel(sequence([Canned(200, text)])) as model:
        with pytest.raises(LlmError) as raised:
            ChatClient(model.url, KEY, sleep=_never)(BODY)
    assert raised.value.code == "llm.malformed-response"


def test_a_plain_http_endpoint_is_never_reached_through_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # http is allowed on loopback only: a proxy from the environment would see the key in clear
    with LoopbackModel(sequence([OK])) as proxy, LoopbackModel(sequence([OK])) as model:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("http_proxy", proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        ChatClient(model.url, KEY, sleep=_never)(BODY)
    assert proxy.requests == [] and len(model.requests) == 1
