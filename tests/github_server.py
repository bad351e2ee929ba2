"""A fake GitHub REST API on 127.0.0.1 for tests: issue comments, /user, pulls, fault injection.

    with FakeGitHub({"tok-bot": Account("github-actions[bot]", integration=True)}) as github:
        client = GitHubClient(github.url, "tok-bot", mutation_spacing=0)
        github.seed_comment("o/r", 1, "someone", "hello")
        github.add_fault(Fault("GET", r"/repos/o/r/issues/1/comments", status=502))
        ...
        assert [r.method for r in github.requests] == [...]

What it answers, the way GitHub does:
- `GET /user`: the token's login; 403 `Resource not accessible by integration` for an
  integration token (the workflow's GITHUB_TOKEN); 401 for a missing or unknown token.
- `POST /graphql`: `viewer { login }` only, unless the account says it is refused.
- `GET|POST /repos/{o}/{r}/issues/{n}/comments` (`per_page` default 30, at most 100; `page`;
  a `Link` header with next/last/prev/first); a POST from a read-only account (a fork's token)
  is 403; a body longer than `max_body` characters is 422 `Body is too long (maximum is N
  characters)`.
- `PATCH|DELETE /repos/{o}/{r}/issues/comments/{id}`: 404 for an unknown id, 403 when the
  token's user did not write the comment or the account is read-only.
- `GET /repos/{o}/{r}/pulls/{n}`: the dict given to `set_pull`, else 404.
Paths are relative to `prefix` (empty, or `/api/v3` as on GitHub Enterprise); fault patterns
too, while the request log keeps the full path.
Faults are consumed in order, first match wins: a canned answer, a dropped connection, or
"perform the request, then answer this instead" (a create whose answer is lost).
Every request is logged (method, path, query, headers, body) for assertions.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_REQUEST_BYTES = 4 * 1024 * 1024
EPOCH = "2026-01-01T00:00:00Z"


@dataclass(frozen=True)
class Account:
    """Who a token is. `integration`: GET /user is 403 (the workflow token). `read_only`:
    POST and PATCH are 403 (a pull request from a fork gets such a token)."""

    login: str
    integration: bool = False
    read_only: bool = False
    viewer: bool = True
    """Does GraphQL's `viewer` answer (a GitHub App's installation token: no)?"""


@dataclass
class Fault:
    """An injected answer for the next `times` requests matching `method` and `path` (a regex
    matched in full against the path, without the query).

    `status`/`headers`/`body`: the answer sent (`body` as JSON, or `raw` bytes as they are).
    `drop`: close the connection without any answer. `trickle`: send the headers, then the
    body one byte every `trickle` seconds. `perform`: handle the request for real first, then
    send the answer above instead of the real one.
    """

    method: str
    path: str
    status: int = 502
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    raw: bytes | None = None
    drop: bool = False
    perform: bool = False
    times: int = 1
    trickle: float = 0.0
    trickled: int = 0
    """How many body bytes a trickle has sent so far."""

    def matches(self, method: str, path: str) -> bool:
        return (
            self.times > 0 and self.method == method and re.fullmatch(self.path, path) is not None
        )


@dataclass(frozen=True)
class LoggedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: str

    def lines(self) -> list[str]:
        """The request as log lines, one per header, for "the token appears nowhere" checks."""
        query = "&".join(f"{k}={v}" for k, vs in self.query.items() for v in vs)
        head = [f"{self.method} {self.path}{'?' + query if query else ''}"]
        return head + [f"{k}: {v}" for k, v in self.headers.items()] + [self.body]


@dataclass
class _State:
    tokens: dict[str, Account]
    max_body: int
    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    pulls: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    requests: list[LoggedRequest] = field(default_factory=list)
    next_id: int = 1000
    ticks: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


_COMMENTS = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
_COMMENT = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")
_PULL = re.compile(r"^/repos/([^/]+/[^/]+)/pulls/(\d+)$")


class FakeGitHub:
    """The server; a context manager that starts it on a free loopback port and stops it."""

    def __init__(
        self,
        tokens: dict[str, Account | str] | None = None,
        *,
        max_body: int = 65536,
        prefix: str = "",
    ) -> None:
        accounts = {
            token: account if isinstance(account, Account) else Account(account)
            for token, account in (tokens or {}).items()
        }
        self._state = _State(accounts, max_body)
        self.prefix = prefix.rstrip("/")
        """Where the API lives on the server (`/api/v3`, as on GitHub Enterprise); paths
        outside it are 404."""
        self.link_base: str | None = None
        """Overrides the API root written into `Link` headers (to test links that leave it)."""
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> FakeGitHub:
        handler = _handler_for(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    @property
    def url(self) -> str:
        assert self._server is not None, "the server is not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.prefix}"

    # -- configuring and inspecting ------------------------------------------------------------

    @property
    def max_body(self) -> int:
        return self._state.max_body

    @max_body.setter
    def max_body(self, value: int) -> None:
        self._state.max_body = value

    def seed_comment(self, repo: str, number: int, author: str, body: str) -> dict[str, Any]:
        """Adds a comment as if `author` had posted it now; returns its JSON."""
        with self._state.lock:
            return dict(self._add(repo, number, author, body))

    def comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        """The comments on one issue, oldest first (copies)."""
        with self._state.lock:
            return [dict(c) for c in self._state.comments.get((repo, number), [])]

    def set_pull(self, repo: str, number: int, pull: dict[str, Any]) -> None:
        with self._state.lock:
            self._state.pulls[(repo, number)] = pull

    def add_fault(self, fault: Fault) -> None:
        with self._state.lock:
            self._state.faults.append(fault)

    @property
    def requests(self) -> list[LoggedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    def sent(self, method: str) -> list[LoggedRequest]:
        """The REST requests sent with `method` (a GraphQL query is a POST, not counted)."""
        return [r for r in self.requests if r.method == method and r.path != "/graphql"]

    # -- the API, called by the handler under the lock ----------------------------------------

    def _add(self, repo: str, number: int, author: str, body: str) -> dict[str, Any]:
        state = self._state
        state.next_id += 1
        state.ticks += 1
        stamp = _stamp(state.ticks)
        comment = {
            "id": state.next_id,
            "node_id": f"IC_{state.next_id}",
            "user": {"login": author, "type": "Bot" if author.endswith("[bot]") else "User"},
            "body": body,
            "created_at": stamp,
            "updated_at": stamp,
            "html_url": f"https://github.invalid/{repo}/pull/{number}#issuecomment-{state.next_id}",
            "url": f"{self.url}/repos/{repo}/issues/comments/{state.next_id}",
        }
        state.comments.setdefault((repo, number), []).append(comment)
        return comment

    def _find(self, repo: str, comment_id: int) -> dict[str, Any] | None:
        for (owner_repo, _), listed in self._state.comments.items():
            if owner_repo == repo:
                for comment in listed:
                    if comment["id"] == comment_id:
                        return comment
        return None

    def _answer(
        self, method: str, path: str, query: dict[str, list[str]], token: str | None, body: str
    ) -> tuple[int, dict[str, str], Any]:
        account = self._state.tokens.get(token or "")
        if account is None:
            return 401, {}, {"message": "Bad credentials" if token else "Requires authentication"}
        if path == "/user" and method == "GET":
            if account.integration:
                return 403, {}, {"message": "Resource not accessible by integration"}
            return 200, {}, {"login": account.login, "id": 1, "type": "User"}
        if path == "/graphql" and method == "POST":
            if "viewer" not in body or not account.viewer:
                refused = "Resource not accessible by integration"
                return (
                    200,
                    {},
                    {"data": None, "errors": [{"type": "FORBIDDEN", "message": refused}]},
                )
            return 200, {}, {"data": {"viewer": {"login": account.login}}}
        if match := _COMMENTS.match(path):
            repo, number = match.group(1), int(match.group(2))
            if method == "GET":
                return self._list(path, repo, number, query)
            if method == "POST":
                if account.read_only:
                    return 403, {}, {"message": "Resource not accessible by integration"}
                text, problem = self._body(body)
                if problem:
                    return problem
                return 201, {}, dict(self._add(repo, number, account.login, text))
        if match := _COMMENT.match(path):
            repo, comment_id = match.group(1), int(match.group(2))
            comment = self._find(repo, comment_id)
            if method in ("PATCH", "DELETE"):
                if comment is None:
                    return 404, {}, {"message": "Not Found"}
                if account.read_only or comment["user"]["login"] != account.login:
                    return 403, {}, {"message": "Resource not accessible by integration"}
                if method == "DELETE":
                    for listed in self._state.comments.values():
                        if comment in listed:
                            listed.remove(comment)
                    return 204, {}, None
                text, problem = self._body(body)
                if problem:
                    return problem
                self._state.ticks += 1
                comment["body"] = text
                comment["updated_at"] = _stamp(self._state.ticks)
                return 200, {}, dict(comment)
        if (match := _PULL.match(path)) and method == "GET":
            pull = self._state.pulls.get((match.group(1), int(match.group(2))))
            if pull is not None:
                return 200, {}, pull
        return 404, {}, {"message": "Not Found"}

    def _body(self, raw: str) -> tuple[str, tuple[int, dict[str, str], Any] | None]:
        try:
            data = json.loads(raw)
        except ValueError:
            return "", (400, {}, {"message": "Problems parsing JSON"})
        text = data.get("body") if isinstance(data, dict) else None
        if not isinstance(text, str):
            return "", (422, {}, {"message": "Invalid request.", "errors": ["body is missing"]})
        if len(text) > self._state.max_body:
            error = {
                "resource": "IssueComment",
                "code": "unprocessable",
                "field": "data",
                "message": f"Body is too long (maximum is {self._state.max_body} characters)",
            }
            return "", (422, {}, {"message": "Validation Failed", "errors": [error]})
        return text, None

    def _list(
        self, path: str, repo: str, number: int, query: dict[str, list[str]]
    ) -> tuple[int, dict[str, str], Any]:
        per_page = max(1, min(100, int(query.get("per_page", ["30"])[0])))
        page = max(1, int(query.get("page", ["1"])[0]))
        listed = self._state.comments.get((repo, number), [])
        last = max(1, -(-len(listed) // per_page))
        chunk = [dict(c) for c in listed[(page - 1) * per_page : page * per_page]]
        base = f"{self.link_base or self.url}{path}?per_page={per_page}&page="
        links = []
        if page < last:
            links += [f'<{base}{page + 1}>; rel="next"', f'<{base}{last}>; rel="last"']
        if page > 1:
            links += [f'<{base}{page - 1}>; rel="prev"', f'<{base}1>; rel="first"']
        return 200, ({"Link": ", ".join(links)} if links else {}), chunk


def pull_request(
    number: int,
    head_sha: str,
    *,
    head_repo: str = "octo/widgets",
    base_repo: str = "octo/widgets",
    base_ref: str = "main",
    base_sha: str = "0" * 40,
    head_ref: str = "feature",
) -> dict[str, Any]:
    """A pull request as `GET /repos/{o}/{r}/pulls/{n}` gives it, with the members the action
    reads (a fork is a `head_repo` other than `base_repo`)."""
    return {
        "number": number,
        "state": "open",
        "head": {"sha": head_sha, "ref": head_ref, "repo": {"full_name": head_repo}},
        "base": {"sha": base_sha, "ref": base_ref, "repo": {"full_name": base_repo}},
    }


def _stamp(ticks: int) -> str:
    """A deterministic `created_at`: one second per event after EPOCH."""
    minutes, seconds = divmod(ticks, 60)
    hours, minutes = divmod(minutes, 60)
    return f"2026-01-01T{hours:02d}:{minutes:02d}:{seconds:02d}Z"


def _handler_for(github: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    state = github._state

    class Handler(BaseHTTPRequestHandler):
        server_version = "FakeGitHub/1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the request log is `FakeGitHub.requests`."""

        def _handle(self) -> None:
            parts = urlsplit(self.path)
            inside = parts.path.startswith(github.prefix + "/")
            path = parts.path[len(github.prefix) :] if inside else "/-outside-the-api"
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(min(length, MAX_REQUEST_BYTES)).decode("utf-8", "replace")
            auth = self.headers.get("Authorization", "")
            token = auth.split(" ", 1)[1] if auth.startswith(("Bearer ", "token ")) else None
            query = parse_qs(parts.query)
            with state.lock:
                state.requests.append(
                    LoggedRequest(self.command, parts.path, query, dict(self.headers), raw)
                )
                fault = next((f for f in state.faults if f.matches(self.command, path)), None)
                if fault is not None:
                    fault.times -= 1
                if fault is None or fault.perform:
                    answer = github._answer(self.command, path, query, token, raw)
            if fault is not None:
                if fault.drop:
                    self.close_connection = True
                    return
                answer = (fault.status, fault.headers, fault.body)
                if fault.raw is not None:
                    answer = (fault.status, fault.headers, fault.raw)
            self._send(*answer, trickle=fault)

        def _send(
            self, status: int, headers: dict[str, str], body: Any, trickle: Fault | None = None
        ) -> None:
            if isinstance(body, bytes):
                data = body
            else:
                data = b"" if body is None else json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if trickle is None or not trickle.trickle:
                self.wfile.write(data)
                return
            try:
                for index in range(len(data)):
                    self.wfile.write(data[index : index + 1])
                    self.wfile.flush()
                    trickle.trickled += 1
                    time.sleep(trickle.trickle)
            except OSError:  # the client gave up: what a trickle test wants
                self.close_connection = True

        do_GET = do_POST = do_PATCH = do_DELETE = _handle

    return Handler


class FakeTime:
    """An injected clock and sleep: `sleep` records the wait and moves the clock on, so code
    under test sees time pass without any real waiting."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0, f"a negative sleep: {seconds}"
        self.sleeps.append(seconds)
        self.now += seconds


class HalfRandom(random.Random):
    """Full jitter draws uniformly below the backoff ceiling; always drawing the middle makes
    the doubling ceilings visible in the recorded sleeps."""

    def random(self) -> float:
        return 0.5
