"""What one handler call produced, and the seam every adapter implements (pure).

Adapters (in `toolfuzz_gate.edges.handlers`) do the I/O and reduce whatever the
handler did to an `Outcome`; the core only ever sees outcomes.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any, NamedTuple, Protocol, runtime_checkable

from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import mask_text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class OutcomeKind(StrEnum):
    ACCEPTED = "accepted"
    """The handler returned an output."""
    REJECTED = "rejected"
    """The handler refused the call cleanly, with an error code."""
    CRASH = "crash"
    """Anything else: an unexpected exception, a dead process, garbage on the wire."""
    TIMEOUT = "timeout"
    """No answer within the per-call timeout."""


class Outcome(NamedTuple):
    """One call's result, reduced to what the invariants need (a tuple: made per call).

    The output itself is not kept (receipts hold little bulk): its digest answers
    the replay and key-order questions, its size the output-bound question. Only agent
    mode asks an adapter for `output_text` (`HandlerConfig.output_text_chars`), because a
    model reads the output; the campaign never does, so its receipts cannot depend on it.
    """

    kind: OutcomeKind
    output_digest: str | None = None
    output_bytes: int = 0
    output_capped: bool = False
    """True when the adapter stopped reading at the byte cap."""
    error_code: str | None = None
    error_path: str | None = None
    message: str = ""
    """Bounded, redacted detail for humans: an exception type and message, a stderr tail."""
    effects_before: JSON = None
    effects_after: JSON = None
    effects_observed: bool = False
    """True when a state probe ran before and after the call."""
    cause: str | None = None
    """What a crash was, in stable words, when the adapter knows it structurally: the
    exception type, the server's error code (`core.campaign.cause` reads the message otherwise)."""
    exhausted: str | None = None
    """For a CRASH: the resource limit the call ran into (`memory 2048 MB`, `cpu 300 s`)."""
    structured: JSON = None
    """For an ACCEPTED MCP call: the result's `structuredContent`, judged by the tool's
    declared output schema (held for the call only, never written anywhere)."""
    has_structured: bool = False
    """True when the result carried `structuredContent` (it may be null)."""
    code_derived: bool = False
    """For a REJECTED call: the handler declared no code, the adapter made `error_code` up
    (read from free text, or a generic one), so a policy's `rejection_code` may replace it."""
    ended: bool = False
    """For a CRASH or TIMEOUT: the call cost the handler its process (it exited, broke the
    protocol or was killed for its silence), so the call before it is a suspect too."""
    internal: bool = False
    """For a CRASH: the handler answered an internal error (JSON-RPC -32603) and lives."""
    output_text: str | None = None
    """For an ACCEPTED call, when the adapter was asked to keep it: the output as bounded,
    masked text (`output_text`). Untrusted: it is what the handler chose to say."""
    said: str | None = None
    """For an ACCEPTED call: the first words of its answer (an MCP result's first text block,
    a string output), at most `SAID_CHARS`, masked; what `core.campaign.reach` reads to tell
    a rejection answered as a success. Not part of the digest; untrusted."""
    escaped_writes: tuple[str, ...] = ()
    """For a handler confined to a root (`edges.handlers.workspace`): the paths, relative to
    that root, the call created, changed or removed outside it (empty: none, or not watched)."""

    @property
    def committed_change(self) -> bool:
        """Did the observed committed state change across the call?"""
        return self.effects_observed and self.effects_before != self.effects_after

    def summary(self) -> JSONObject:
        """A small, deterministic description for case logs and receipts."""
        data: JSONObject = {"kind": self.kind.value}
        if self.error_code is not None:
            data["code"] = self.error_code
        if self.exhausted is not None:
            data["limit"] = self.exhausted
        if self.kind is OutcomeKind.ACCEPTED:
            data["outputBytes"] = self.output_bytes
        return data


class Handler(Protocol):
    """Anything that can be called with a tool's arguments."""

    def call(self, arguments: JSONObject) -> Outcome: ...


@runtime_checkable
class Replaying(Protocol):
    """What a handler may also offer for confirming a finding (adapters with processes).

    `restart` stops the handler's process so that the next call starts a fresh one;
    `scale_timeout` stretches the per-call timeout from the next call on (1.0: as
    configured), so a timeout can be replayed with a longer budget.
    """

    def restart(self) -> None: ...

    def scale_timeout(self, factor: float) -> None: ...


@runtime_checkable
class Refreshing(Protocol):
    """What a replaying handler may also offer: `start_fresh` drops the process and runs
    the declared reset (and, where the adapter made the working directory, makes a new
    one), so the next call meets the state a campaign starts from, not the one it left."""

    def start_fresh(self) -> None: ...


@runtime_checkable
class Pinging(Protocol):
    """What a handler with a protocol may also offer: `ping` asks its process whether it is
    still there (None: it cannot be asked); an answer is ACCEPTED, none a CRASH or TIMEOUT."""

    def ping(self) -> Outcome | None: ...


def start_fresh_through(inner: object) -> None:
    """For a wrapping handler: start `inner` fresh (`Refreshing`), or at least restart it."""
    if isinstance(inner, Refreshing):
        inner.start_fresh()
    elif isinstance(inner, Replaying):
        inner.restart()


def ping_through(inner: object) -> Outcome | None:
    """For a wrapping handler: `inner`'s ping, None when it cannot be asked."""
    return inner.ping() if isinstance(inner, Pinging) else None


def output_text(output: Any, limit: int) -> str | None:
    """`output` as text an agent may read, or None when `limit` is 0 (nothing kept): a
    string as itself, anything else as JSON with sorted keys; credential-looking substrings
    masked, control characters (but tab and newline) dropped, at most `limit` characters
    (a cut is marked with how much was left out)."""
    if limit <= 0:
        return None
    if isinstance(output, str):
        text = output
    else:
        text = json.dumps(output, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = _CONTROL.sub("", mask_text(text))
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


SAID_CHARS = 400
"""Characters of an accepted answer's text an adapter keeps as `Outcome.said`."""


def said_of(text: str | None) -> str | None:
    """An answer's text as `Outcome.said` keeps it (None when there is none)."""
    if not text:
        return None
    return _CONTROL.sub("", mask_text(text[:SAID_CHARS]))


def handler_words(code: str | None, message: str | None) -> str:
    """What a handler said about a call, as reports show it: `code: message`, either one
    alone, or "" when it said nothing."""
    code, message = code or "", message or ""
    return f"{code}: {message}" if code and message else code or message
