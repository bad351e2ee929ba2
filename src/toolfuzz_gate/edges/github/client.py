"""A small GitHub REST client: retries, rate limits, spacing, bounded answers (edge).

Retry rules, by what a failure proves about the request:
- a network error or a 5xx on GET, PATCH or DELETE (idempotent) is retried with exponential
  backoff and full jitter; a POST is not (it may have been performed: the caller looks first);
- a rate limit (429, or a 403 that says so) was not performed, so any method is retried after
  `retry-after`, else until `x-ratelimit-reset` when the quota is spent, else after the
  secondary-rate-limit wait, doubled each time;
- any other 4xx is final.
Every wait counts against `RetryPolicy.max_total_wait`: a wait that would pass it is an error
now, not an hour's sleep. Time is bounded twice more, on the wall clock: each request (its
attempt's connection, headers and whole body) by `request_deadline` seconds, and everything
the client does by `deadline` seconds from its creation (a server that sends a byte every
20 s never times out a socket read). The token lives only in the `Authorization` header.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.auth import AuthBase

from toolfuzz_gate import __version__
from toolfuzz_gate.edges.github.answers import (
    AnswerTooSlow,
    Reply,
    github_message,
    is_rate_limit,
    next_link,
    origin,
    parse_json,
    read_bounded,
    seconds,
)
from toolfuzz_gate.errors import GitHubError

MAX_PAGES = 100
PER_PAGE = 100
MAX_REDIRECTS = 3
_MUTATING = frozenset({"POST", "PATCH", "DELETE"})
_TOKEN = re.compile(r"^[\x21-\x7e]{1,4096}$")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: `attempts` per request, backoff `base_delay` doubling up to `cap`,
    `secondary_wait` for a rate limit that names no time, and at most `max_total_wait`
    seconds of waiting per request."""

    attempts: int = 4
    base_delay: float = 1.0
    cap: float = 30.0
    max_total_wait: float = 120.0
    secondary_wait: float = 60.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("a retry policy makes at least one attempt")
        if min(self.base_delay, self.cap, self.max_total_wait, self.secondary_wait) < 0:
            raise ValueError("retry delays are not negative")


class _BearerAuth(AuthBase):
    """Sets the token on each request; giving `auth` also stops requests reading .netrc."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self._token}"
        return request

    def __repr__(self) -> str:
        return "<BearerAuth token=***>"

    def redact(self, text: str) -> str:
        """`text` with the token masked (a server may echo what it was sent)."""
        return text.replace(self._token, "***")


@dataclass
class _Attempts:
    waited: float = 0.0
    backoffs: int = 0
    rate_limits: int = 0


class GitHubClient:
    """Talks to one API root (`GITHUB_API_URL`, so GitHub Enterprise works) with one token."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        policy: RetryPolicy | None = None,
        mutation_spacing: float = 1.0,
        timeout: tuple[float, float] = (5.0, 30.0),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        session: requests.Session | None = None,
        request_deadline: float = 60.0,
        deadline: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        root = api_url.strip().rstrip("/")
        parts = urlsplit(root)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise GitHubError(f"the GitHub API URL {root[:200]!r} is not an http(s) URL")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise GitHubError("the GitHub API URL carries a query, fragment or credentials")
        if not _TOKEN.match(token):
            raise GitHubError(
                "the GitHub token is empty or holds characters an HTTP header cannot carry",
                code="github.forbidden",
            )
        self.api_url = root
        self._origin = origin(root)
        self._prefix = parts.path
        self._auth = _BearerAuth(token)
        self.policy = policy or RetryPolicy()
        self.mutation_spacing = mutation_spacing
        self.timeout = timeout
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._session = session or requests.Session()
        self._last_mutation: float | None = None
        self._monotonic = monotonic
        self.request_deadline = request_deadline
        self._end = None if deadline is None else monotonic() + deadline
        self.retries: list[str] = []
        """One line per retry taken ("GET /user: HTTP 502, waited 1.0s"), for the log."""

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r})"

    @property
    def graphql_available(self) -> bool:
        """GraphQL lives at `/graphql` beside REST only on an API root without a path
        (api.github.com); GitHub Enterprise puts it outside `/api/v3`."""
        return not self._prefix

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._session.close()

    # -- the verbs ---------------------------------------------------------------------------

    def get(self, path: str, params: Mapping[str, str | int] | None = None) -> Any:
        return self.request("GET", path, params=params).data

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        return self.request("POST", path, body=body).data

    def patch(self, path: str, body: Mapping[str, Any]) -> Any:
        return self.request("PATCH", path, body=body).data

    def delete(self, path: str) -> None:
        self.request("DELETE", path)

    def iter_pages(
        self, path: str, params: Mapping[str, str | int] | None = None
    ) -> Iterator[list[Any]]:
        """Each page of a list endpoint (`per_page=100` unless `params` says otherwise),
        following `Link: rel="next"` while it stays on the API root."""
        reply = self.request("GET", path, params={"per_page": PER_PAGE, **(params or {})})
        seen: set[str] = set()
        for count in range(1, MAX_PAGES + 1):
            if not isinstance(reply.data, list):
                raise GitHubError(f"GET {path}: GitHub answered something other than a list")
            yield reply.data
            following = next_link(reply.headers.get("link", ""))
            if following is None:
                return
            target = urljoin(reply.url or self.api_url + "/", following)
            if not self._is_ours(target):
                raise GitHubError(
                    f"GET {path}: the next page link leaves the API at {self.api_url}"
                )
            if target in seen:
                raise GitHubError(f"GET {path}: the next page link loops back")
            seen.add(target)
            if count == MAX_PAGES:
                break
            reply = self.request("GET", target)
        raise GitHubError(f"GET {path}: more than {MAX_PAGES} pages")

    # -- one request, with its retries ---------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> Reply:
        """`path` is relative to the API root ("/user") or a URL on the API's origin."""
        method = method.upper()
        url = path if path.startswith(("http://", "https://")) else self.api_url + path
        if not self._is_ours(url):
            raise GitHubError(f"{method}: refusing a URL outside the API at {self.api_url}")
        label = f"{method} {urlsplit(url).path}"
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        state = _Attempts()
        for attempt in range(1, self.policy.attempts + 1):
            last = attempt == self.policy.attempts
            self._check_deadline(label)
            if method in _MUTATING:
                self._space()
            try:
                reply = self._once(method, url, params, data)
            except _NetworkError as network:
                error = GitHubError(f"{label}: {network.reason}", code="github.unreachable")
                if method == "POST" or last:
                    raise error from None
                wait, why = self._backoff(state), network.reason
            else:
                if 200 <= reply.status < 300:
                    return reply
                error = self._error(label, reply)
                if reply.status < 400:  # a redirect without a usable Location, a 1xx
                    raise error
                if is_rate_limit(reply):
                    wait, why = self._rate_limit_wait(reply, state), f"HTTP {reply.status}"
                elif reply.status >= 500 and method != "POST":
                    wait, why = self._backoff(state), f"HTTP {reply.status}"
                else:
                    raise error
                if last:
                    raise error
            if state.waited + wait > self.policy.max_total_wait or self._past(wait):
                bound = (
                    "it would pass the deadline for talking to GitHub"
                    if self._past(wait)
                    else f"the bound is {self.policy.max_total_wait:.0f}s"
                )
                raise GitHubError(
                    f"{label}: giving up rather than wait {wait:.0f}s more ({bound})",
                    code=error.code,
                    status=error.status,
                    github_message=error.github_message,
                ) from None
            self.retries.append(f"{label}: {why}, waited {wait:.1f}s")
            self._sleep(wait)
            state.waited += wait
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _once(
        self,
        method: str,
        url: str,
        params: Mapping[str, str | int] | None,
        data: bytes | None,
    ) -> Reply:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": f"toolfuzz-gate/{__version__}",
            # no compression: each network read is then bytes of the body, so the deadline
            # is checked as they come (a decoder could read on without yielding any)
            "Accept-Encoding": "identity",
        }
        if data is not None:
            headers["Content-Type"] = "application/json; charset=utf-8"
        give_up_at = self._monotonic() + self.request_deadline
        if self._end is not None:
            give_up_at = min(give_up_at, self._end)
        try:
            for _ in range(MAX_REDIRECTS + 1):
                remaining = max(give_up_at - self._monotonic(), 0.001)
                timeout = (min(self.timeout[0], remaining), min(self.timeout[1], remaining))
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    data=data,
                    headers=headers,
                    auth=self._auth,
                    timeout=timeout,
                    stream=True,
                    allow_redirects=False,
                )
                try:
                    raw = read_bounded(response, give_up_at, self._monotonic)
                finally:
                    response.close()
                location = response.headers.get("location", "")
                if response.status_code in (301, 302, 307, 308) and location:
                    url, params = urljoin(url, location), None
                    if not self._is_ours(url):
                        raise GitHubError(f"{method}: GitHub redirected outside {self.api_url}")
                    continue
                return Reply(
                    response.status_code,
                    {k.lower(): v for k, v in response.headers.items()},
                    parse_json(raw, response.status_code),
                    response.url or url,
                )
        except requests.Timeout:
            raise _NetworkError("no answer within the timeout") from None
        except AnswerTooSlow:
            raise _NetworkError(
                f"no whole answer within {self.request_deadline:g} s (or the client's deadline)"
            ) from None
        except requests.ConnectionError as exc:
            raise _NetworkError(f"the connection failed ({type(exc).__name__})") from None
        except requests.exceptions.ChunkedEncodingError:
            raise _NetworkError("the connection broke mid-answer") from None
        except requests.RequestException as exc:
            raise GitHubError(
                f"{method}: the request could not be made ({type(exc).__name__})",
                code="github.unreachable",
            ) from None
        finally:
            if method in _MUTATING:
                self._last_mutation = self._clock()
        raise GitHubError(f"{method}: more than {MAX_REDIRECTS} redirects")

    # -- waits -------------------------------------------------------------------------------

    def _past(self, wait: float) -> bool:
        """Would waiting `wait` seconds pass the client's deadline?"""
        return self._end is not None and self._monotonic() + wait > self._end

    def _check_deadline(self, label: str) -> None:
        if self._past(0.0):
            raise GitHubError(
                f"{label}: the deadline for talking to GitHub has passed",
                code="github.unreachable",
            )

    def _space(self) -> None:
        """GitHub asks for a pause between mutating requests (secondary rate limits)."""
        if self._last_mutation is None or self.mutation_spacing <= 0:
            return
        gap = self.mutation_spacing - (self._clock() - self._last_mutation)
        if gap > 0:
            self._sleep(gap)

    def _backoff(self, state: _Attempts) -> float:
        ceiling = min(self.policy.cap, self.policy.base_delay * 2.0**state.backoffs)
        state.backoffs += 1
        return self._rng.random() * ceiling

    def _rate_limit_wait(self, reply: Reply, state: _Attempts) -> float:
        after = seconds(reply.headers.get("retry-after", ""))
        if after is not None:
            return after
        reset = seconds(reply.headers.get("x-ratelimit-reset", ""))
        if reply.headers.get("x-ratelimit-remaining", "").strip() == "0" and reset is not None:
            return max(0.0, reset - self._clock())
        wait = min(self.policy.secondary_wait * 2.0**state.rate_limits, 86_400.0)
        state.rate_limits += 1
        return wait

    # -- helpers -----------------------------------------------------------------------------

    def _is_ours(self, url: str) -> bool:
        parts = urlsplit(url)
        return origin(url) == self._origin and (
            parts.path == self._prefix or parts.path.startswith(self._prefix + "/")
        )

    def _error(self, label: str, reply: Reply) -> GitHubError:
        message = self._auth.redact(github_message(reply.data))
        status = reply.status
        if status == 429 or (status == 403 and is_rate_limit(reply)):
            code = "github.rate-limited"
        elif status in (401, 403):
            code = "github.forbidden"
        elif status == 404:
            code = "github.not-found"
        elif status == 422:
            code = "github.rejected"
        else:
            code = "github.failed"
        return GitHubError(label, code=code, status=status, github_message=message)


class _NetworkError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
