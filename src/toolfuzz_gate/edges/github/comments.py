"""One upserted PR comment over the REST API: list, plan, post, clean up after a race (edge).

The decisions live in `core.github.comment_plan`; this module performs them and copes with what
GitHub answers: a body too long for GitHub falls back to the next (shorter) rendering, a create
whose answer was lost is looked for before anything else is tried, and after a create the
comments are listed again so that two racing runs end with one comment (the oldest wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from toolfuzz_gate.core.github.comment_plan import (
    Comment,
    duplicates,
    is_ours,
    plan_comment,
    same_body,
)
from toolfuzz_gate.core.github.names import is_issue_number, is_login, is_repository
from toolfuzz_gate.edges.github.client import GitHubClient
from toolfuzz_gate.errors import GitHubError

TOO_LONG = "is too long"


@dataclass(frozen=True)
class CommentResult:
    """What happened: `action` is "created", "updated", "unchanged" or "recreated"; `url` is
    the comment's html_url; `notes` say what else was done (fallbacks, duplicates removed)."""

    action: str
    url: str
    id: int
    notes: tuple[str, ...]


def find_author(client: GitHubClient, configured: str = "", fallback: str = "") -> str:
    """The login the token posts as: `configured` (the `comment-author` input) when given,
    else `GET /user`, else GraphQL's `viewer` (an installation token may read neither: 403),
    else `fallback`. "" means unknown: `upsert_comment` then learns it from the comment it
    creates (GitHub says who wrote it), never from what a comment claims."""
    if configured:
        return configured
    try:
        data = client.get("/user")
    except GitHubError as error:
        if error.status not in (401, 403):
            raise
        return _viewer(client) or fallback
    login = data.get("login") if isinstance(data, dict) else None
    return login if is_login(login) else fallback


def _viewer(client: GitHubClient) -> str:
    """GraphQL's `viewer { login }`, or "" (not offered, refused, or not a login)."""
    if not client.graphql_available:
        return ""
    try:
        data = client.post("/graphql", {"query": "query { viewer { login } }"})
    except GitHubError as error:
        if error.code == "github.unreachable" or (error.status or 0) >= 500:
            raise
        return ""
    data = data.get("data") if isinstance(data, dict) else None
    viewer = data.get("viewer") if isinstance(data, dict) else None
    login = viewer.get("login") if isinstance(viewer, dict) else None
    return login if is_login(login) else ""


def list_comments(client: GitHubClient, repository: str, number: int) -> list[Comment]:
    """Every comment on the issue or pull request, across all pages, oldest first."""
    found: list[Comment] = []
    for page in client.iter_pages(_comments_path(repository, number)):
        found += [c for c in map(_comment, page) if c is not None]
    return found


def upsert_comment(
    client: GitHubClient,
    repository: str,
    number: int,
    bodies: Sequence[str],
    marker: str,
    mode: Literal["update", "recreate"],
    author: str,
) -> CommentResult:
    """Make the PR carry exactly one comment of ours for `marker`, with the first of `bodies`
    (the renderings, longest first) that GitHub accepts. `author` "" (unknown) creates the
    comment, takes the login GitHub answers with as ours, and then settles as after a race:
    the oldest of ours keeps the body (with `recreate`, the new one stays)."""
    _comments_path(repository, number)  # validates both before anything is sent
    if not bodies:
        raise ValueError("upsert_comment needs at least one body")
    for body in bodies:
        if body.replace("\r\n", "\n").split("\n", 1)[0] != marker:
            raise ValueError("every body must start with the marker line")
    run = _Upsert(client, repository, number, tuple(bodies), marker, author, mode)
    plan = plan_comment(run.list(), marker, author, bodies[0], mode)
    for comment_id in plan.delete:
        run.delete(comment_id, "removed old comment" if mode == "recreate" else "removed duplicate")
    if plan.target is not None:
        updated = run.update(plan.target)
        if updated is not None:
            return updated
    return run.create("recreated" if plan.action == "recreate" else "created")


class _Upsert:
    """The steps of one upsert, sharing the notes they leave."""

    def __init__(
        self,
        client: GitHubClient,
        repository: str,
        number: int,
        bodies: tuple[str, ...],
        marker: str,
        author: str,
        mode: Literal["update", "recreate"] = "update",
    ) -> None:
        self.client = client
        self.mode = mode
        self.repository = repository
        self.number = number
        self.path = _comments_path(repository, number)
        self.bodies = bodies
        self.marker = marker
        self.author = author
        self.notes: list[str] = []

    def _comment_path(self, comment_id: int) -> str:
        return f"/repos/{self.repository}/issues/comments/{comment_id}"

    def delete(self, comment_id: int, why: str) -> None:
        try:
            self.client.delete(self._comment_path(comment_id))
        except GitHubError as error:
            if error.status != 404:  # already gone (a racing run removed it): fine
                raise
        self.notes.append(f"{why} {comment_id}")

    def update(self, target: Comment) -> CommentResult | None:
        """Give `target` the first body that fits; None when it vanished meanwhile."""
        for index, body in enumerate(self.bodies):
            if same_body(target.body, body):
                return self._result("unchanged", target.id, target.url, index)
            try:
                data = self.client.patch(self._comment_path(target.id), {"body": body})
            except GitHubError as error:
                if _too_long(error):
                    continue
                if error.status == 404:
                    self.notes.append(f"comment {target.id} vanished; creating a new one")
                    return None
                raise
            posted = _comment(data)
            url = posted.url if posted else target.url
            return self._result("updated", target.id, url, index)
        raise _all_too_long(len(self.bodies))

    def create(self, action: str) -> CommentResult:
        for index, body in enumerate(self.bodies):
            try:
                created = _comment(self.client.post(self.path, {"body": body}))
            except GitHubError as error:
                if _too_long(error):
                    continue
                if error.code != "github.unreachable" and (error.status or 0) < 500:
                    raise
                created = self._went_through(body)
                if created is None:
                    raise
                self.notes.append(f"the create's answer was lost; found comment {created.id}")
            if created is None:
                raise GitHubError("POST: GitHub answered the create without a comment")
            if not self.author:
                return self._learn(action, created, body, index)
            return self._settle(action, created, body, index)
        raise _all_too_long(len(self.bodies))

    def _learn(self, action: str, created: Comment, body: str, index: int) -> CommentResult:
        """The token's login was unknown: it is the login of the comment just created."""
        if not is_login(created.author):
            raise GitHubError("POST: GitHub answered the create without the comment's author")
        self.author = created.author
        self.notes.append(f"the token posts as {created.author} (learned from its comment)")
        if self.mode == "update":
            return self._settle(action, created, body, index)
        for comment in self.list():
            if is_ours(comment, self.marker, self.author) and comment.id != created.id:
                self.delete(comment.id, "removed old comment")
        return self._result(action, created.id, created.url, index)

    def _went_through(self, body: str) -> Comment | None:
        if not self.author:
            return None  # nothing tells ours from anyone else's
        listed = self.list()
        mine = [c for c in listed if is_ours(c, self.marker, self.author)]
        matching = [c for c in mine if same_body(c.body, body)]
        return max(matching, key=lambda c: (c.created_at, c.id)) if matching else None

    def list(self) -> list[Comment]:
        return list_comments(self.client, self.repository, self.number)

    def _settle(self, action: str, created: Comment, body: str, index: int) -> CommentResult:
        """Two runs may have created a comment each: keep the oldest, carrying our body."""
        winner, losers = duplicates(self.list(), self.marker, self.author)
        if winner is None:  # the list does not show ours yet: nothing to clean up
            return self._result(action, created.id, created.url, index)
        for loser in losers:
            self.delete(loser, "removed duplicate")
        if winner.id == created.id:
            return self._result(action, created.id, created.url, index)
        self.notes.append(f"a concurrent run posted comment {winner.id} first; kept it")
        if not same_body(winner.body, body):
            self.client.patch(self._comment_path(winner.id), {"body": body})
            return self._result("updated", winner.id, winner.url, index)
        return self._result("unchanged", winner.id, winner.url, index)

    def _result(self, action: str, comment_id: int, url: str, index: int) -> CommentResult:
        if index:
            verb = "the comment keeps" if action == "unchanged" else "posted"
            rendering = f"{index + 1}/{len(self.bodies)}"
            self.notes.append(f"body too long; {verb} the shorter rendering {rendering}")
        return CommentResult(action, url, comment_id, tuple(self.notes))


def _comments_path(repository: str, number: int) -> str:
    if not is_repository(repository):
        raise GitHubError(
            f"the repository {repository[:200]!r} is not `owner/name`",
            code="github.failed",
        )
    if not is_issue_number(number):
        raise GitHubError(f"the issue number {number!r} is not a positive integer")
    return f"/repos/{repository}/issues/{number}/comments"


def _comment(item: Any) -> Comment | None:
    """One listed comment, or None when the item is not shaped like one."""
    if not isinstance(item, dict):
        return None
    comment_id = item.get("id")
    if isinstance(comment_id, bool) or not isinstance(comment_id, int) or comment_id <= 0:
        return None
    user = item.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    body = item.get("body")
    created = item.get("created_at")
    url = item.get("html_url")
    return Comment(
        id=comment_id,
        author=login if isinstance(login, str) else "",
        body=body if isinstance(body, str) else "",
        created_at=created if isinstance(created, str) else "",
        url=url if isinstance(url, str) else "",
    )


def _too_long(error: GitHubError) -> bool:
    return error.status == 422 and TOO_LONG in error.github_message.lower()


def _all_too_long(count: int) -> GitHubError:
    return GitHubError(
        f"every one of the {count} renderings is too long for a GitHub comment",
        code="github.rejected",
        status=422,
    )
