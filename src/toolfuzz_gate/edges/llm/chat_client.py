"""The model endpoint's HTTP client: one POST per request, bounded in every way (edge).

Posts a JSON body to the URL, headers and query parameters of its `Wire` (the policy's
`llm` section: `POST {base_url}/chat/completions` for the OpenAI-compatible API of OpenAI,
Azure OpenAI, Ollama, vLLM, LiteLLM, llama.cpp's server; `POST {base_url}/messages` for
Anthropic's Messages API); what the body holds is the core's (`core.agent.apis`).
Redirects are never followed: the key would go along. 429 and 5xx answers and network
errors are retried a bounded number of times with exponential backoff (a `Retry-After` is
honoured up to the cap); `sleep` is injected so tests do not wait. Each attempt has a
connect and a read timeout, and an answer is read up to a byte cap. The API key is sent
in the wire's key header (a bearer token in `Authorization`, else bare) and removed from
any text the client reports; what a failure means is worded by `endpoint_hints`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import requests
from requests.auth import AuthBase

from toolfuzz_gate.core.gate.llm_settings import APIS, BEARER, CHAT_COMPLETIONS, Wire
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.edges.llm.endpoint_hints import status_error, unreachable
from toolfuzz_gate.errors import LlmError

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
RETRIED = frozenset({429, 500, 502, 503, 504, 529})
"""529: Anthropic's "overloaded"."""


@dataclass(frozen=True)
class Retries:
    """How hard the client tries: attempts in all, and the backoff between them."""

    attempts: int = 4
    base_delay: float = 1.0
    cap: float = 30.0
    connect_timeout: float = 10.0
    read_timeout: float = 120.0


SCRUBBED = "[the model's key, removed]"


class _Key(AuthBase):
    """Sets the key's header when there is a key (`Authorization: Bearer KEY`, or the bare
    key in another header); giving `auth` at all stops requests from reading credentials
    out of .netrc."""

    def __init__(self, key: str | None, header: str = "Authorization") -> None:
        self._key = key
        self._header = header

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if self._key:
            bearer = self._header.lower() == BEARER
            request.headers[self._header] = f"Bearer {self._key}" if bearer else self._key
        return request

    def __repr__(self) -> str:
        return "<Key ***>"

    def scrub(self, answer: JSON) -> JSON:
        """`answer` with the key taken out of every string (names and values) at any depth:
        an endpoint that echoes it must not put it into the cassette, a receipt or the
        comment. Decoded first, so escapes in the JSON text do not hide it."""
        key = self._key
        if not key:
            return answer
        if isinstance(answer, str):
            return answer.replace(key, SCRUBBED)
        if isinstance(answer, list):
            return [self.scrub(item) for item in answer]
        if isinstance(answer, dict):
            return {str(self.scrub(name)): self.scrub(value) for name, value in answer.items()}
        return answer

    def redact(self, text: str) -> str:
        """`text` without the key (an endpoint may echo it), other secrets masked too."""
        if self._key:
            text = text.replace(self._key, "***")
        return bounded_message(text, 300)


class ChatClient:
    """Posts request bodies to one endpoint; a callable `body -> answer`. `wire` (None:
    chat-completions at `base_url`) says where and with which headers."""

    def __init__(
        self,
        base_url: str,
        key: str | None,
        *,
        wire: Wire | None = None,
        retries: Retries = Retries(),
        sleep: Callable[[float], None] = time.sleep,
        session: requests.Session | None = None,
    ) -> None:
        api = APIS[CHAT_COMPLETIONS]
        self._wire = wire or Wire(base_url.rstrip("/"), api.path, api.key_header)
        self._url = self._wire.url
        self._auth = _Key(key, self._wire.key_header)
        self._retries = retries
        self._sleep = sleep
        self._session = session or requests.Session()
        if self._url.startswith("http://"):
            # Plain http is allowed on loopback only; a proxy named by the environment would
            # read the key in clear, so none is used.
            self._session.trust_env = False

    def __repr__(self) -> str:
        return f"<ChatClient {self._url}>"

    def close(self) -> None:
        self._session.close()

    def __call__(self, body: JSONObject) -> JSON:
        last: _Retry | None = None
        for attempt in range(self._retries.attempts):
            if last is not None:
                backoff = self._retries.base_delay * 2 ** (attempt - 1)
                self._sleep(min(max(backoff, last.wait), self._retries.cap))
            try:
                return self._once(body)
            except _Retry as retry:
                last = retry
        assert last is not None
        error = last.error
        raise LlmError(
            f"{error.message} (after {self._retries.attempts} attempts)",
            code=error.code,
            hint=error.hint,
        )

    def _once(self, body: JSONObject) -> JSON:
        try:
            with self._session.post(
                self._url,
                params=self._wire.query or None,
                headers=dict(self._wire.headers),
                json=body,
                auth=self._auth,
                timeout=(self._retries.connect_timeout, self._retries.read_timeout),
                stream=True,
                allow_redirects=False,
            ) as response:
                status = response.status_code
                content = _read_bounded(response)
                retry_after = response.headers.get("Retry-After", "")
                headers = response.headers
        except requests.RequestException as error:
            timeouts = (self._retries.connect_timeout, self._retries.read_timeout)
            raise _Retry(unreachable(error, self._wire, timeouts, self._auth.redact)) from None
        if status == 200:
            try:
                answer: JSON = json.loads(
                    content.decode("utf-8"), parse_constant=_refuse, parse_float=_finite
                )
                return self._auth.scrub(answer)
            except (ValueError, RecursionError):
                raise LlmError(
                    f"the model endpoint {self._url} answered with text that is not JSON",
                    code="llm.malformed-response",
                    hint="check that llm.base_url is the API root (…/v1) of the protocol "
                    "llm.api names",
                ) from None
        failure = status_error(status, content, headers, self._wire, self._auth.redact)
        if status in RETRIED:
            raise _Retry(failure, _seconds(retry_after))
        raise failure


class _Retry(Exception):
    """An attempt that may be tried again: the error if it is the last, and how long the
    endpoint asked to wait (`Retry-After`, 0 when it did not say)."""

    def __init__(self, error: LlmError, wait: float = 0.0) -> None:
        super().__init__(error.message)
        self.error = error
        self.wait = wait


def _refuse(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    """A JSON number as a float, refused when it overflows to infinity (which canonical
    JSON, and so the cassette, cannot hold)."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text[:40]} is out of range")
    return value


def _seconds(header: str) -> float:
    try:
        return max(float(header), 0.0)
    except ValueError:
        return 0.0


def _read_bounded(response: requests.Response) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_content(64 * 1024):
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise LlmError(
                f"the model's answer is over {MAX_RESPONSE_BYTES} bytes",
                code="llm.malformed-response",
            )
        chunks.append(chunk)
    return b"".join(chunks)
