"""The `http: URL` adapter: each call is a JSON POST on one kept-alive connection (edge).

2xx = accepted (the JSON body, or its text when not JSON); 4xx = rejection coded by the
body's `code` or `error.code`, else `http-<status>`; 3xx (never followed), 5xx, a broken
response, connection failure = crash; nothing within the per-call deadline = timeout.
Any failure drops the connection; the next call reconnects.

Why `http.client` and not `requests` (which the gate uses for GitHub): measured with
`bench/bench_http.py` (2-core host, loopback echo server in a child process), the adapter
makes ~3,300-4,300 calls/s (80-100% of a bare `http.client` loop), and a
`requests.Session` ~700-900: per request it rescans the environment for proxy settings
(a third of its time here) and merges session settings the gate does not use.
`http.client` also gives exactly what the gate needs: one socket whose every read ends at
the call's deadline (`http_connection`; urllib3 times each read separately), a cap on the
bytes read, and redirects that are never followed.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import ssl
import time
from collections.abc import Collection, Mapping
from urllib.parse import urlsplit

from toolfuzz_gate.core.campaign.cause import named
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind, output_text
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest_and_size
from toolfuzz_gate.core.jsonutil.redact import MASK, bounded_message
from toolfuzz_gate.edges.handlers.base import RESPONSE_SLACK_BYTES, ManagedHandler
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.environment import is_refused
from toolfuzz_gate.edges.handlers.http_connection import DeadlineConnection, new_connection
from toolfuzz_gate.edges.handlers.http_server import SERVER_STARTUP_S, ManagedServer
from toolfuzz_gate.edges.handlers.wire import strict_json
from toolfuzz_gate.errors import HandlerError

STARTUP_WAIT_S = 5.0
"""How long the constructor retries a refused connection: a server started just before the
gate (`server & toolfuzz-gate ...` in CI) gets a moment to listen."""
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BAD_VALUE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# Framing and content negotiation belong to the adapter: a policy header must not change them.
_RESERVED = frozenset(
    "connection content-length content-type expect keep-alive te transfer-encoding upgrade".split()
)


class HttpHandler(ManagedHandler):
    """A `Handler` POSTing each call's arguments to a URL. Not thread-safe.

    Header values are read from the gate's environment once, here, and never leave the
    requests: not in messages, receipts or `repr`. The constructor connects, so a server
    that is not there fails fast with `HandlerError`.
    """

    def __init__(self, config: HandlerConfig, *, startup_wait_s: float = STARTUP_WAIT_S) -> None:
        self.url = config.target
        self.base_timeout_s = self.timeout_s = config.timeout_ms / 1000
        self.limit = config.max_output_bytes + RESPONSE_SLACK_BYTES
        self._ignore = config.ignore_output
        self._text_chars = config.output_text_chars
        if self.timeout_s <= 0 or config.max_output_bytes < 0:
            raise HandlerError(f"{self.url}: timeout and output cap must be positive")
        scheme, self._host, self._port, self._target = _parse_url(self.url)
        self._context = ssl.create_default_context() if scheme == "https" else None
        values = _header_values(config.headers, os.environ)
        self._secrets = _secret_parts(values.values())
        self._headers = {**values, **_JSON_HEADERS}
        self._connection: DeadlineConnection | None = None
        self._server = ManagedServer(config) if config.argv else None
        if self._server is None:
            self._open(startup_wait_s)
            return
        try:
            self._refuse_a_listener_of_another(self._server)
            self._server.ensure()
            self._open(SERVER_STARTUP_S)
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        return f"HttpHandler({self.url!r})"

    def describe(self) -> str:
        return f"http:{self.url}"

    def call(self, arguments: JSONObject) -> Outcome:
        body = json.dumps(arguments, allow_nan=False).encode("ascii")
        if self._server is not None and not self._server.running():  # it exited: start again
            self._drop()
            try:
                self._refuse_a_listener_of_another(self._server)
            except HandlerError as error:
                return Outcome(OutcomeKind.CRASH, message=bounded_message(str(error)))
            self._server.ensure()
            try:
                self._open(SERVER_STARTUP_S)
            except HandlerError as error:
                return Outcome(OutcomeKind.CRASH, message=bounded_message(str(error)))
        try:
            connection = self._ready()
            connection.deadline = time.monotonic() + self.timeout_s
            connection.request("POST", self._target, body, self._headers)
            response = connection.getresponse()
            return self._outcome(response)
        except TimeoutError:
            self._drop()
            return Outcome(OutcomeKind.TIMEOUT, message=f"no answer within {self.timeout_s:g} s")
        except (http.client.HTTPException, OSError) as error:
            self._drop()
            return Outcome(OutcomeKind.CRASH, message=self._explain(error))
        except BaseException:
            self._drop()  # interrupted mid-call: the connection's state is unknown
            raise

    def restart(self) -> None:
        """Drop the connection (a server is not the gate's to restart); the next call opens
        a fresh one (for confirming findings)."""
        self._drop()

    def scale_timeout(self, factor: float) -> None:
        """Stretch the per-call timeout from the next call on (1.0: as configured)."""
        self.timeout_s = self.base_timeout_s * factor

    def close(self) -> None:
        self._drop()
        if self._server is not None:
            self._server.close()

    def _open(self, wait_s: float) -> None:
        give_up = time.monotonic() + wait_s
        while True:
            connection = self._new_connection()
            try:
                connection.connect()
            except ConnectionRefusedError:
                connection.close()
                if self._server is not None and not self._server.running():
                    raise self._server.failure("the server exited before listening") from None
                if time.monotonic() < give_up:
                    time.sleep(0.05)
                    continue
                if self._server is not None:
                    problem = f"not listening at {self.url} after {wait_s:g} s"
                    raise self._server.failure(problem) from None
                raise HandlerError(
                    f"{self.url}: connection refused",
                    hint="start the server before the gate, and check the host and port",
                ) from None
            except (OSError, http.client.HTTPException) as error:
                connection.close()
                raise HandlerError(f"{self.url}: cannot connect: {self._explain(error)}") from None
            self._connection = connection
            return

    def _refuse_a_listener_of_another(self, server: ManagedServer) -> None:
        """Before the gate starts its `server:`, nothing may answer at the URL: another
        process's server there would take every call while the gate's own, failing to bind,
        went unnoticed (another job's server on a fixed port)."""
        probe = self._new_connection()
        try:
            probe.connect()
        except OSError:
            return
        finally:
            probe.close()
        raise HandlerError(
            f"{self.url}: something already listens there before the gate started {server.label!r}",
            hint="stop what holds the port, or give `server:` and the URL a free port",
        )

    def _new_connection(self) -> DeadlineConnection:
        deadline = time.monotonic() + self.timeout_s
        return new_connection(self._host, self._port, deadline, self._context)

    def _ready(self) -> DeadlineConnection:
        """The kept-alive connection, or a new one when the server has closed the old one.

        Checked before sending, never by retrying a POST: a retried call could commit twice.
        """
        if self._connection is not None and self._connection.dropped():
            self._drop()
        if self._connection is None:
            self._connection = self._new_connection()
        return self._connection

    def _outcome(self, response: http.client.HTTPResponse) -> Outcome:
        status = response.status
        body = response.read(self.limit + 1)
        if len(body) > self.limit:
            self._drop()  # the rest may never end: stop reading
            if 200 <= status < 300:
                return Outcome(OutcomeKind.ACCEPTED, output_capped=True, output_bytes=len(body))
            body = b""
        elif response.length:
            self._drop()
            return Outcome(
                OutcomeKind.CRASH,
                message=f"the server closed the connection after {len(body)} of "
                f"{len(body) + response.length} body bytes (HTTP {status})",
            )
        if response.will_close or not response.isclosed():
            self._drop()
        if 200 <= status < 300:
            output = _decode(body)
            output_digest, output_bytes = digest_and_size(output, self._ignore)
            return Outcome(
                OutcomeKind.ACCEPTED,
                output_digest=output_digest,
                output_bytes=output_bytes,
                output_text=output_text(output, self._text_chars),
            )
        if 400 <= status < 500:
            code, path = _error_fields(_decode(body))
            return Outcome(
                OutcomeKind.REJECTED,
                error_code=self._unsecret(code) if code is not None else f"http-{status}",
                error_path=self._unsecret(path) if path is not None else None,
                message=f"HTTP {status}",
            )
        if 300 <= status < 400:
            where = response.getheader("Location", "nowhere")
            problem = f"HTTP {status} redirect to {where}; redirects are not followed: "
            problem += "point the handler at the URL that answers directly"
        else:
            head = body[:300].decode("utf-8", errors="replace")
            problem = " ".join(f"HTTP {status} {response.reason}".split())
            problem += f": {head}" if head else ""
        message = bounded_message(self._unsecret(problem))
        detail = named(message)
        cause = f"http-{status}" + (f" {detail}" if detail else "")
        return Outcome(OutcomeKind.CRASH, message=message, cause=cause)

    def _explain(self, error: BaseException) -> str:
        if isinstance(error, ConnectionRefusedError):
            problem = f"cannot connect to {self._host}:{self._port}: connection refused"
        elif isinstance(error, http.client.RemoteDisconnected):
            problem = "the server closed the connection without answering"
        elif isinstance(error, ConnectionResetError | BrokenPipeError):
            problem = f"the server dropped the connection ({type(error).__name__})"
        elif isinstance(error, http.client.BadStatusLine):
            problem = f"the server's answer is not HTTP: {str(error)[:80]!r}"
        else:
            problem = f"{type(error).__name__}: {error}"
        return bounded_message(self._unsecret(problem))

    def _unsecret(self, text: str) -> str:
        """`text` (from the server) without the header values, should the server echo them."""
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


_JSON_HEADERS = {"Content-Type": "application/json"}


def _parse_url(url: str) -> tuple[str, str, int, str]:
    """scheme, host, port and request target of an http(s) URL, or a `HandlerError`."""
    if not url.isascii() or re.search(r"[\x00-\x20\x7f]", url):
        raise HandlerError(f"{url!r}: a URL has no spaces, control or non-ASCII characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise HandlerError(f"{url!r} is not a URL: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HandlerError(
            f"{url!r}: the http adapter speaks to http:// and https:// URLs only",
            hint="e.g. http://127.0.0.1:8080/tools/render_poster",
        )
    if parts.username is not None or parts.password is not None:
        raise HandlerError(
            f"{parts.scheme}://{parts.hostname}: credentials do not belong in the URL",
            hint="send them in a header whose value the policy names by environment variable",
        )
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port or default, target


def _header_values(pairs: tuple[tuple[str, str], ...], source: Mapping[str, str]) -> dict[str, str]:
    """Header name -> value from `source`; messages name headers and variables, never values."""
    headers: dict[str, str] = {}
    for name, variable in pairs:
        where = f"header {name!r} (from ${variable})"
        if not _TOKEN.fullmatch(name) or name.lower() in _RESERVED:
            raise HandlerError(f"header {name!r} cannot be set by a policy")
        if name.lower() in (known.lower() for known in headers):
            raise HandlerError(f"header {name!r} is named twice")
        if is_refused(variable):
            raise HandlerError(
                f"{where}: ${variable} never leaves the gate",
                hint="give the handler its own credential in a variable of its own",
            )
        value = source.get(variable)
        if value is None:
            raise HandlerError(
                f"{where}: the environment variable {variable} is not set",
                hint=f"export {variable} before running the gate (in Actions: from a secret)",
            )
        if not value.strip():
            raise HandlerError(f"{where}: the environment variable {variable} is empty")
        if _BAD_VALUE.search(value) or not _is_latin1(value):
            raise HandlerError(f"{where}: the value has characters a header cannot carry")
        headers[name] = value
    return headers


def _is_latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _secret_parts(values: Collection[str]) -> tuple[str, ...]:
    """Header values, and their long words (the token of `Bearer TOKEN`), longest first."""
    parts = {part for value in values for part in value.split() if len(part) >= 8}
    parts.update(values)
    return tuple(sorted(parts, key=len, reverse=True))


def _decode(body: bytes) -> JSON:
    try:
        value: JSON = strict_json(body)
    except (ValueError, RecursionError):
        return body.decode("utf-8", errors="replace")
    return value


def _error_fields(body: JSON) -> tuple[str | None, str | None]:
    """`code` and `path` from `{"code", "path"}` or `{"error": {"code", "path"}}`."""
    places: list[JSONObject] = []
    if isinstance(body, dict):
        nested = body.get("error")
        places = [body, nested] if isinstance(nested, dict) else [body]
    codes = [code for place in places if isinstance(code := place.get("code"), str)]
    paths = [path for place in places if isinstance(path := place.get("path"), str)]
    return (codes[0] if codes else None), (paths[0] if paths else None)
