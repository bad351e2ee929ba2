"""The GitHub REST client against the fake GitHub on 127.0.0.1: headers, retries, rate limits,
spacing, pagination, bounds, and a token that shows up nowhere but its header."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.github_server import Account, FakeGitHub, FakeTime, Fault, HalfRandom, pull_request
from toolfuzz_gate import __version__
from toolfuzz_gate.edges.github import answers
from toolfuzz_gate.edges.github.answers import next_link
from toolfuzz_gate.edges.github.client import GitHubClient, RetryPolicy
from toolfuzz_gate.errors import GitHubError

TOKEN = "tok-octo-5ecret-value"
COMMENTS = "/repos/o/r/issues/1/comments"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub({TOKEN: Account("octocat")}) as server:
        yield server


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime()


def make(
    github: FakeGitHub, clock: FakeTime, policy: RetryPolicy | None = None, spacing: float = 0
) -> GitHubClient:
    return GitHubClient(
        github.url + "/",
        TOKEN,
        policy=policy or RetryPolicy(attempts=4, base_delay=1.0, cap=30.0, max_total_wait=120.0),
        mutation_spacing=spacing,
        sleep=clock.sleep,
        clock=clock.clock,
        rng=HalfRandom(),
    )


def assert_token_only_in_authorization(github: FakeGitHub, *texts: str) -> None:
    for text in texts:
        assert TOKEN not in text
    assert github.requests
    for request in github.requests:
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        for line in request.lines():
            if TOKEN in line:
                assert line == f"Authorization: Bearer {TOKEN}"


def test_requests_carry_githubs_headers(github: FakeGitHub, clock: FakeTime) -> None:
    client = make(github, clock)
    assert client.api_url == github.url
    assert client.get("/user")["login"] == "octocat"
    (request,) = github.requests
    assert request.path == "/user"
    assert request.headers["Accept"] == "application/vnd.github+json"
    assert request.headers["X-GitHub-Api-Version"] == "2022-11-28"
    assert request.headers["User-Agent"] == f"toolfuzz-gate/{__version__}"
    assert_token_only_in_authorization(github, repr(client), repr(client._auth))


def test_an_enterprise_api_root_with_a_path_is_kept() -> None:
    with FakeGitHub({TOKEN: "octocat"}, prefix="/api/v3") as ghe:
        client = make(ghe, FakeTime())
        assert client.api_url.endswith("/api/v3")
        assert client.get("/user")["login"] == "octocat"
        assert [r.path for r in ghe.requests] == ["/api/v3/user"]


def test_a_5xx_on_get_is_retried_with_doubling_backoff(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("GET", "/user", status=502, times=2))
    github.add_fault(Fault("GET", "/user", status=503, times=1))
    assert make(github, clock).get("/user")["login"] == "octocat"
    assert len(github.requests) == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]


def test_backoff_is_capped_and_the_attempts_are_bounded(
    github: FakeGitHub, clock: FakeTime
) -> None:
    github.add_fault(Fault("GET", "/user", status=500, times=10))
    policy = RetryPolicy(attempts=4, base_delay=2.0, cap=3.0, max_total_wait=100.0)
    with pytest.raises(GitHubError) as caught:
        make(github, clock, policy).get("/user")
    assert caught.value.code == "github.failed"
    assert caught.value.status == 500
    assert len(github.requests) == 4
    assert clock.sleeps == [1.0, 1.5, 1.5]


def test_a_dropped_connection_on_get_is_retried(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("GET", "/user", drop=True))
    assert make(github, clock).get("/user")["login"] == "octocat"
    assert len(github.requests) == 2
    assert clock.sleeps == [0.5]


def test_unreachable_is_its_own_code(clock: FakeTime) -> None:
    with FakeGitHub({TOKEN: "octocat"}) as gone:
        url = gone.url
    client = GitHubClient(
        url, TOKEN, policy=RetryPolicy(attempts=2), sleep=clock.sleep, clock=clock.clock
    )
    with pytest.raises(GitHubError) as caught:
        client.get("/user")
    assert caught.value.code == "github.unreachable"
    assert caught.value.status is None
    assert len(clock.sleeps) == 1
    assert TOKEN not in str(caught.value)


def test_429_retry_after_is_honoured(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("GET", "/user", status=429, headers={"Retry-After": "7"}))
    assert make(github, clock).get("/user")["login"] == "octocat"
    assert clock.sleeps == [7.0]


def test_a_rate_limit_403_waits_for_the_reset(github: FakeGitHub, clock: FakeTime) -> None:
    reset = int(clock.now) + 42
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}
    body = {"message": "API rate limit exceeded for installation ID 1."}
    github.add_fault(Fault("GET", "/user", status=403, headers=headers, body=body))
    assert make(github, clock).get("/user")["login"] == "octocat"
    assert clock.sleeps == [42.0]
    assert clock.now >= reset


def test_a_secondary_rate_limit_waits_and_backs_off(github: FakeGitHub, clock: FakeTime) -> None:
    body = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
    github.add_fault(Fault("GET", "/user", status=403, body=body, times=2))
    policy = RetryPolicy(attempts=4, secondary_wait=3.0, max_total_wait=100.0)
    assert make(github, clock, policy).get("/user")["login"] == "octocat"
    assert clock.sleeps == [3.0, 6.0]


@pytest.mark.parametrize(
    "headers",
    [
        {"Retry-After": "3600"},
        {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(1_800_000_000 + 3600)},
    ],
)
def test_a_wait_beyond_the_bound_gives_up_at_once(
    github: FakeGitHub, clock: FakeTime, headers: dict[str, str]
) -> None:
    github.add_fault(Fault("GET", "/user", status=429, headers=headers))
    with pytest.raises(GitHubError) as caught:
        make(github, clock).get("/user")
    assert caught.value.code == "github.rate-limited"
    assert caught.value.status == 429
    assert "3600s" in str(caught.value)
    assert clock.sleeps == []
    assert len(github.requests) == 1


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (401, {"message": "Bad credentials"}, "github.forbidden"),
        (403, {"message": "Resource not accessible by integration"}, "github.forbidden"),
        (404, {"message": "Not Found"}, "github.not-found"),
        (422, {"message": "Validation Failed"}, "github.rejected"),
        (400, None, "github.failed"),
    ],
)
def test_other_4xx_are_never_retried(
    github: FakeGitHub, clock: FakeTime, status: int, body: object, code: str
) -> None:
    github.add_fault(Fault("GET", "/user", status=status, body=body, times=5))
    with pytest.raises(GitHubError) as caught:
        make(github, clock).get("/user")
    assert (caught.value.code, caught.value.status) == (code, status)
    if body:
        assert caught.value.github_message == body["message"]  # type: ignore[index]
    assert len(github.requests) == 1
    assert clock.sleeps == []


@pytest.mark.parametrize(
    "fault", [Fault("POST", COMMENTS, status=502), Fault("POST", COMMENTS, drop=True)]
)
def test_a_post_is_not_retried_on_a_5xx_or_a_network_error(
    github: FakeGitHub, clock: FakeTime, fault: Fault
) -> None:
    github.add_fault(fault)
    with pytest.raises(GitHubError) as caught:
        make(github, clock).post(COMMENTS, {"body": "x"})
    assert caught.value.code == ("github.unreachable" if fault.drop else "github.failed")
    assert len(github.sent("POST")) == 1
    assert clock.sleeps == []
    assert github.comments("o/r", 1) == []


def test_a_rate_limited_post_is_retried(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("POST", COMMENTS, status=429, headers={"Retry-After": "2"}))
    created = make(github, clock).post(COMMENTS, {"body": "x"})
    assert [c["id"] for c in github.comments("o/r", 1)] == [created["id"]]
    assert len(github.sent("POST")) == 2
    assert clock.sleeps == [2.0]


def test_patch_and_delete_are_retried_like_gets(github: FakeGitHub, clock: FakeTime) -> None:
    one = github.seed_comment("o/r", 1, "octocat", "one")
    path = f"/repos/o/r/issues/comments/{one['id']}"
    github.add_fault(Fault("PATCH", path, status=502))
    github.add_fault(Fault("DELETE", path, drop=True))
    client = make(github, clock)
    assert client.patch(path, {"body": "two"})["body"] == "two"
    client.delete(path)
    assert github.comments("o/r", 1) == []
    assert [r.method for r in github.requests] == ["PATCH", "PATCH", "DELETE", "DELETE"]


def test_mutating_requests_are_spaced(github: FakeGitHub, clock: FakeTime) -> None:
    client = make(github, clock, spacing=1.0)
    client.post(COMMENTS, {"body": "a"})
    client.get(COMMENTS)  # reads are not spaced
    assert clock.sleeps == []
    client.post(COMMENTS, {"body": "b"})
    clock.now += 0.25  # time passes on its own: only the rest of the second is waited
    client.post(COMMENTS, {"body": "c"})
    assert clock.sleeps == [1.0, 0.75]
    clock.now += 5
    client.post(COMMENTS, {"body": "d"})
    assert clock.sleeps == [1.0, 0.75]


def test_pages_are_followed_through_the_link_header(github: FakeGitHub, clock: FakeTime) -> None:
    for index in range(250):
        github.seed_comment("o/r", 1, "someone", f"comment {index}")
    pages = list(make(github, clock).iter_pages(COMMENTS))
    assert [len(page) for page in pages] == [100, 100, 50]
    assert [c["body"] for page in pages for c in page] == [f"comment {i}" for i in range(250)]
    assert [r.query for r in github.requests] == [
        {"per_page": ["100"]},
        {"per_page": ["100"], "page": ["2"]},
        {"per_page": ["100"], "page": ["3"]},
    ]


def test_a_next_link_off_the_api_is_not_followed(github: FakeGitHub, clock: FakeTime) -> None:
    for index in range(3):
        github.seed_comment("o/r", 1, "someone", f"comment {index}")
    host, port = github.url.removeprefix("http://").split(":")
    for elsewhere in (f"http://localhost:{port}", f"https://{host}:{port}", f"http://{host}:1"):
        github.link_base = elsewhere
        pages = make(github, clock).iter_pages(COMMENTS, {"per_page": 1})
        with pytest.raises(GitHubError, match="leaves the API"):
            list(pages)
    assert all(r.query.get("page") is None for r in github.requests)


def test_a_next_link_outside_the_api_path_is_not_followed(clock: FakeTime) -> None:
    with FakeGitHub({TOKEN: "octocat"}, prefix="/api/v3") as ghe:
        for index in range(3):
            ghe.seed_comment("o/r", 1, "someone", f"comment {index}")
        ghe.link_base = ghe.url.removesuffix("/api/v3") + "/other"
        with pytest.raises(GitHubError, match="leaves the API"):
            list(make(ghe, clock).iter_pages(COMMENTS, {"per_page": 1}))


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (
            '<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"',
            "https://a/x?page=2",
        ),
        (
            '<https://a/x?page=9>; rel="last", <https://a/x?page=2>; rel="next"',
            "https://a/x?page=2",
        ),
        ("<https://a/x?page=2>; rel=next", "https://a/x?page=2"),
        ('<https://a/x?a=1,2>; title="x, y"; rel="prev next"', "https://a/x?a=1,2"),
        ('<https://a/x?page=1>; rel="prev", <https://a/x?page=1>; rel="first"', None),
        ('<https://a/x>; rel="nextish"', None),
        ("", None),
        ("garbage; rel=next", None),
    ],
)
def test_next_link_parsing(header: str, expected: str | None) -> None:
    assert next_link(header) == expected


def test_answers_are_read_bounded(
    github: FakeGitHub, clock: FakeTime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(answers, "MAX_RESPONSE_BYTES", 1000)
    github.add_fault(Fault("GET", "/user", status=200, body={"login": "x" * 2000}))
    with pytest.raises(GitHubError, match="larger than 1000 bytes"):
        make(github, clock).get("/user")


def test_a_same_origin_redirect_is_followed_and_another_is_not(
    github: FakeGitHub, clock: FakeTime
) -> None:
    github.add_fault(Fault("GET", "/moved", status=301, headers={"Location": "/user"}))
    assert make(github, clock).get("/moved")["login"] == "octocat"
    github.add_fault(
        Fault("GET", "/moved", status=307, headers={"Location": "http://192.0.2.1/user"})
    )
    with pytest.raises(GitHubError, match="redirected outside"):
        make(github, clock).get("/moved")
    github.add_fault(Fault("GET", "/moved", status=303))
    with pytest.raises(GitHubError) as caught:
        make(github, clock).get("/moved")
    assert (caught.value.code, caught.value.status) == ("github.failed", 303)
    assert [r.path for r in github.requests] == ["/moved", "/user", "/moved", "/moved"]


def test_a_token_echoed_by_the_server_is_masked(github: FakeGitHub, clock: FakeTime) -> None:
    body = {"message": f"token {TOKEN} is not welcome here"}
    github.add_fault(Fault("GET", "/user", status=403, body=body))
    with pytest.raises(GitHubError) as caught:
        make(github, clock).get("/user")
    assert caught.value.github_message == "token *** is not welcome here"
    assert_token_only_in_authorization(
        github, str(caught.value), caught.value.render(), repr(caught.value)
    )


def test_github_messages_are_one_bounded_line(github: FakeGitHub, clock: FakeTime) -> None:
    body = {"message": "first\nsecond\x1b[31m " + "z" * 500, "errors": [{"message": "more"}]}
    github.add_fault(Fault("GET", "/user", status=404, body=body))
    with pytest.raises(GitHubError) as caught:
        make(github, clock).get("/user")
    message = caught.value.github_message
    assert message.startswith("first second [31m zzz")
    assert "\n" not in message and "\x1b" not in message
    assert len(message) == answers.MAX_MESSAGE_CHARS and message.endswith("...")


@pytest.mark.parametrize("token", ["", "tok en", "tok\r\nX-Evil: 1", "tök"])
def test_a_token_no_header_can_carry_is_refused_without_showing_it(token: str) -> None:
    with pytest.raises(GitHubError) as caught:
        GitHubClient("https://api.github.invalid", token)
    assert caught.value.code == "github.forbidden"
    if token:
        assert token not in str(caught.value)


@pytest.mark.parametrize(
    "url", ["ftp://api.github.invalid", "api.github.invalid", "https://u:p@ghe.invalid/api/v3"]
)
def test_an_api_url_that_is_not_plain_http_is_refused(url: str) -> None:
    with pytest.raises(GitHubError):
        GitHubClient(url, TOKEN)


def test_a_non_json_success_is_an_error(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("GET", "/user", status=200, raw=b"<html>hello</html>"))
    with pytest.raises(GitHubError, match="not JSON"):
        make(github, clock).get("/user")
    github.add_fault(Fault("GET", "/user", status=200, raw=b""))
    assert make(github, clock).get("/user") is None  # empty, as a 204 is


def test_a_non_json_error_page_keeps_its_status(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("GET", "/user", status=404, raw=b"<html>nope</html>"))
    with pytest.raises(GitHubError) as caught:
        make(github, clock).get("/user")
    assert (caught.value.code, caught.value.github_message) == ("github.not-found", "")


def test_the_fake_serves_a_configured_pull_request(github: FakeGitHub, clock: FakeTime) -> None:
    pull = pull_request(3, "a" * 40, head_repo="fork/widgets", base_repo="o/r")
    github.set_pull("o/r", 3, pull)
    client = make(github, clock)
    assert client.get("/repos/o/r/pulls/3") == pull
    with pytest.raises(GitHubError) as caught:
        client.get("/repos/o/r/pulls/4")
    assert caught.value.code == "github.not-found"


class Ticking:
    """A monotonic clock that moves on `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_an_answer_that_trickles_in_is_cut_at_the_request_deadline(
    github: FakeGitHub, clock: FakeTime
) -> None:
    """Issue 12: headers, then one byte at a time, each well within the read timeout: only a
    wall-clock deadline ends it. Real time here: the server stops counting when we hang up."""
    body = b'{"login": "' + b"x" * 400 + b'"}'
    fault = Fault("GET", "/user", status=200, raw=body, trickle=0.02, times=9)
    github.add_fault(fault)
    client = GitHubClient(
        github.url,
        TOKEN,
        policy=RetryPolicy(attempts=2, base_delay=0.0),
        sleep=clock.sleep,
        clock=clock.clock,
        request_deadline=0.3,
    )
    with pytest.raises(GitHubError) as raised:
        client.get("/user")
    assert raised.value.code == "github.unreachable"
    assert "no whole answer within 0.3 s" in raised.value.message
    assert len(github.requests) == 2, "a GET is retried once, each attempt cut short"
    assert fault.trickled < 2 * len(body), "the client hung up mid-answer"


def test_the_client_has_one_deadline_for_everything(github: FakeGitHub, clock: FakeTime) -> None:
    """However many retries the policy allows, nothing is sent once the client's deadline
    (the comment phase's) has passed, and no wait runs past it."""
    github.add_fault(Fault("GET", "/user", status=502, times=100))
    client = GitHubClient(
        github.url,
        TOKEN,
        policy=RetryPolicy(attempts=50, base_delay=0.0, max_total_wait=1e6),
        sleep=clock.sleep,
        clock=clock.clock,
        rng=HalfRandom(),
        deadline=10.0,
        monotonic=Ticking(1.0),
    )
    with pytest.raises(GitHubError) as raised:
        client.get("/user")
    assert "deadline for talking to GitHub" in raised.value.message
    assert 1 <= len(github.requests) < 10
