"""The upserted PR comment against the fake GitHub on 127.0.0.1: create, update in place,
leave alone, fall back, survive lost answers and races, and never touch anyone else's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import pytest

from tests.github_server import Account, FakeGitHub, FakeTime, Fault, HalfRandom
from toolfuzz_gate.edges.github.client import GitHubClient, RetryPolicy
from toolfuzz_gate.edges.github.comments import (
    CommentResult,
    find_author,
    list_comments,
    upsert_comment,
)
from toolfuzz_gate.errors import GitHubError

BOT = "github-actions[bot]"
BOT_TOKEN = "tok-bot-9f8e7d6c5b4a"
USER_TOKEN = "tok-user-1a2b3c4d"
FORK_TOKEN = "tok-fork-0f0f0f0f"
APP = "toolfuzz-app[bot]"
APP_TOKEN = "ghs-app-installation-5e5e5e"
MARKER = "<!-- toolfuzz-gate:default -->"
REPO = "octo/widgets"
PR = 7
LIST = f"/repos/{REPO}/issues/{PR}/comments"


def body(text: str, marker: str = MARKER) -> str:
    return f"{marker}\n## toolfuzz-gate\n{text}\n"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    tokens = {
        BOT_TOKEN: Account(BOT, integration=True),
        USER_TOKEN: Account("octocat"),
        FORK_TOKEN: Account(BOT, integration=True, read_only=True),
        APP_TOKEN: Account(APP, integration=True, viewer=False),
    }
    with FakeGitHub(tokens) as server:  # type: ignore[arg-type]
        yield server


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime()


def client_for(github: FakeGitHub, clock: FakeTime, token: str = BOT_TOKEN) -> GitHubClient:
    return GitHubClient(
        github.url,
        token,
        policy=RetryPolicy(attempts=3, base_delay=1.0, max_total_wait=60.0),
        mutation_spacing=0,
        sleep=clock.sleep,
        clock=clock.clock,
        rng=HalfRandom(),
    )


def upsert(
    github: FakeGitHub,
    clock: FakeTime,
    *bodies: str,
    marker: str = MARKER,
    mode: Literal["update", "recreate"] = "update",
) -> CommentResult:
    return upsert_comment(client_for(github, clock), REPO, PR, bodies, marker, mode, BOT)


def methods(github: FakeGitHub) -> list[str]:
    return [r.method for r in github.requests]


def test_the_author_is_the_token_login_or_the_fallback(github: FakeGitHub, clock: FakeTime) -> None:
    assert find_author(client_for(github, clock, USER_TOKEN)) == "octocat"
    assert find_author(client_for(github, clock, BOT_TOKEN)) == BOT  # 403, then GraphQL
    assert find_author(client_for(github, clock, "tok-unknown")) == ""  # 401: unknown
    assert find_author(client_for(github, clock, "tok-unknown"), fallback="ghe-bot") == "ghe-bot"
    github.add_fault(Fault("GET", "/user", status=404, body={"message": "Not Found"}))
    with pytest.raises(GitHubError) as caught:
        find_author(client_for(github, clock, USER_TOKEN))
    assert caught.value.code == "github.not-found"


def test_the_first_run_creates_the_comment(github: FakeGitHub, clock: FakeTime) -> None:
    result = upsert(github, clock, body("first"))
    (stored,) = github.comments(REPO, PR)
    assert result == CommentResult("created", stored["html_url"], stored["id"], ())
    assert (stored["body"], stored["user"]["login"]) == (body("first"), BOT)
    assert methods(github) == ["GET", "POST", "GET"]


def test_a_second_run_updates_in_place(github: FakeGitHub, clock: FakeTime) -> None:
    first = upsert(github, clock, body("first"))
    second = upsert(github, clock, body("second"))
    (stored,) = github.comments(REPO, PR)
    assert (second.action, second.id, second.url) == ("updated", first.id, first.url)
    assert stored["body"] == body("second")
    assert len(github.sent("PATCH")) == 1 and len(github.sent("POST")) == 1


def test_an_unchanged_body_sends_no_update(github: FakeGitHub, clock: FakeTime) -> None:
    first = upsert(github, clock, body("same"))
    before = len(github.requests)
    again = upsert(github, clock, body("same").replace("\n", "\r\n"))
    assert (again.action, again.id) == ("unchanged", first.id)
    assert methods(github)[before:] == ["GET"]
    assert github.sent("PATCH") == [] and github.sent("DELETE") == []


def test_another_users_comment_with_the_marker_is_left_alone(
    github: FakeGitHub, clock: FakeTime
) -> None:
    mallory = github.seed_comment(REPO, PR, "mallory", body("fake verdict: passed"))
    result = upsert(github, clock, body("real"))
    theirs, ours = github.comments(REPO, PR)
    assert theirs == mallory
    assert result.id == ours["id"] != mallory["id"]
    assert result.action == "created"
    touched = [r.path for r in github.requests if r.method in ("PATCH", "DELETE")]
    assert touched == []


def test_our_comment_is_found_on_the_last_of_three_pages(
    github: FakeGitHub, clock: FakeTime
) -> None:
    for index in range(230):
        github.seed_comment(REPO, PR, f"user{index % 7}", f"comment {index}")
    ours = github.seed_comment(REPO, PR, BOT, body("old"))
    result = upsert(github, clock, body("new"))
    assert (result.action, result.id) == ("updated", ours["id"])
    pages = [r.query.get("page", ["1"])[0] for r in github.sent("GET")]
    assert pages == ["1", "2", "3"]
    assert github.sent("POST") == []
    assert len(list_comments(client_for(github, clock), REPO, PR)) == 231


def test_comment_keys_are_separate(github: FakeGitHub, clock: FakeTime) -> None:
    a, b = "<!-- toolfuzz-gate:a -->", "<!-- toolfuzz-gate:b -->"
    first = upsert(github, clock, body("for a", a), marker=a)
    second = upsert(github, clock, body("for b", b), marker=b)
    assert first.id != second.id and second.action == "created"
    again = upsert(github, clock, body("for b, again", b), marker=b)
    assert (again.action, again.id) == ("updated", second.id)
    stored = {c["id"]: c["body"] for c in github.comments(REPO, PR)}
    assert stored == {first.id: body("for a", a), second.id: body("for b, again", b)}


def test_stray_duplicates_are_removed_on_update(github: FakeGitHub, clock: FakeTime) -> None:
    oldest = github.seed_comment(REPO, PR, BOT, body("one"))
    stray = github.seed_comment(REPO, PR, BOT, body("two"))
    result = upsert(github, clock, body("three"))
    assert (result.action, result.id) == ("updated", oldest["id"])
    assert result.notes == (f"removed duplicate {stray['id']}",)
    assert [c["id"] for c in github.comments(REPO, PR)] == [oldest["id"]]


@pytest.mark.parametrize("racer_body", ["theirs", "ours"])
def test_after_a_racing_create_the_oldest_wins_with_our_body(
    github: FakeGitHub, clock: FakeTime, racer_body: str
) -> None:
    # The racing run's comment is older, but our first list missed it.
    racer = github.seed_comment(REPO, PR, BOT, body(racer_body))
    github.add_fault(Fault("GET", LIST, status=200, body=[]))
    result = upsert(github, clock, body("ours"))
    (stored,) = github.comments(REPO, PR)
    assert stored["id"] == racer["id"] == result.id
    assert stored["body"] == body("ours")
    assert len(github.sent("POST")) == 1
    (deleted,) = github.sent("DELETE")
    assert deleted.path != f"/repos/{REPO}/issues/comments/{racer['id']}"
    assert result.action == ("updated" if racer_body == "theirs" else "unchanged")
    assert len(github.sent("PATCH")) == (1 if racer_body == "theirs" else 0)


def test_a_create_whose_answer_was_lost_is_found_by_listing(
    github: FakeGitHub, clock: FakeTime
) -> None:
    github.add_fault(Fault("POST", LIST, status=502, perform=True))
    result = upsert(github, clock, body("once"))
    (stored,) = github.comments(REPO, PR)
    assert (result.action, result.id) == ("created", stored["id"])
    assert len(github.sent("POST")) == 1
    assert f"the create's answer was lost; found comment {stored['id']}" in result.notes


def test_a_create_dropped_after_it_went_through_is_found(
    github: FakeGitHub, clock: FakeTime
) -> None:
    github.add_fault(Fault("POST", LIST, drop=True, perform=True))
    result = upsert(github, clock, body("once"))
    assert [c["id"] for c in github.comments(REPO, PR)] == [result.id]
    assert len(github.sent("POST")) == 1


def test_a_create_that_failed_is_an_error_not_a_retry(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("POST", LIST, status=502, times=3))
    with pytest.raises(GitHubError) as caught:
        upsert(github, clock, body("never"))
    assert (caught.value.code, caught.value.status) == ("github.failed", 502)
    assert len(github.sent("POST")) == 1
    assert github.comments(REPO, PR) == []


def test_a_rate_limited_create_waits_and_goes_through(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("POST", LIST, status=429, headers={"Retry-After": "7"}))
    result = upsert(github, clock, body("later"))
    assert result.action == "created"
    assert clock.sleeps == [7.0]
    assert len(github.comments(REPO, PR)) == 1


def test_a_5xx_on_the_list_is_retried(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(Fault("GET", LIST, status=503))
    result = upsert(github, clock, body("x"))
    assert result.action == "created"
    assert clock.sleeps == [0.5]


def test_a_body_too_long_falls_back_to_the_next(github: FakeGitHub, clock: FakeTime) -> None:
    github.max_body = 200
    long, middle, short = body("L" * 300), body("M" * 250), body("short")
    created = upsert(github, clock, long, middle, short)
    assert created.action == "created"
    assert created.notes == ("body too long; posted the shorter rendering 3/3",)
    assert [c["body"] for c in github.comments(REPO, PR)] == [short]
    assert len(github.sent("POST")) == 3

    github.max_body = len(middle)
    updated = upsert(github, clock, long, middle, short)
    assert (updated.action, updated.id) == ("updated", created.id)
    assert updated.notes == ("body too long; posted the shorter rendering 2/3",)
    assert [c["body"] for c in github.comments(REPO, PR)] == [middle]

    patches = len(github.sent("PATCH"))
    unchanged = upsert(github, clock, long, middle, short)
    assert unchanged.action == "unchanged"
    assert unchanged.notes == ("body too long; the comment keeps the shorter rendering 2/3",)
    assert len(github.sent("PATCH")) == patches + 1  # only the refused long one


def test_every_rendering_too_long_is_an_error(github: FakeGitHub, clock: FakeTime) -> None:
    github.max_body = 10
    with pytest.raises(GitHubError) as caught:
        upsert(github, clock, body("a" * 20), body("b"))
    assert (caught.value.code, caught.value.status) == ("github.rejected", 422)
    assert github.comments(REPO, PR) == []


def test_another_422_is_not_a_fallback(github: FakeGitHub, clock: FakeTime) -> None:
    github.add_fault(
        Fault("POST", LIST, status=422, body={"message": "Validation Failed"}, times=2)
    )
    with pytest.raises(GitHubError) as caught:
        upsert(github, clock, body("a"), body("b"))
    assert caught.value.code == "github.rejected"
    assert len(github.sent("POST")) == 1


def test_recreate_deletes_ours_and_posts_anew(github: FakeGitHub, clock: FakeTime) -> None:
    mallory = github.seed_comment(REPO, PR, "mallory", body("theirs"))
    old = github.seed_comment(REPO, PR, BOT, body("old"))
    result = upsert(github, clock, body("new"), mode="recreate")
    theirs, stored = github.comments(REPO, PR)
    assert theirs == mallory
    assert result.action == "recreated" and result.id == stored["id"] != old["id"]
    assert stored["body"] == body("new")
    assert result.notes == (f"removed old comment {old['id']}",)
    first = upsert(github, clock, body("newer"), mode="recreate")
    assert first.id != result.id and len(github.comments(REPO, PR)) == 2


def test_a_comment_deleted_meanwhile_is_created_again(github: FakeGitHub, clock: FakeTime) -> None:
    # The list still shows a comment of ours that another run has deleted since.
    gone = {"id": 999, "user": {"login": BOT}, "body": body("old"), "created_at": "2025"}
    github.add_fault(Fault("GET", LIST, status=200, body=[gone]))
    result = upsert(github, clock, body("new"))
    (stored,) = github.comments(REPO, PR)
    assert (result.action, result.id) == ("created", stored["id"])
    assert result.notes == ("comment 999 vanished; creating a new one",)
    assert [r.method for r in github.requests] == ["GET", "PATCH", "POST", "GET"]


def test_a_read_only_token_cannot_post(github: FakeGitHub, clock: FakeTime) -> None:
    client = client_for(github, clock, FORK_TOKEN)
    with pytest.raises(GitHubError) as caught:
        upsert_comment(client, REPO, PR, [body("x")], MARKER, "update", BOT)
    assert (caught.value.code, caught.value.status) == ("github.forbidden", 403)
    assert caught.value.github_message == "Resource not accessible by integration"
    assert len(github.sent("POST")) == 1 and clock.sleeps == []


@pytest.mark.parametrize(
    ("repository", "number"),
    [("octo", 1), ("octo/w/x", 1), ("../etc", 1), ("octo/..", 1), ("o/w?x=1", 1), ("o/w", 0)],
)
def test_the_target_is_checked_before_anything_is_sent(
    github: FakeGitHub, clock: FakeTime, repository: str, number: int
) -> None:
    with pytest.raises(GitHubError):
        upsert_comment(
            client_for(github, clock), repository, number, [body("x")], MARKER, "update", BOT
        )
    assert github.requests == []


def test_every_body_must_carry_the_marker(github: FakeGitHub, clock: FakeTime) -> None:
    with pytest.raises(ValueError, match="marker"):
        upsert(github, clock, body("ok"), "no marker here")
    assert github.requests == []


def test_the_token_appears_nowhere_but_the_authorization_header(
    github: FakeGitHub, clock: FakeTime
) -> None:
    github.max_body = 100
    github.add_fault(Fault("GET", LIST, status=502))
    github.add_fault(Fault("POST", LIST, status=429, headers={"Retry-After": "1"}))
    client = client_for(github, clock)
    author = find_author(client)
    result = upsert_comment(
        client, REPO, PR, [body("x" * 200), body("y")], MARKER, "update", author
    )
    texts = [repr(client), repr(result), *client.retries, *result.notes]
    github.add_fault(Fault("POST", LIST, status=500))
    with pytest.raises(GitHubError) as caught:
        upsert(github, clock, body("z"), mode="recreate")
    texts += [str(caught.value), repr(caught.value), caught.value.render()]
    for text in texts:
        assert BOT_TOKEN not in text
    for request in github.requests:
        assert request.headers["Authorization"] == f"Bearer {BOT_TOKEN}"
        for line in request.lines():
            assert BOT_TOKEN not in line or line == f"Authorization: Bearer {BOT_TOKEN}"


def app_upsert(github: FakeGitHub, clock: FakeTime, text: str, configured: str = "") -> str:
    client = client_for(github, clock, APP_TOKEN)
    author = find_author(client, configured)
    upsert_comment(client, REPO, PR, [body(text)], MARKER, "update", author)
    return author


def test_an_app_token_that_cannot_say_who_it_is_keeps_one_comment(
    github: FakeGitHub, clock: FakeTime
) -> None:
    """Issue 12: a GitHub App's installation token reads neither /user nor GraphQL's viewer.
    It used to be taken for github-actions[bot]: a new comment on every push, and edits
    aimed at github-actions[bot]'s marker comments."""
    theirs = github.seed_comment(REPO, PR, BOT, body("github-actions' own gate"))
    mallory = github.seed_comment(REPO, PR, "mallory", f"{MARKER}\nclaims: {APP}")
    assert app_upsert(github, clock, "first") == ""  # unknown: learned when creating
    app_upsert(github, clock, "second")
    app_upsert(github, clock, "second")
    comments = github.comments(REPO, PR)
    assert [(c["user"]["login"], c["body"]) for c in comments] == [
        (BOT, theirs["body"]),
        ("mallory", mallory["body"]),
        (APP, body("second")),
    ]


def test_the_comment_author_input_is_taken_as_the_login(
    github: FakeGitHub, clock: FakeTime
) -> None:
    assert app_upsert(github, clock, "first", configured=APP) == APP
    before = len(github.requests)
    app_upsert(github, clock, "second", configured=APP)
    assert methods(github)[before:] == ["GET", "PATCH"], "found its comment: no create or delete"
    assert [c["body"] for c in github.comments(REPO, PR)] == [body("second")]


def test_graphql_viewer_names_the_workflow_token(github: FakeGitHub, clock: FakeTime) -> None:
    client = client_for(github, clock, BOT_TOKEN)
    assert find_author(client) == BOT
    assert [(r.method, r.path) for r in github.requests] == [("GET", "/user"), ("POST", "/graphql")]
