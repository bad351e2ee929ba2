"""What a failed request to the model endpoint means, in words that name the likely cause
(edge: it reads `requests`' exceptions).

A wrong URL, a redirect, a slow server and a server that is not running each fail
differently, and each gets its own message and hint: a 404 from a base URL without `/v1`
says so rather than blaming the model's name; a 3xx names where it points (sanitised)
and says it is not followed; a read timeout says the server answered too slowly; a
refused connection says nothing listens there. Every text an endpoint chose passes
through `redact` (the key removed, bounded) before it is put in a message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

import requests

from toolfuzz_gate.core.gate.llm_settings import Wire
from toolfuzz_gate.errors import LlmError

Redact = Callable[[str], str]

PARAMETER_HINTS = (
    (
        "temperature",
        "the endpoint refuses llm.temperature: reasoning models take none but their own, so "
        "set `temperature: null` (not sent)",
    ),
    (
        "seed",
        "the endpoint refuses llm.seed: set `seed: null` (not sent)",
    ),
    (
        "max_completion_tokens",
        "the endpoint does not take max_completion_tokens: remove llm.max_completion_tokens",
    ),
    (
        "max_tokens",
        "the endpoint refuses the reply's token limit: lower llm.max_completion_tokens",
    ),
)
"""A 400 whose text names one of the parameters the policy sends, and what to change."""


def status_error(
    status: int, content: bytes, headers: Mapping[str, str], wire: Wire, redact: Redact
) -> LlmError:
    """The error for an answer with HTTP `status` other than 200."""
    said = redact(content.decode("utf-8", errors="replace").strip())
    text = f"the model endpoint {wire.url} answered HTTP {status}" + (f": {said}" if said else "")
    if 300 <= status < 400:
        location = sanitised_location(headers.get("Location", ""), redact)
        moved = location.rstrip("/")
        return LlmError(
            f"the model endpoint {wire.url} answered HTTP {status}, a redirect"
            + (f" to {location}" if location else " without a Location")
            + "; redirects are not followed (the key would go with the request)",
            code="llm.redirected",
            hint=f"set llm.base_url to {moved.removesuffix(wire.path)}"
            if "://" in moved and moved.endswith(wire.path)
            else "set llm.base_url to the URL it redirects to (often https:// for http://, "
            "or a path with /v1)",
        )
    if status == 429:
        return LlmError(text, code="llm.rate-limited", hint="lower max_requests or wait")
    if status in (401, 403):
        return LlmError(
            text,
            code="llm.forbidden",
            hint=f"check the key in the llm.api_key_env variable (sent in the {wire.key_header} "
            "header; llm.api_key_header names another)",
        )
    if status in (404, 405):
        return LlmError(text, code="llm.rejected", hint=_not_found_hint(wire, said))
    if 400 <= status < 500:
        hint = next(
            (hint for word, hint in PARAMETER_HINTS if re.search(rf"\b{word}\b", said, re.I)),
            "check llm.model and that it supports tools",
        )
        return LlmError(text, code="llm.rejected", hint=hint)
    return LlmError(text, code="llm.failed", hint="the endpoint failed; try again later")


def _not_found_hint(wire: Wire, said: str) -> str:
    """A missing path, unless the endpoint's words name the model (OpenAI answers an unknown
    model with 404 `model_not_found`, whatever the root)."""
    path = urlsplit(wire.base_url).path.rstrip("/")
    if "/openai/deployments/" in path + "/":
        return (
            "check the deployment name in llm.base_url and llm.query's api-version (an Azure "
            "deployment URL takes `query: {api-version: ...}`)"
        )
    if not path.endswith("/v1") and not re.search(r"\bmodel", said, re.I):
        return (
            f"llm.base_url does not end in /v1, and {wire.url} does not exist: most endpoints "
            f"serve the API under /v1 (try {wire.base_url}/v1), unless the provider documents "
            "another root"
        )
    return "check llm.model (the endpoint may not know it) and llm.api (the protocol it speaks)"


def sanitised_location(location: str, redact: Redact) -> str:
    """Where a redirect points, without credentials, query or fragment (a signed URL's
    token), control characters or the key; bounded."""
    printable = "".join(ch for ch in location if ch.isprintable())[:500]
    try:
        parts = urlsplit(printable)
        port = parts.port
    except ValueError:
        return "(an unreadable Location)"
    netloc = (parts.hostname or "") + (f":{port}" if port else "")
    cleaned = f"{parts.scheme}://{netloc}{parts.path}" if parts.scheme else parts.path
    return redact(cleaned)[:200]


def unreachable(
    error: requests.RequestException, wire: Wire, timeouts: tuple[float, float], redact: Redact
) -> LlmError:
    """The error for a request that got no HTTP answer, naming why."""
    connect, read = timeouts
    parts = urlsplit(wire.url)
    where = f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
    reason = redact(f"{type(error).__name__}: {error}")
    text = str(error)
    if isinstance(error, requests.ReadTimeout) or "read timed out" in text.lower():
        return LlmError(
            f"the model endpoint {wire.url} accepted the request but did not answer within "
            f"{read:g} s",
            code="llm.unreachable",
            hint="the server is running but answered too slowly (a large model, a cold start, "
            "a long queue): use a faster model or server, or a smaller agent section",
        )
    if isinstance(error, requests.ConnectTimeout):
        return LlmError(
            f"no connection to {where} within {connect:g} s ({wire.url})",
            code="llm.unreachable",
            hint="check llm.base_url's host and port, and that nothing in between drops the "
            "connection",
        )
    if isinstance(error, requests.exceptions.SSLError):
        return LlmError(
            f"the TLS handshake with {where} failed: {reason}",
            code="llm.unreachable",
            hint="check that the server speaks https at that port (http:// is only for "
            "127.0.0.1, ::1 and localhost)",
        )
    if "refused" in text.lower():
        return LlmError(
            f"connection refused at {where}: nothing is listening there ({wire.url})",
            code="llm.unreachable",
            hint="start the model server, or correct the host and port in llm.base_url",
        )
    if "resolve" in text.lower() or "name or service not known" in text.lower():
        return LlmError(
            f"the host name {parts.hostname} does not resolve ({wire.url})",
            code="llm.unreachable",
            hint="check the host in llm.base_url",
        )
    return LlmError(
        f"cannot reach the model endpoint {wire.url}: {reason}",
        code="llm.unreachable",
        hint="check llm.base_url and that the server is running",
    )
