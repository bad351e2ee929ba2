"""The policy's `llm` section: the model agent mode talks to and how (pure).

The shipped policy schema checks each key's type and range; this module gives the
section its meaning and checks what the schema cannot say (a cassette is needed unless
the mode is `live`; a header may not stand in for the key's or the client's own).
`APIS` is the table of wire protocols: where each one's requests go and which header
carries the key; `core.agent.apis` holds how each one's bodies are written and read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.errors import PolicyError

MODES = ("replay", "record", "live")
"""`replay`: the cassette answers, the network is never used; `record`: the endpoint
answers and every exchange is written to the cassette; `live`: the endpoint answers."""

BEARER = "authorization"
"""The key header sent as `Authorization: Bearer KEY`; any other carries the bare key."""


@dataclass(frozen=True)
class Api:
    """One wire protocol: the path appended to `base_url`, the header that carries the key
    unless the policy names another, and the headers every request sends."""

    path: str
    key_header: str
    headers: tuple[tuple[str, str], ...] = ()


CHAT_COMPLETIONS = "chat-completions"
ANTHROPIC_MESSAGES = "anthropic-messages"
APIS: dict[str, Api] = {
    CHAT_COMPLETIONS: Api("/chat/completions", "Authorization"),
    ANTHROPIC_MESSAGES: Api("/messages", "x-api-key", (("anthropic-version", "2023-06-01"),)),
}
RESERVED_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "host",
        "connection",
        "content-length",
        "content-type",
        "content-encoding",
        "transfer-encoding",
        "te",
        "upgrade",
        "expect",
    }
)
"""Headers the policy may not set: the key's, the proxy's, and those the client writes
(a second Host or Content-Length would change where or what is sent)."""


@dataclass(frozen=True)
class Wire:
    """Where one request goes and how the key travels: what the client needs of the
    settings (never the key itself)."""

    base_url: str
    path: str
    key_header: str
    headers: tuple[tuple[str, str], ...] = ()
    query: tuple[tuple[str, str], ...] = ()

    @property
    def url(self) -> str:
        """Where requests are posted (the query parameters aside)."""
        return self.base_url + self.path


@dataclass(frozen=True)
class LlmSettings:
    """One model endpoint and the limits of one agent run against it."""

    base_url: str
    model: str
    api_key_env: str | None = None
    """The environment variable holding the key (None: the endpoint takes none)."""
    temperature: float | None = 0.0
    """None: not sent (a reasoning model refuses any but its own)."""
    seed: int | None = 0
    """None: not sent (the Messages API has none)."""
    max_requests: int = 200
    max_tokens: int = 200_000
    """Tokens, prompt plus completion as the endpoint reports them, for the whole run."""
    cassette: str | None = None
    """The cassette path as resolved against the repository root (None: none)."""
    mode: str = "replay"
    api: str = CHAT_COMPLETIONS
    headers: tuple[tuple[str, str], ...] = ()
    """Extra headers every request sends (an Azure or a proxy header; never the key)."""
    query: tuple[tuple[str, str], ...] = ()
    """Query parameters every request's URL carries (Azure's `api-version`)."""
    api_key_header: str | None = None
    """The header carrying the key (None: the API's own, `APIS[api].key_header`)."""
    max_completion_tokens: int | None = None
    """The most tokens one reply may have (None: the endpoint's default; the Messages
    API, which requires one, gets `DEFAULT_REPLY_TOKENS`)."""
    request_deadline_s: float = 300.0
    """The most seconds one request may take, all its attempts and the waits between them
    included (an endpoint that drips its answer a byte at a time never trips a read
    timeout). Not a receipt member: a replay asks no endpoint."""
    run_deadline_s: float = 3600.0
    """The most seconds one agent run may take from its first request to the endpoint, the
    handler's calls between requests included (a dead endpoint's requests would each run to
    their own deadline otherwise)."""

    def parameters(self) -> dict[str, Any]:
        """The sampling parameters the policy sets, by their policy names (unset ones left
        out): what receipts record; `core.agent.apis` spells them for the API."""
        given = {
            "temperature": self.temperature,
            "seed": self.seed,
            "max_completion_tokens": self.max_completion_tokens,
        }
        return {name: value for name, value in given.items() if value is not None}

    def wire(self) -> Wire:
        """The URL, key header and headers of every request."""
        api = APIS[self.api]
        return Wire(
            self.base_url,
            api.path,
            self.api_key_header or api.key_header,
            (*((n, v) for n, v in api.headers if not _named(self.headers, n)), *self.headers),
            self.query,
        )


DEFAULT_REPLY_TOKENS = 4096


def _named(headers: tuple[tuple[str, str], ...], name: str) -> bool:
    return any(given.lower() == name.lower() for given, _ in headers)


LOOPBACK_HOSTS = ("127.0.0.1", "[::1]", "localhost")
"""Hosts a plain-http endpoint may be on: the key never leaves the machine."""


def is_safe_endpoint(url: str) -> bool:
    """Is `url` an endpoint the key may be sent to: https, or http on loopback?"""
    scheme, _, rest = url.partition("://")
    authority = rest.split("/", 1)[0].rpartition("@")[2].lower()
    host = authority.rsplit(":", 1)[0] if not authority.endswith("]") else authority
    if "@" in rest.split("/", 1)[0]:
        return False  # credentials in the URL are a way to send the key elsewhere
    if scheme.lower() == "https":
        return bool(host)
    return scheme.lower() == "http" and host in LOOPBACK_HOSTS


PolicyErrorAt = Callable[[str, str, str], PolicyError]
"""Builds the policy's error at a JSON Pointer, with a message and a hint."""


def parse_llm(given: Mapping[str, Any] | None, error_at: PolicyErrorAt) -> LlmSettings | None:
    """The settings an already schema-checked `llm` section describes (None: no section)."""
    if given is None:
        return None
    api = str(given.get("api", CHAT_COMPLETIONS))
    settings = LlmSettings(
        base_url=str(given["base_url"]).rstrip("/"),
        model=str(given["model"]),
        api_key_env=given.get("api_key_env"),
        temperature=_optional(given, "temperature", float, LlmSettings.temperature),
        seed=_optional(given, "seed", int, None if api == ANTHROPIC_MESSAGES else 0),
        max_requests=int(given.get("max_requests", LlmSettings.max_requests)),
        max_tokens=int(given.get("max_tokens", LlmSettings.max_tokens)),
        cassette=given.get("cassette"),
        mode=str(given.get("mode", LlmSettings.mode)),
        api=api,
        headers=tuple((str(n), str(v)) for n, v in given.get("headers", {}).items()),
        query=tuple((str(n), str(v)) for n, v in given.get("query", {}).items()),
        api_key_header=given.get("api_key_header"),
        max_completion_tokens=given.get("max_completion_tokens"),
        request_deadline_s=float(given.get("request_deadline_s", LlmSettings.request_deadline_s)),
        run_deadline_s=float(given.get("run_deadline_s", LlmSettings.run_deadline_s)),
    )
    _check_endpoint(settings, error_at)
    if settings.cassette is None and settings.mode != "live":
        raise error_at(
            "/llm",
            f"mode {settings.mode} needs a cassette",
            "add `cassette: PATH` (committed, so CI replays it), or use `mode: live`",
        )
    return settings


def _optional(given: Mapping[str, Any], name: str, kind: Any, default: Any) -> Any:
    """The key's value (an explicit null: None, not sent), or `default` when absent."""
    if name not in given:
        return default
    return None if given[name] is None else kind(given[name])


def _check_endpoint(settings: LlmSettings, error_at: PolicyErrorAt) -> None:
    for section, pairs in (("headers", settings.headers), ("query", settings.query)):
        for name, value in pairs:
            if not all(" " <= ch <= "~" for ch in name + value):
                raise error_at(
                    f"/llm/{section}/{name}",
                    f"{section} {name!r} holds a character that is not printable ASCII "
                    "(a line break would start another header)",
                    "write the value on one line, in printable ASCII",
                )
    if "?" in settings.base_url or "#" in settings.base_url:
        raise error_at(
            "/llm/base_url",
            f"{settings.base_url} has a query or a fragment; it is the API root requests "
            "are appended to",
            "put query parameters in llm.query (`query: {api-version: ...}`)",
        )
    if settings.mode != "replay" and not is_safe_endpoint(settings.base_url):
        raise error_at(
            "/llm/base_url",
            f"mode {settings.mode} sends the model's key to {settings.base_url}, which is "
            "neither https nor on this machine",
            "use an https:// endpoint (http:// only for 127.0.0.1, ::1 or localhost)",
        )
    if settings.api_key_header is not None:
        if settings.api_key_env is None:
            raise error_at(
                "/llm/api_key_header",
                "api_key_header names the header of a key the policy does not have",
                "add api_key_env (the variable holding the key), or remove api_key_header",
            )
        if settings.api_key_header.lower() in RESERVED_HEADERS - {BEARER}:
            raise error_at(
                "/llm/api_key_header",
                f"the key may not travel in the {settings.api_key_header} header",
                "use Authorization (a bearer token) or the header the provider names "
                "(api-key for Azure, x-api-key for Anthropic)",
            )
    key_header = settings.wire().key_header.lower()
    for name, _ in settings.headers:
        if name.lower() in RESERVED_HEADERS or name.lower() == key_header:
            raise error_at(
                f"/llm/headers/{name}",
                f"header {name} is set by the gate itself"
                + (" (it carries the key)" if name.lower() in (key_header, BEARER) else ""),
                "the key goes in api_key_env (and its header in api_key_header); remove "
                "this header",
            )
    if settings.api == ANTHROPIC_MESSAGES:
        _check_messages_parameters(settings, error_at)


def _check_messages_parameters(settings: LlmSettings, error_at: PolicyErrorAt) -> None:
    if settings.seed is not None:
        raise error_at(
            "/llm/seed",
            "the Anthropic Messages API takes no seed",
            "remove llm.seed for api: anthropic-messages",
        )
    if settings.temperature is not None and settings.temperature > 1:
        raise error_at(
            "/llm/temperature",
            f"temperature {settings.temperature} is above the Messages API's 1",
            "use a temperature from 0 to 1",
        )
