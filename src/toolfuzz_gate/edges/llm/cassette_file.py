"""Cassette files and the model session a policy's `llm` section describes (edge)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from toolfuzz_gate.core.agent.cassette import Cassette, parse_cassette
from toolfuzz_gate.core.agent.session import ModelSession
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.jsonutil.canonical import canonical_document
from toolfuzz_gate.edges.files import load_json, write_atomic
from toolfuzz_gate.edges.llm.chat_client import ChatClient, Retries
from toolfuzz_gate.edges.llm.deadline import Deadlines
from toolfuzz_gate.errors import InputFileError, LlmError

MAX_CASSETTE_BYTES = 64 * 1024 * 1024


def load_cassette(path: Path) -> Cassette:
    """The cassette at `path`, checked entry by entry (it is untrusted input)."""
    if not path.is_file():
        raise LlmError(
            f"cassette {path} does not exist",
            code="llm.cassette-miss",
            hint="record it first: run with llm.mode: record against your endpoint, then "
            "commit the file",
        )
    try:
        document = load_json(path, max_bytes=MAX_CASSETTE_BYTES, what="cassette")
    except InputFileError as error:
        raise LlmError(error.message, code="llm.cassette-invalid") from None
    return parse_cassette(document, str(path))


def write_cassette(path: Path, cassette: Cassette, limit: int = MAX_CASSETTE_BYTES) -> None:
    """The cassette, written atomically in canonical form; one a replay would refuse (more
    than `limit` bytes) is not written, so a record run never leaves what replay rejects."""
    data = canonical_document(cassette.document())
    if len(data) > limit:
        raise LlmError(
            f"the recorded cassette would be {len(data):,} bytes, more than the {limit:,} a "
            f"replay reads; {path} was not written",
            code="llm.cassette-invalid",
            hint="record fewer exchanges: lower llm.max_requests, agent.prompt_sets or "
            "agent.probes",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def open_session(
    settings: LlmSettings,
    environ: Mapping[str, str],
    sleep: Callable[[float], None] | None = None,
    retries: Retries | None = None,
) -> tuple[ModelSession, ChatClient | None]:
    """The session for `settings`, and the HTTP client it talks through (None in
    `replay`, which never builds one). `record` starts from an empty cassette, so it
    holds exactly the exchanges of this run."""
    cassette_path = None if settings.cassette is None else Path(settings.cassette)
    if settings.mode == "replay":
        assert cassette_path is not None  # the policy requires a cassette outside `live`
        return ModelSession(settings, load_cassette(cassette_path), None), None
    key = None
    if settings.api_key_env is not None:
        key = environ.get(settings.api_key_env)
        if not key:
            raise LlmError(
                f"the environment variable {settings.api_key_env} (llm.api_key_env) is unset "
                "or empty",
                code="llm.missing-key",
                hint=f"export {settings.api_key_env}=... before a {settings.mode} run; "
                "replay needs no key",
            )
    # the deadlines (`deadline.py`) wrap the client; its waits between attempts count retries
    deadlines = Deadlines(settings)
    session: ModelSession | None = None

    def retried() -> None:
        assert session is not None  # a wait only happens inside a request the session made
        session.retried()

    wait = deadlines.wait_then(retried, sleep or time.sleep)
    client = ChatClient(
        settings.base_url,
        key,
        wire=settings.wire(),
        retries=retries or Retries(),
        sleep=wait,
    )
    cassette = Cassette(max_bytes=MAX_CASSETTE_BYTES if settings.mode == "record" else None)
    session = ModelSession(settings, cassette, deadlines.bound(client))
    return session, client
