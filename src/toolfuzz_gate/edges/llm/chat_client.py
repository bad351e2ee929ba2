"""The chat-completions HTTP client: one POST per request, bounded in every way (edge).

Speaks the OpenAI-compatible API (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp's server,
LM Studio): `POST {base_url}/chat/completions` with a JSON body. 429 and 5xx answers and
network errors are retried a bounded number of times with exponential backoff (a
`Retry-After` is honoured up to the cap); `sleep` is injected so tests do not wait. Each
attempt has a connect and a read timeout, and an answer is read up to a byte cap. The
API key is sent as a bearer token and removed from any text the client reports.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import requests
from requests.auth import AuthBase

from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.errors import LlmError

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
RETRIED = frozenset({429, 500, 502, 503, 504})


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
    """Sets the bearer token when there is one; giving `auth` at all stops requests from
    reading credentials out of .netrc."""

    def __init__(self, key: str | None) -> None:
        self._key = key

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if self._key:
            request.headers["Authorization"] = f"Bearer {self._key}"
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
    """Posts chat-completions requests to one endpoint; a callable `body -> answer`."""

    def __init__(
        self,
        base_url: str,
        key: str | None,
        *,
        retries: Retries = Retries(),
        sleep: Callable[[float], None] = time.sleep,
        session: requests.Session | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._auth = _Key(key)
        self._retries = retries
        self._sleep = sleep
        self._session = session or requests.Session()

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
                json=body,
                auth=self._auth,
                timeout=(self._retries.connect_timeout, self._retries.read_timeout),
                stream=True,
                allow_redirects=False,
            ) as response:
                status = response.status_code
                content = _read_bounded(response)
                retry_after = response.headers.get("Retry-After", "")
        except requests.RequestException as error:
            reason = self._auth.redact(f"{type(error).__name__}: {error}")
            raise _Retry(
                LlmError(
                    f"cannot reach the model endpoint {self._url}: {reason}",
                    code="llm.unreachable",
                    hint="check llm.base_url and that the server is running",
                )
            ) from None
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
                    hint="check that llm.base_url is an OpenAI-compatible API root (…/v1)",
                ) from None
        failure = self._status_error(status, content)
        if status in RETRIED:
            raise _Retry(failure, _seconds(retry_after))
        raise failure

    def _status_error(self, status: int, content: bytes) -> LlmError:
        said = self._auth.redact(content.decode("utf-8", errors="replace").strip())
        text = f"the model endpoint {self._url} answered HTTP {status}" + (
            f": {said}" if said else ""
        )
        if status == 429:
            return LlmError(text, code="llm.rate-limited", hint="lower max_requests or wait")
        if status in (401, 403):
            return LlmError(
                text, code="llm.forbidden", hint="check the key in the llm.api_key_env variable"
            )
        if 400 <= status < 500:
            return LlmError(
                text, code="llm.rejected", hint="check llm.model and that it supports tools"
            )
        return LlmError(text, code="llm.failed", hint="the endpoint failed; try again later")


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
