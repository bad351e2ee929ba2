"""One pull request's head commit, as GitHub reports it (edge): `mode: report` checks that
the PR number it was handed belongs to the commit the gate ran on."""

from __future__ import annotations

import re
from typing import Any

from toolfuzz_gate.edges.github.client import GitHubClient
from toolfuzz_gate.errors import GitHubError

_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def pull_request_head(client: GitHubClient, repository: str, number: int) -> str | None:
    """The head sha of pull request `number` in `repository` (None if GitHub gives none)."""
    if not _REPOSITORY.match(repository) or not 0 < number < 2**31:
        raise GitHubError(f"{repository[:200]!r} #{number} does not name a pull request")
    data: Any = client.get(f"/repos/{repository}/pulls/{number}")
    head = data.get("head") if isinstance(data, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    return sha if isinstance(sha, str) and _SHA.match(sha) else None
