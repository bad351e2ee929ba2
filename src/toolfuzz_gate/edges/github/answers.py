"""Reading GitHub's answers: bounded bodies, defensive JSON, rate-limit signs, one-line
messages and `Link` headers (edge: reads a `requests` response, decides nothing else)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3

from toolfuzz_gate.errors import GitHubError

MAX_RESPONSE_BYTES = 10 * 1024 * 1024
MAX_MESSAGE_CHARS = 200
_LINK = re.compile(r"<([^<>]*)>([^<]*)")
_REL = re.compile(r"""\brel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))""", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    """One answer: status, headers (lower-cased names) and the parsed JSON (None if empty)."""

    status: int
    headers: Mapping[str, str]
    data: Any
    url: str = ""


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        return ("", "", None)
    return (scheme, (parts.hostname or "").lower(), port)


def read_bounded(
    response: requests.Response,
    give_up_at: float | None = None,
    monotonic: Callable[[], float] = time.monotonic,
) -> bytes:
    """The body, at most `MAX_RESPONSE_BYTES`; past `give_up_at` (a `monotonic` time) the
    read stops with `AnswerTooSlow`, checked after each network read (a server can keep a
    connection alive forever with a byte every few seconds, each within the read timeout)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise GitHubError(f"GitHub's answer is larger than {MAX_RESPONSE_BYTES} bytes")
    chunks: list[bytes] = []
    size = 0
    for chunk in _chunks(response):
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise GitHubError(f"GitHub's answer is larger than {MAX_RESPONSE_BYTES} bytes")
        chunks.append(chunk)
        if give_up_at is not None and monotonic() > give_up_at:
            raise AnswerTooSlow
    return b"".join(chunks)


class AnswerTooSlow(Exception):
    """The answer did not arrive whole before the request's deadline."""


def _chunks(response: requests.Response) -> Iterator[bytes]:
    """The body as each network read returns it (`read1`: one read, not "until 64 KiB"),
    where urllib3 offers that; else in chunks."""
    read1 = getattr(response.raw, "read1", None)
    if read1 is None:
        yield from response.iter_content(chunk_size=65536)
        return
    while True:
        try:
            chunk = read1(65536)
        except urllib3.exceptions.ReadTimeoutError:  # as iter_content would say them
            raise requests.ReadTimeout("no answer within the read timeout") from None
        except urllib3.exceptions.HTTPError as error:
            raise requests.exceptions.ChunkedEncodingError(str(error)) from None
        if not chunk:
            return
        yield chunk


def parse_json(raw: bytes, status: int) -> Any:
    if not raw.strip():
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        if status >= 400:
            return None  # an error page that is not JSON: the status says enough
        raise GitHubError(f"GitHub answered HTTP {status} with a body that is not JSON") from None


def is_rate_limit(reply: Reply) -> bool:
    if reply.status == 429:
        return True
    if reply.status != 403:
        return False
    headers = reply.headers
    return (
        "retry-after" in headers
        or headers.get("x-ratelimit-remaining", "").strip() == "0"
        or "rate limit" in github_message(reply.data).lower()
    )


def seconds(text: str) -> float | None:
    """A non-negative whole number of seconds (how GitHub writes both headers), else None."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        return None
    return float(int(text))


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    printable = "".join(c if c.isprintable() else " " for c in text)
    line = " ".join(printable.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def github_message(data: Any) -> str:
    """GitHub's `message`, with the messages of its `errors` list, on one bounded line."""
    if not isinstance(data, dict):
        return ""
    parts: list[str] = []
    if isinstance(data.get("message"), str):
        parts.append(data["message"])
    errors = data.get("errors")
    if isinstance(errors, list):
        for item in errors[:5]:
            if isinstance(item, dict) and isinstance(item.get("message"), str):
                parts.append(item["message"])
            elif isinstance(item, str):
                parts.append(item)
    return one_line("; ".join(parts))


def next_link(header: str) -> str | None:
    """The URL of `rel="next"` in a `Link` header, or None."""
    for match in _LINK.finditer(header[:16384]):
        url, params = match.group(1).strip(), match.group(2)
        for rel in _REL.finditer(params):
            values = (rel.group(1) or rel.group(2) or "").lower().split()
            if "next" in values and url:
                return url
    return None
