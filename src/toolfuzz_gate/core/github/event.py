"""What the gate needs from a GitHub Actions event payload (pure: the caller reads the file).

Supported: `pull_request` (comment on the PR; a PR from a fork gets no comment attempt, its
token cannot write), `push` (the base is the `before` commit), `workflow_dispatch` (no base,
no comment) and, for `mode: report`, `workflow_run`. `pull_request_target` is refused: it
runs with a write token and the base repository's secrets, and the gate executes the pull
request's own handlers, which is exactly the code that event must never run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.github.names import is_commit_sha, is_issue_number, is_repository
from toolfuzz_gate.errors import UsageError

SUPPORTED_EVENTS = ("pull_request", "push", "workflow_dispatch", "workflow_run")


@dataclass(frozen=True)
class PullRequest:
    number: int
    head_sha: str | None
    base_sha: str | None
    base_ref: str | None
    head_repository: str | None
    """`owner/name` the head branch lives in (None: the fork was deleted)."""
    from_fork: bool


@dataclass(frozen=True)
class Event:
    name: str
    pull_request: PullRequest | None = None
    before: str | None = None
    """push: the commit the branch pointed at before (None for a new branch)."""
    run_head_sha: str | None = None
    """workflow_run: the head sha the first workflow ran on."""
    run_conclusion: str | None = None
    """workflow_run: the first workflow's conclusion (`success`, `failure`, ...)."""
    run_pull_requests: tuple[int, ...] = ()
    """workflow_run: the PR numbers GitHub lists (empty for a PR from a fork)."""


def parse_event(name: str, payload: Any, repository: str) -> Event:
    """The parts of `payload` the gate uses, for the event called `name` in `repository`
    (`GITHUB_REPOSITORY`); raises `UsageError` for an event the gate does not support."""
    if name == "pull_request_target":
        raise UsageError(
            "the pull_request_target event is not supported: it runs with a write token and "
            "secrets, and the gate would execute the pull request's handlers under them",
            hint="run the gate on pull_request; for comments on PRs from forks, add the "
            "workflow_run report workflow (see the README)",
        )
    if name not in SUPPORTED_EVENTS:
        raise UsageError(
            f"the {name[:60]!r} event is not supported; use one of {', '.join(SUPPORTED_EVENTS)}"
        )
    data = payload if isinstance(payload, Mapping) else {}
    if name == "pull_request":
        return Event(name, pull_request=_pull_request(data.get("pull_request"), repository))
    if name == "push":
        before = _sha(data.get("before"))
        return Event(name, before=None if before is None or set(before) == {"0"} else before)
    if name == "workflow_run":
        run = _mapping(data.get("workflow_run"))
        numbers = tuple(
            number
            for item in _list(run.get("pull_requests"))[:100]
            if (number := _number(_mapping(item).get("number"))) is not None
        )
        conclusion = run.get("conclusion")
        return Event(
            name,
            run_head_sha=_sha(run.get("head_sha")),
            run_conclusion=conclusion[:40] if isinstance(conclusion, str) else None,
            run_pull_requests=numbers,
        )
    return Event(name)


def _pull_request(value: Any, repository: str) -> PullRequest:
    data = _mapping(value)
    number = _number(data.get("number"))
    if number is None:
        raise UsageError("the pull_request event payload has no pull request number")
    head, base = _mapping(data.get("head")), _mapping(data.get("base"))
    head_repository = _repository(_mapping(head.get("repo")).get("full_name"))
    base_repository = _repository(_mapping(base.get("repo")).get("full_name")) or repository
    ref = base.get("ref")
    return PullRequest(
        number=number,
        head_sha=_sha(head.get("sha")),
        base_sha=_sha(base.get("sha")),
        base_ref=ref[:255] if isinstance(ref, str) else None,
        head_repository=head_repository,
        from_fork=head_repository is None or head_repository.lower() != base_repository.lower(),
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> int | None:
    return value if is_issue_number(value) else None


def _sha(value: Any) -> str | None:
    return value if is_commit_sha(value) else None


def _repository(value: Any) -> str | None:
    return value if is_repository(value) else None
