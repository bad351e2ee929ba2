"""One pull request's head commit, as GitHub reports it (edge): `mode: report` checks that
the PR number it was handed belongs to the commit the gate ran on."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.github.names import is_commit_sha, is_issue_number, is_repository
from toolfuzz_gate.edges.github.client import GitHubClient
from toolfuzz_gate.errors import GitHubError


def pull_request_head(client: GitHubClient, repository: str, number: int) -> str | None:
    """The head sha of pull request `number` in `repository` (None if GitHub gives none)."""
    if not is_repository(repository) or not is_issue_number(number):
        raise GitHubError(f"{repository[:200]!r} #{number} does not name a pull request")
    data: Any = client.get(f"/repos/{repository}/pulls/{number}")
    head = data.get("head") if isinstance(data, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    return sha if is_commit_sha(sha) else None
