"""The policy's `llm` section: the model agent mode talks to and how (pure).

The shipped policy schema checks each key's type and range; this module gives the
section its meaning and checks what the schema cannot say (a cassette is needed unless
the mode is `live`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.errors import PolicyError

MODES = ("replay", "record", "live")
"""`replay`: the cassette answers, the network is never used; `record`: the endpoint
answers and every exchange is written to the cassette; `live`: the endpoint answers."""


@dataclass(frozen=True)
class LlmSettings:
    """One model endpoint and the limits of one agent run against it."""

    base_url: str
    model: str
    api_key_env: str | None = None
    """The environment variable holding the key (None: the endpoint takes none)."""
    temperature: float = 0.0
    seed: int = 0
    max_requests: int = 200
    max_tokens: int = 200_000
    """Tokens, prompt plus completion as the endpoint reports them, for the whole run."""
    cassette: str | None = None
    """The cassette path as resolved against the repository root (None: none)."""
    mode: str = "replay"
    request_deadline_s: float = 300.0
    """The most seconds one request may take, all its attempts and the waits between them
    included (an endpoint that drips its answer a byte at a time never trips a read
    timeout). Not a receipt member: a replay asks no endpoint."""
    run_deadline_s: float = 3600.0
    """The most seconds one agent run may take from its first request to the endpoint, the
    handler's calls between requests included (a dead endpoint's requests would each run to
    their own deadline otherwise)."""

    def parameters(self) -> dict[str, Any]:
        """The sampling parameters every request carries (and receipts record)."""
        return {"temperature": self.temperature, "seed": self.seed}


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
    settings = LlmSettings(
        base_url=str(given["base_url"]).rstrip("/"),
        model=str(given["model"]),
        api_key_env=given.get("api_key_env"),
        temperature=float(given.get("temperature", LlmSettings.temperature)),
        seed=int(given.get("seed", LlmSettings.seed)),
        max_requests=int(given.get("max_requests", LlmSettings.max_requests)),
        max_tokens=int(given.get("max_tokens", LlmSettings.max_tokens)),
        cassette=given.get("cassette"),
        mode=str(given.get("mode", LlmSettings.mode)),
        request_deadline_s=float(given.get("request_deadline_s", LlmSettings.request_deadline_s)),
        run_deadline_s=float(given.get("run_deadline_s", LlmSettings.run_deadline_s)),
    )
    if settings.mode != "replay" and not is_safe_endpoint(settings.base_url):
        raise error_at(
            "/llm/base_url",
            f"mode {settings.mode} sends the model's key to {settings.base_url}, which is "
            "neither https nor on this machine",
            "use an https:// endpoint (http:// only for 127.0.0.1, ::1 or localhost)",
        )
    if settings.cassette is None and settings.mode != "live":
        raise error_at(
            "/llm",
            f"mode {settings.mode} needs a cassette",
            "add `cassette: PATH` (committed, so CI replays it), or use `mode: live`",
        )
    return settings
