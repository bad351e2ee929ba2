"""Cassettes: recorded chat requests and their answers, keyed by the request (pure).

A cassette (`toolfuzz-cassette/1`, canonical JSON) maps the digest of each request's
canonical form to the request, the first line of its prompt and the endpoint's answer.
The request never holds the API key, so neither does the cassette. Replaying one needs
no network: the same policy, receipts and cassette ask the same requests in the same
order and get the same answers. A cassette is read as untrusted input: every entry is
checked, and a request whose digest is not its key is refused as edited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.core.agent.chat import prompt_of
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_document, digest
from toolfuzz_gate.errors import LlmError

FORMAT = "toolfuzz-cassette/1"
MAX_ENTRIES = 10_000
MAX_ATTEMPTS = 100
"""The most attempts an entry may say its request took (the client makes 4)."""
_DIGEST = re.compile(r"[0-9a-f]{64}")


def request_digest(request: JSONObject) -> str:
    """The key of `request`: sha256 of its canonical form."""
    return digest(request)


@dataclass
class Cassette:
    """The exchanges of one cassette, by request digest."""

    entries: dict[str, JSONObject] = field(default_factory=dict)
    max_bytes: int | None = None
    """While recording: the most bytes the cassette's file may take (what a replay reads);
    the exchange that takes it past them stops the run, so no more requests are paid for a
    file that could not be written. None: not checked."""
    _sizes: dict[str, int] = field(default_factory=dict, repr=False)

    def answer(self, request: JSONObject) -> JSON:
        """The recorded answer to `request`; `LlmError` naming its prompt when none is."""
        entry = self.entries.get(request_digest(request))
        if entry is None:
            raise LlmError(
                f"the cassette holds no answer for the request {request_digest(request)[:12]} "
                f"(prompt: {prompt_of(request)!r})",
                code="llm.cassette-miss",
                hint="record the cassette again (llm.mode: record) against your endpoint: the "
                "policy, the receipts or the tool's schema changed since it was recorded",
            )
        return entry["response"]

    def attempts(self, request: JSONObject) -> int:
        """How many attempts the recorded request took (1 unless the endpoint failed and
        the client tried again), so a replay charges the budget what the recording did."""
        entry = self.entries.get(request_digest(request))
        found = entry.get("attempts", 1) if entry is not None else 1
        return found if type(found) is int else 1

    def record(self, request: JSONObject, response: JSON, attempts: int = 1) -> None:
        """Keep the exchange (a request asked twice keeps its latest answer), and, when it
        took more than one attempt, how many."""
        if len(self.entries) >= MAX_ENTRIES and request_digest(request) not in self.entries:
            raise LlmError(
                f"the cassette would hold more than {MAX_ENTRIES} exchanges",
                code="llm.cassette-invalid",
            )
        entry: JSONObject = {"prompt": prompt_of(request), "request": request, "response": response}
        if attempts > 1:
            entry["attempts"] = attempts
        key = request_digest(request)
        self.entries[key] = entry
        if self.max_bytes is not None:
            self._sizes[key] = _file_bytes(key, entry)
            total = sum(self._sizes.values())
            if total > self.max_bytes:
                raise LlmError(
                    f"the recording is over {self.max_bytes:,} bytes, more than a replay reads, "
                    f"after {len(self.entries)} exchanges; it stopped there",
                    code="llm.cassette-invalid",
                    hint="record fewer exchanges: lower llm.max_requests, agent.prompt_sets or "
                    "agent.probes",
                )

    def document(self) -> JSONObject:
        """The cassette file's content (canonical encoding sorts the entries)."""
        entries: JSONObject = dict(self.entries)
        return {"format": FORMAT, "entries": entries}

    def digest(self) -> str:
        """The digest of the cassette's content, which receipts record."""
        return digest(self.document())


def _file_bytes(key: str, entry: JSONObject) -> int:
    """About what one exchange adds to the cassette's file (its canonical encoding at the
    depth the file holds it; the write checks the whole file exactly)."""
    text = canonical_document({key: entry})
    return len(text) + 2 * text.count(b"\n")


def parse_cassette(document: Any, source: str) -> Cassette:
    """The cassette `document` holds; `LlmError` (`llm.cassette-invalid`) naming `source`
    and the first problem found."""

    def invalid(problem: str) -> LlmError:
        return LlmError(
            f"cassette {source}: {problem}",
            code="llm.cassette-invalid",
            hint="record it again (llm.mode: record); a cassette is written by the gate, "
            "never by hand",
        )

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise invalid(f"not a {FORMAT} document")
    entries = document.get("entries")
    if not isinstance(entries, dict):
        raise invalid("`entries` is not an object")
    if len(entries) > MAX_ENTRIES:
        raise invalid(f"more than {MAX_ENTRIES} entries")
    for key, entry in entries.items():
        if not _DIGEST.fullmatch(key):
            raise invalid(f"entry key {key[:80]!r} is not a sha256 digest")
        if not isinstance(entry, dict) or not isinstance(entry.get("request"), dict):
            raise invalid(f"entry {key[:12]} has no request object")
        if "response" not in entry or not isinstance(entry.get("prompt"), str):
            raise invalid(f"entry {key[:12]} lacks its response or prompt")
        attempts = entry.get("attempts")
        if "attempts" in entry and (type(attempts) is not int or not 2 <= attempts <= MAX_ATTEMPTS):
            raise invalid(
                f"entry {key[:12]}: `attempts` is not an integer from 2 to {MAX_ATTEMPTS}"
            )
        try:
            hashed = request_digest(entry["request"])
            digest(entry["response"])
        except ValueError:  # a number canonical JSON cannot write (1e400 reads as infinity)
            raise invalid(f"entry {key[:12]} holds a number out of range") from None
        if hashed != key:
            raise invalid(f"entry {key[:12]}: the request's digest is not its key (edited?)")
    return Cassette(dict(entries))
