"""Each way an endpoint fails gets a message and a hint naming its likely cause, against
real servers on 127.0.0.1 (issue 30: a 404 for a missing /v1 blamed the model's name, a
307 said "try again later", a read timeout said "check that the server is running")."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from tests.llm_server import Canned, LoopbackModel, Turn, sequence
from toolfuzz_gate.core.gate.llm_settings import Wire
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.llm.chat_client import ChatClient, Retries
from toolfuzz_gate.errors import LlmError

KEY = "sk-hints-test-0123456789abcdefghij"
BODY: JSONObject = {"model": "stand-in", "messages": [{"role": "user", "content": "hi"}]}
ONCE = Retries(attempts=1)


def _fail(client: ChatClient) -> LlmError:
    with pytest.raises(LlmError) as raised:
        client(BODY)
    return raised.value


def test_a_404_from_a_base_url_without_v1_says_so_not_check_the_model() -> None:
    with LoopbackModel(sequence([])) as model:
        base = model.url.removesuffix("/v1")
        error = _fail(ChatClient(base, KEY, retries=ONCE))
    assert model.requests[0].path == "/chat/completions"
    assert error.code == "llm.rejected"
    assert "does not end in /v1" in error.hint and f"try {base}/v1" in error.hint
    assert "llm.model" not in error.hint


def test_a_404_naming_the_model_points_at_the_model_whatever_the_root() -> None:
    """DeepSeek's or Perplexity's root has no /v1: an unknown model there is not a path."""
    unknown = Canned(404, '{"error": {"message": "The model `x` does not exist"}}')
    with LoopbackModel(sequence([unknown]), root="") as model:
        error = _fail(ChatClient(model.url, KEY, retries=ONCE))
    assert model.requests[0].path == "/chat/completions"
    assert "check llm.model" in error.hint and "/v1" not in error.hint


def test_a_404_under_v1_points_at_the_model() -> None:
    unknown = Canned(404, '{"error": {"code": "model_not_found"}}')
    with LoopbackModel(sequence([unknown])) as model:
        error = _fail(ChatClient(model.url, KEY, retries=ONCE))
    assert error.code == "llm.rejected" and "check llm.model" in error.hint


def test_a_404_from_an_azure_deployment_names_the_deployment_and_api_version() -> None:
    root = "/openai/deployments/geo"
    with LoopbackModel(sequence([]), root=root, query={"api-version": "2024-10-21"}) as model:
        wire = Wire(model.url, "/chat/completions", "api-key")  # the query is missing
        error = _fail(ChatClient(model.url, KEY, wire=wire, retries=ONCE))
    assert "deployment name" in error.hint and "api-version" in error.hint


def test_a_redirect_is_not_followed_and_names_where_it_points_sanitised() -> None:
    location = f"https://user:pw@elsewhere.example:8443/v1/chat/completions?sig={KEY}#frag"
    moved = Canned(307, "", (("Location", location),))
    with LoopbackModel(sequence([moved])) as model:
        error = _fail(ChatClient(model.url, KEY))  # not retried: no sleep is needed
    assert len(model.requests) == 1
    assert error.code == "llm.redirected"
    assert "https://elsewhere.example:8443/v1/chat/completions" in error.message
    assert "redirects are not followed" in error.message
    rendered = error.render()
    assert KEY not in rendered and "sig" not in rendered and "user:pw" not in rendered
    assert "try again later" not in rendered
    assert error.hint == "set llm.base_url to https://elsewhere.example:8443/v1"


def test_a_redirect_without_a_location_still_says_redirect() -> None:
    with LoopbackModel(sequence([Canned(301, "")])) as model:
        error = _fail(ChatClient(model.url, KEY))
    assert error.code == "llm.redirected" and "without a Location" in error.message


def test_a_server_that_answers_too_slowly_is_named_slow_not_absent() -> None:
    def slow(body: object) -> Turn:
        time.sleep(0.6)
        return Turn("late")

    with LoopbackModel(slow) as model:
        retries = Retries(attempts=1, read_timeout=0.2)
        error = _fail(ChatClient(model.url, KEY, retries=retries))
    assert error.code == "llm.unreachable"
    assert "did not answer within 0.2 s" in error.message
    assert "answered too slowly" in error.hint and "server is running but" in error.hint


@pytest.fixture
def dripping() -> Iterator[str]:
    """A server that sends its headers, one byte of the body, then nothing."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{")
            stop.wait(5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join()
    listener.close()


def test_an_answer_that_stops_dripping_is_a_read_timeout_too(dripping: str) -> None:
    error = _fail(ChatClient(dripping, KEY, retries=Retries(attempts=1, read_timeout=0.2)))
    assert "did not answer within 0.2 s" in error.message
    assert "answered too slowly" in error.hint


def test_a_refused_connection_says_nothing_listens_there() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = _fail(ChatClient(f"http://127.0.0.1:{port}/v1", KEY, retries=ONCE))
    assert error.code == "llm.unreachable"
    assert f"connection refused at 127.0.0.1:{port}" in error.message
    assert "start the model server" in error.hint


@pytest.mark.parametrize(
    ("said", "words"),
    [
        (
            "Unsupported value: 'temperature' does not support 0 with this model.",
            "temperature: null",
        ),
        ("Unrecognized request argument supplied: seed", "seed: null"),
        ("max_tokens: must be less than or equal to 8192", "lower llm.max_completion_tokens"),
        ("tools are not supported by this model", "check llm.model"),
    ],
)
def test_a_400_naming_a_parameter_the_policy_sends_says_which_to_change(
    said: str, words: str
) -> None:
    with LoopbackModel(sequence([Canned(400, f'{{"error": {{"message": "{said}"}}}}')])) as model:
        error = _fail(ChatClient(model.url, KEY, retries=ONCE))
    assert error.code == "llm.rejected" and words in error.hint


def test_a_refused_key_names_the_header_it_went_in() -> None:
    with LoopbackModel(sequence([]), headers={"api-key": KEY}) as model:
        wire = Wire(model.url, "/chat/completions", "Authorization")
        error = _fail(ChatClient(model.url, KEY, wire=wire, retries=ONCE))
    assert error.code == "llm.forbidden" and "Authorization header" in error.hint
    assert "llm.api_key_header" in error.hint


def test_anthropic_overloaded_529_is_retried() -> None:
    waits: list[float] = []
    with LoopbackModel(sequence([Canned(529, "{}"), Turn("ok")])) as model:
        ChatClient(model.url, KEY, sleep=waits.append)(BODY)
    assert len(model.requests) == 2 and waits == [1.0]


def test_https_to_a_plain_http_server_says_the_tls_handshake_failed() -> None:
    with LoopbackModel(sequence([])) as model:
        url = model.url.replace("http://", "https://")
        error = _fail(ChatClient(url, KEY, retries=ONCE))
    assert error.code == "llm.unreachable" and "TLS handshake" in error.message
    assert "speaks https" in error.hint and not model.requests
