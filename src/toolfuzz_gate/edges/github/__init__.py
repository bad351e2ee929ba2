"""GitHub REST: the client (retries, rate limits, pagination) and the upserted PR comment (edge)."""

from __future__ import annotations

from toolfuzz_gate.edges.github.answers import Reply
from toolfuzz_gate.edges.github.client import GitHubClient, RetryPolicy
from toolfuzz_gate.edges.github.comments import (
    CommentResult,
    find_author,
    list_comments,
    upsert_comment,
)

__all__ = [
    "CommentResult",
    "GitHubClient",
    "Reply",
    "RetryPolicy",
    "find_author",
    "list_comments",
    "upsert_comment",
]
