"""The http: URL adapter against real fixture servers on 127.0.0.1: real sockets and processes."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact, digest
from toolfuzz_gate.edges.handlers.base import RESPONSE_SLACK_BYTES
from toolfuzz_gate.edges.handlers.http import HttpHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
from toolfuzz_gate.errors import HandlerError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "http_tool" / "poster_http.py"
SECRET = "Bearer s3cret-t0ken-the-logs-must-never-show"
VALID: JSONObject = {
    "title": "Harvest fair",
    "format": "png",
    "width": 100,
    "height": 100,
    "palette": ["#ffcc00", "navy"],
}


class Server:
    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process = process
        self.port = port

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def get(self, path: str) -> Any:
        """A test's own look at the server, on a connection of its own."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("GET", path)
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()


class Servers:
    """Starts fixture servers; `stop_all` kills them and says which are gone."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[Server] = []

    def start(self, fault: str = "correct", *options: str) -> Server:
        log = (self.logs / f"server-{len(self.started)}-{fault}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, str(FIXTURE), "--fault", fault, *options],
            stdout=subprocess.PIPE,
            stderr=log,
        )
        log.close()
        assert process.stdout is not None
        first = process.stdout.readline()
        server = Server(process, int(first) if first.strip().isdigit() else 0)
        self.started.append(server)
        assert server.port, f"the fixture server did not start: {first!r}"
        return server

    def stop_all(self) -> list[int]:
        for server in self.started:
            server.process.kill()
        codes = [server.process.wait(timeout=10) for server in self.started]
        for server in self.started:
            assert server.process.stdout is not None
            server.process.stdout.close()
        return codes


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    started = Servers(tmp_path)
    yield started
    started.stop_all()


@pytest.fixture(scope="module")
def correct(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    started = Servers(tmp_path_factory.mktemp("correct"))
    yield started.start()
    started.stop_all()


MakeHandler = Callable[..., HttpHandler]


@pytest.fixture
def make() -> Iterator[MakeHandler]:
    made: list[HttpHandler] = []

    def build(url: str, startup_wait_s: float = 0.2, **fields: Any) -> HttpHandler:
        handler = HttpHandler(HandlerConfig("http", url, **fields), startup_wait_s=startup_wait_s)
        made.append(handler)
        return handler

    yield build
    for handler in made:
        handler.close()


def rendered(arguments: JSONObject) -> JSON:
    return poster.PosterService().render_poster(**arguments)


def with_width(width: int, **more: JSON) -> JSONObject:
    return {**VALID, "width": width, **more}


# --- status mapping -----------------------------------------------------------------------


def test_accepted_output_is_the_json_body_digested(correct: Server, make: MakeHandler) -> None:
    outcome = make(correct.url()).call(VALID)
    assert outcome.kind is OutcomeKind.ACCEPTED
    assert outcome.output_digest == digest(rendered(VALID))
    assert outcome.output_bytes == len(canonical_compact(rendered(VALID)))
    assert not outcome.output_capped


def test_tool_error_is_a_rejection_with_code_and_path(correct: Server, make: MakeHandler) -> None:
    outcome = make(correct.url()).call(with_width(10))
    assert outcome.kind is OutcomeKind.REJECTED
    assert (outcome.error_code, outcome.error_path) == ("schema-range", "/width")


@pytest.mark.parametrize(
    ("script", "code", "path"),
    [
        ({"status": 400, "json": {"code": "schema-x", "path": "/title"}}, "schema-x", "/title"),
        ({"status": 409, "json": {"error": {"code": "policy-x"}}}, "policy-x", None),
        ({"status": 422, "json": {"code": "top", "error": {"code": "inner"}}}, "top", None),
        ({"status": 400, "json": {"error": {"code": 7}, "path": "/a"}}, "http-400", "/a"),
        ({"status": 404, "json": ["code", "not-an-object"]}, "http-404", None),
        ({"status": 418, "text": "I'm a teapot"}, "http-418", None),
        ({"status": 403, "text": ""}, "http-403", None),
    ],
)
def test_4xx_codes(
    correct: Server, make: MakeHandler, script: JSONObject, code: str, path: str | None
) -> None:
    outcome = make(correct.url("/respond")).call(script)
    assert (outcome.kind, outcome.error_code, outcome.error_path) == (
        OutcomeKind.REJECTED,
        code,
        path,
    )


@pytest.mark.parametrize(
    ("script", "output"),
    [
        ({"status": 201, "json": {"b": 1, "a": [True, None]}}, {"a": [True, None], "b": 1}),
        ({"status": 200, "text": "plain words"}, "plain words"),
        ({"status": 200, "text": "NaN"}, "NaN"),
        ({"status": 204, "text": ""}, ""),
    ],
)
def test_2xx_output_is_json_or_text(
    correct: Server, make: MakeHandler, script: JSONObject, output: JSON
) -> None:
    outcome = make(correct.url("/respond")).call(script)
    assert (outcome.kind, outcome.output_digest) == (OutcomeKind.ACCEPTED, digest(output))


def test_chunked_bodies_are_read_whole_and_capped(servers: Servers, make: MakeHandler) -> None:
    server = servers.start()
    handler = make(server.url("/respond"), max_output_bytes=100)
    text = json.dumps({"words": ["chunk"] * 10})
    small = handler.call({"status": 200, "text": text, "chunked": True})
    assert small.output_digest == digest(json.loads(text))
    rejected = handler.call({"status": 400, "text": '{"code": "c1"}', "chunked": True})
    assert rejected.error_code == "c1"
    assert server.get("/connections")["accepted"] == 2, "chunked answers keep the connection"
    big = handler.call({"status": 200, "text": "x" * 10_000, "chunked": True})
    assert (big.output_capped, big.output_bytes) == (True, 100 + RESPONSE_SLACK_BYTES + 1)


def test_5xx_is_a_crash_with_the_body_head(correct: Server, make: MakeHandler) -> None:
    handler = make(correct.url("/respond"))
    script: JSONObject = {"status": 503, "text": "database unavailable\n" + "x" * 5000}
    outcome = handler.call(script)
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.message.startswith("HTTP 503 Service Unavailable: database unavailable")
    assert len(outcome.message) <= 300
    assert handler.call({"status": 200, "json": 1}).kind is OutcomeKind.ACCEPTED


def test_redirect_is_a_crash_and_is_not_followed(correct: Server, make: MakeHandler) -> None:
    script: JSONObject = {"status": 307, "text": "", "headers": {"Location": correct.url()}}
    outcome = make(correct.url("/respond")).call(script)
    assert outcome.kind is OutcomeKind.CRASH
    assert f"redirect to {correct.url()}" in outcome.message
    assert "not followed" in outcome.message


# --- the one persistent connection --------------------------------------------------------


def test_calls_share_one_kept_alive_connection(servers: Servers, make: MakeHandler) -> None:
    server = servers.start()
    handler = make(server.url())
    kinds = [handler.call(with_width(width)).kind for width in (100, 10, 120, 500, 64)]
    assert kinds.count(OutcomeKind.REJECTED) == 2
    assert server.get("/connections") == {"accepted": 2, "open": 2}  # the handler's and ours
    handler.close()
    # Judge by the look that saw it: a fresh look right after may still count the previous
    # look's connection, which the server closes in its own time (under load, or beside
    # pytest-xdist workers, it lags).
    deadline = time.monotonic() + 10
    open_now = server.get("/connections")["open"]
    while open_now > 1 and time.monotonic() < deadline:
        time.sleep(0.02)
        open_now = server.get("/connections")["open"]
    assert open_now == 1, "close() closes the connection"


def test_connection_close_from_the_server_is_honoured(servers: Servers, make: MakeHandler) -> None:
    server = servers.start()
    handler = make(server.url("/respond"))
    script: JSONObject = {"status": 200, "json": 1, "headers": {"Connection": "close"}}
    assert [handler.call(script).kind for _ in range(3)] == [OutcomeKind.ACCEPTED] * 3
    assert server.get("/connections")["accepted"] == 4


# --- caps and deadlines -------------------------------------------------------------------


def test_flood_is_capped_and_the_next_call_works(servers: Servers, make: MakeHandler) -> None:
    handler = make(servers.start("flood").url(), max_output_bytes=1000)
    outcome = handler.call(with_width(66))
    assert (outcome.kind, outcome.output_capped) == (OutcomeKind.ACCEPTED, True)
    assert outcome.output_bytes == 1000 + RESPONSE_SLACK_BYTES + 1
    assert outcome.output_digest is None
    assert handler.call(VALID).output_digest == digest(rendered(VALID))


def test_oversized_error_body_is_a_plain_rejection(correct: Server, make: MakeHandler) -> None:
    handler = make(correct.url("/respond"), max_output_bytes=10)
    outcome = handler.call({"status": 400, "json": {"code": "c" * 10_000}})
    assert (outcome.kind, outcome.error_code) == (OutcomeKind.REJECTED, "http-400")
    assert handler.call({"status": 400, "json": {"code": "short"}}).error_code == "short"


def test_hang_times_out_and_the_next_call_works(servers: Servers, make: MakeHandler) -> None:
    server = servers.start("hang")
    handler = make(server.url(), timeout_ms=300)
    started = time.monotonic()
    outcome = handler.call(with_width(65))
    assert time.monotonic() - started < 5
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert "0.3 s" in outcome.message
    assert handler.call(VALID).output_digest == digest(rendered(VALID))
    assert server.get("/connections")["accepted"] == 3, "a timed-out connection is not reused"


def test_a_trickling_body_times_out_at_the_call_deadline(
    correct: Server, make: MakeHandler
) -> None:
    handler = make(correct.url("/respond"), timeout_ms=500)
    started = time.monotonic()
    outcome = handler.call({"status": 200, "text": "x" * 100, "drip_s": 0.05})
    assert outcome.kind is OutcomeKind.TIMEOUT, "every byte came within 0.5 s, the body did not"
    assert time.monotonic() - started < 3


# --- broken servers -----------------------------------------------------------------------


def test_garbage_answer_is_a_crash_and_the_server_answers_again(
    servers: Servers, make: MakeHandler
) -> None:
    handler = make(servers.start("garbage").url())
    outcome = handler.call(with_width(67))
    assert outcome.kind is OutcomeKind.CRASH
    assert "not HTTP" in outcome.message
    assert "rendering at 67 px" in outcome.message
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED


def test_truncated_body_is_a_crash(servers: Servers, make: MakeHandler) -> None:
    handler = make(servers.start("truncate").url())
    outcome = handler.call(with_width(67))
    assert outcome.kind is OutcomeKind.CRASH
    assert "after 10 of 1000 body bytes" in outcome.message
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED


def test_server_exiting_mid_call_is_a_crash_then_every_call_crashes_fast(
    servers: Servers, make: MakeHandler
) -> None:
    server = servers.start("exit")
    handler = make(server.url(), timeout_ms=5000)
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED
    outcome = handler.call(with_width(68))
    assert outcome.kind is OutcomeKind.CRASH
    assert "without answering" in outcome.message or "dropped" in outcome.message
    assert server.process.wait(timeout=10) == 3
    started = time.monotonic()
    later = [handler.call(VALID) for _ in range(3)]
    assert time.monotonic() - started < 5, "a dead server costs no timeouts"
    assert [o.kind for o in later] == [OutcomeKind.CRASH] * 3
    assert "connection refused" in later[-1].message


def test_server_killed_between_calls_is_a_crash_naming_the_refusal(
    servers: Servers, make: MakeHandler
) -> None:
    server = servers.start()
    handler = make(server.url())
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED
    server.process.kill()
    server.process.wait(timeout=10)
    outcome = handler.call(VALID)
    assert outcome.kind is OutcomeKind.CRASH
    assert f"cannot connect to 127.0.0.1:{server.port}: connection refused" in outcome.message


def test_no_server_at_start_is_a_handler_error(make: MakeHandler) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(HandlerError, match="connection refused"):
        make(f"http://127.0.0.1:{port}/", startup_wait_s=0.2)


def test_constructor_waits_for_a_server_that_is_starting(
    servers: Servers, make: MakeHandler
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    later = threading.Timer(0.3, servers.start, ("correct", "--port", str(port)))
    later.start()
    try:
        handler = make(f"http://127.0.0.1:{port}/", startup_wait_s=30)
    finally:
        later.join()
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED


# --- headers and secrets ------------------------------------------------------------------


def test_header_value_comes_from_the_named_variable(
    correct: Server, make: MakeHandler, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POSTER_TOKEN", SECRET)
    with_header = make(correct.url("/auth"), headers=(("Authorization", "POSTER_TOKEN"),))
    without = make(correct.url("/auth"))
    assert with_header.call({}).output_digest == digest({"authorization": True})
    assert without.call({}).output_digest == digest({"authorization": False})
    assert SECRET not in repr(with_header) and "s3cret" not in with_header.describe()


def test_header_values_echoed_by_the_server_are_masked(
    correct: Server, make: MakeHandler, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POSTER_TOKEN", SECRET)
    token = SECRET.split()[1]
    handler = make(correct.url("/respond"), headers=(("Authorization", "POSTER_TOKEN"),))
    crash = handler.call({"status": 500, "text": f"bad header {SECRET}; token {token}"})
    rejection = handler.call({"status": 401, "json": {"code": token, "path": f"/{token}"}})
    redirect = handler.call({"status": 302, "text": "", "headers": {"Location": f"/?t={token}"}})
    for outcome in (crash, rejection, redirect):
        assert "s3cret" not in repr(outcome)
    assert (rejection.error_code, rejection.error_path) == ("***", "/***")


@pytest.mark.parametrize(
    ("headers", "environment", "expected"),
    [
        ((("Authorization", "POSTER_TOKEN"),), {}, "POSTER_TOKEN is not set"),
        ((("Authorization", "POSTER_TOKEN"),), {"POSTER_TOKEN": "  "}, "POSTER_TOKEN is empty"),
        ((("Authorization", "GITHUB_TOKEN"),), {"GITHUB_TOKEN": SECRET}, "never leaves the gate"),
        ((("X-Key", "INPUT_KEY"),), {"INPUT_KEY": SECRET}, "never leaves the gate"),
        ((("X-Key", "POSTER_TOKEN"),), {"POSTER_TOKEN": SECRET + "\r\nX: 1"}, "cannot carry"),
        ((("X-Key", "POSTER_TOKEN"),), {"POSTER_TOKEN": SECRET + "€"}, "cannot carry"),
        ((("Content-Type", "POSTER_TOKEN"),), {"POSTER_TOKEN": SECRET}, "cannot be set"),
        ((("Content-Length", "POSTER_TOKEN"),), {"POSTER_TOKEN": SECRET}, "cannot be set"),
        ((("Bad Header", "POSTER_TOKEN"),), {"POSTER_TOKEN": SECRET}, "cannot be set"),
        ((("X-A", "POSTER_TOKEN"), ("x-a", "POSTER_TOKEN")), {"POSTER_TOKEN": "v"}, "twice"),
    ],
)
def test_bad_headers_are_handler_errors_that_never_show_the_value(
    correct: Server,
    make: MakeHandler,
    monkeypatch: pytest.MonkeyPatch,
    headers: tuple[tuple[str, str], ...],
    environment: dict[str, str],
    expected: str,
) -> None:
    monkeypatch.delenv("POSTER_TOKEN", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(HandlerError) as caught:
        make(correct.url(), headers=headers)
    assert expected in caught.value.message
    assert "s3cret" not in caught.value.render()


# --- URLs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftp://127.0.0.1/x", "http:// and https://"),
        ("file:///etc/passwd", "http:// and https://"),
        ("127.0.0.1:8080/x", "http:// and https://"),
        ("http://", "http:// and https://"),
        ("http://127.0.0.1:99999/", "not a URL"),
        ("http://127.0.0.1/a b", "no spaces"),
        ("http://user:s3cret@127.0.0.1/", "credentials do not belong"),
    ],
)
def test_urls_other_than_http_are_refused(make: MakeHandler, url: str, expected: str) -> None:
    with pytest.raises(HandlerError) as caught:
        make(url)
    assert expected in caught.value.message
    assert "s3cret" not in caught.value.render()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_with_a_trusted_certificate(
    servers: Servers, make: MakeHandler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
    )
    server = servers.start("hang", "--tls", str(cert), str(key))
    url = f"https://127.0.0.1:{server.port}/"
    with pytest.raises(HandlerError, match="CERTIFICATE_VERIFY_FAILED"):
        make(url)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    handler = make(url, timeout_ms=300)
    assert handler.call(VALID).output_digest == digest(rendered(VALID))
    assert handler.call(with_width(65)).kind is OutcomeKind.TIMEOUT
    assert handler.call(with_width(10)).error_code == "schema-range"


# --- the fixture itself -------------------------------------------------------------------


@pytest.mark.parametrize(("fault", "committed"), [("correct", 0), ("commit-first", 1)])
def test_commit_first_commits_on_rejection(
    servers: Servers, make: MakeHandler, fault: str, committed: int
) -> None:
    server = servers.start(fault)
    assert make(server.url()).call(with_width(10)).kind is OutcomeKind.REJECTED
    assert server.get("/state") == {"committed": committed}


def test_fixture_servers_are_gone_after_stop_all(tmp_path: Path, make: MakeHandler) -> None:
    started = Servers(tmp_path)
    hung = started.start("hang")
    make(hung.url(), timeout_ms=200).call(with_width(65))  # a thread stuck in the request
    started.start()
    assert len(started.stop_all()) == 2
    for server in started.started:
        assert not Path(f"/proc/{server.process.pid}").exists()


# --- end to end through the engine --------------------------------------------------------


def run_engine(handler: HttpHandler, config: HandlerConfig) -> FuzzResult:
    tool = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
    )
    return fuzz(
        poster.SCHEMA,
        handler,
        tool,
        FuzzConfig(seed=41, runs=24),
        handler_label=config.label(),
        replay_command="x",
    )


def test_engine_finds_nothing_in_the_correct_server(
    correct: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POSTER_TOKEN", SECRET)
    config = HandlerConfig("http", correct.url(), headers=(("Authorization", "POSTER_TOKEN"),))
    with HttpHandler(config) as handler:
        result = run_engine(handler, config)
    assert result.receipt.document()["counterexamples"] == []
    assert result.receipt.document()["handler"] == {
        "http": correct.url(),
        "headers": {"Authorization": "$POSTER_TOKEN"},
    }
    assert "s3cret" not in json.dumps(result.receipt.document())


def test_engine_finds_the_lax_width(servers: Servers) -> None:
    config = HandlerConfig("http", servers.start("lax").url())
    with HttpHandler(config) as handler:
        result = run_engine(handler, config)
    examples: list[Any] = result.receipt.document()["counterexamples"]  # type: ignore[assignment]
    found = {(c["failure"], c["path"]) for c in examples}
    assert found == {("hostile-accepted", "/width")}
    assert [c["input"]["width"] for c in examples] == [401]


def test_engine_shrinks_the_crash_to_a_one_character_title(servers: Servers) -> None:
    config = HandlerConfig("http", servers.start("crash").url())
    with HttpHandler(config) as handler:
        result = run_engine(handler, config)
    examples: list[Any] = result.receipt.document()["counterexamples"]  # type: ignore[assignment]
    valid = [c for c in examples if c["inputKind"] == "valid"]
    assert valid, examples
    assert {c["failure"] for c in valid} == {"crash"}
    assert all(len(c["input"]["title"]) == 1 for c in valid)
    assert "HTTP 500" in valid[0]["error"]["message"]
    assert [c["path"] for c in valid] == ["/title"]
    assert valid[0]["suggestion"]["patch"] == [
        {"op": "replace", "path": "/properties/title/minLength", "value": 2}
    ]


def test_a_5xx_crash_has_the_status_as_cause_and_restart_reconnects(
    correct: Server, make: MakeHandler
) -> None:
    handler = make(correct.url("/respond"))
    thrown = handler.call({"status": 500, "text": "TypeError: x is undefined at line 7"})
    assert (thrown.kind, thrown.cause) == (OutcomeKind.CRASH, "http-500 TypeError")
    assert handler.call({"status": 503, "text": "busy, 12 in queue"}).cause == "http-503"
    accepted = correct.get("/connections")["accepted"]
    handler.restart()
    assert handler.call({"status": 200, "json": 1}).kind is OutcomeKind.ACCEPTED
    assert correct.get("/connections")["accepted"] > accepted, "a new connection"


PAGER = Path(__file__).resolve().parents[2] / "fixtures" / "pager"


@pytest.mark.slow
def test_a_started_server_whose_port_another_process_holds_is_refused(
    make: MakeHandler,
) -> None:
    with socket.socket() as other:  # another job's server on the same port
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        settings: dict[str, Any] = {
            "argv": (sys.executable, "pager_http.py", str(port)),
            "cwd": str(PAGER),
        }
        with pytest.raises(HandlerError, match="already listens there"):
            make(f"http://127.0.0.1:{port}/", **settings)
    # the control: the port free, the gate's own server answers
    handler = make(f"http://127.0.0.1:{port}/", **settings)
    assert handler.call({"limit": 1}).kind is OutcomeKind.ACCEPTED
