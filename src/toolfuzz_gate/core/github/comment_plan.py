"""Which PR comment to create, update, leave alone or delete, given the listed comments (pure).

A comment is the gate's own when its first line is exactly the marker for this comment key and
its author is the login the gate posts as. The marker alone is never enough: anyone can paste
`<!-- toolfuzz-gate:default -->` into a comment, and the gate must not edit or delete it.
Among its own comments the oldest (by `created_at`, then `id`) is the one kept; the others are
duplicates left behind by racing runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

PlanAction = Literal["create", "update", "noop", "recreate"]


@dataclass(frozen=True)
class Comment:
    """One issue comment as the list endpoint gives it."""

    id: int
    author: str
    body: str
    created_at: str
    url: str


@dataclass(frozen=True)
class Plan:
    """What to do: `target` is the comment updated or left alone (None for a create or a
    recreate); `delete` lists the ids to delete first (the old comments of a recreate, the
    stray duplicates of an update)."""

    action: PlanAction
    target: Comment | None
    delete: tuple[int, ...]


def normalise(body: str) -> str:
    """The body as GitHub stores it: GitHub may turn CRLF into LF, so compare after that."""
    return body.replace("\r\n", "\n")


def same_body(a: str, b: str) -> bool:
    return normalise(a) == normalise(b)


def is_ours(comment: Comment, marker: str, author: str) -> bool:
    """The comment starts with exactly `marker` as its first line and `author` wrote it
    (logins compare case-insensitively, as GitHub treats them)."""
    if not marker or not author or comment.author.lower() != author.lower():
        return False
    first_line = normalise(comment.body).split("\n", 1)[0]
    return first_line == marker


def _own_oldest_first(existing: Sequence[Comment], marker: str, author: str) -> list[Comment]:
    own = [c for c in existing if is_ours(c, marker, author)]
    return sorted(own, key=lambda c: (c.created_at, c.id))


def plan_comment(
    existing: Sequence[Comment],
    marker: str,
    author: str,
    body: str,
    mode: Literal["update", "recreate"],
) -> Plan:
    """The step to take before posting `body`.

    update: the oldest own comment is the target (noop when its body already equals `body`,
    else update), the other own comments are deleted as duplicates; with none, create.
    recreate: every own comment is deleted and a new one created (`recreate` when there was
    something to delete, else a plain `create`).
    """
    own = _own_oldest_first(existing, marker, author)
    if mode == "recreate":
        ids = tuple(c.id for c in own)
        return Plan("recreate" if ids else "create", None, ids)
    if not own:
        return Plan("create", None, ())
    target, rest = own[0], own[1:]
    action: PlanAction = "noop" if same_body(target.body, body) else "update"
    return Plan(action, target, tuple(c.id for c in rest))


def duplicates(
    existing: Sequence[Comment], marker: str, author: str
) -> tuple[Comment | None, tuple[int, ...]]:
    """After a create: the own comment that wins (the oldest) and the ids of the rest."""
    own = _own_oldest_first(existing, marker, author)
    if not own:
        return None, ()
    return own[0], tuple(c.id for c in own[1:])
