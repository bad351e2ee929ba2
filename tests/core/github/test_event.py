"""Reading event payloads: pull requests (forks included), pushes, dispatch, workflow_run."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.github.event import parse_event
from toolfuzz_gate.errors import UsageError

HEAD = "a" * 40
BASE = "b" * 40


def _pull(head_repo: Any = "octo/tools") -> dict[str, Any]:
    head: dict[str, Any] = {"sha": HEAD, "ref": "topic"}
    head["repo"] = None if head_repo is None else {"full_name": head_repo}
    return {
        "number": 12,
        "head": head,
        "base": {"sha": BASE, "ref": "main", "repo": {"full_name": "octo/tools"}},
    }


def test_a_pull_request_from_the_same_repository() -> None:
    event = parse_event("pull_request", {"pull_request": _pull()}, "octo/tools")
    pull = event.pull_request
    assert pull is not None
    assert (pull.number, pull.head_sha, pull.base_sha, pull.base_ref) == (12, HEAD, BASE, "main")
    assert not pull.from_fork


@pytest.mark.parametrize("head_repo", ["someone/tools", None])
def test_a_fork_or_a_deleted_fork_is_from_a_fork(head_repo: Any) -> None:
    event = parse_event("pull_request", {"pull_request": _pull(head_repo)}, "octo/tools")
    assert event.pull_request is not None and event.pull_request.from_fork


def test_repository_names_compare_without_case() -> None:
    event = parse_event("pull_request", {"pull_request": _pull("Octo/Tools")}, "octo/tools")
    assert event.pull_request is not None and not event.pull_request.from_fork


def test_hostile_fields_are_dropped_not_trusted() -> None:
    pull = _pull()
    pull["head"]["sha"] = "; rm -rf /"
    pull["base"]["sha"] = 42
    event = parse_event("pull_request", {"pull_request": pull}, "octo/tools")
    assert event.pull_request is not None
    assert event.pull_request.head_sha is None and event.pull_request.base_sha is None


@pytest.mark.parametrize("payload", [{}, {"pull_request": {"number": True}}, [], None])
def test_a_pull_request_event_needs_a_number(payload: Any) -> None:
    with pytest.raises(UsageError, match="no pull request number"):
        parse_event("pull_request", payload, "octo/tools")


def test_push_before_and_a_new_branch() -> None:
    assert parse_event("push", {"before": BASE}, "o/r").before == BASE
    assert parse_event("push", {"before": "0" * 40}, "o/r").before is None


def test_workflow_dispatch_has_no_base_and_no_pull_request() -> None:
    event = parse_event("workflow_dispatch", {"inputs": {}}, "o/r")
    assert event.pull_request is None and event.before is None


def test_workflow_run() -> None:
    run = {"head_sha": HEAD, "conclusion": "failure", "pull_requests": [{"number": 3}, {}]}
    event = parse_event("workflow_run", {"workflow_run": run}, "o/r")
    assert (event.run_head_sha, event.run_conclusion, event.run_pull_requests) == (
        HEAD,
        "failure",
        (3,),
    )


def test_pull_request_target_is_refused_with_the_reason() -> None:
    with pytest.raises(UsageError) as raised:
        parse_event("pull_request_target", {}, "o/r")
    assert "not supported" in raised.value.message and "secrets" in raised.value.message
    assert "workflow_run" in raised.value.hint


def test_other_events_are_refused() -> None:
    with pytest.raises(UsageError, match="'issue_comment' event is not supported"):
        parse_event("issue_comment", {}, "o/r")
