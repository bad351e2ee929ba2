"""What GitHub's identifiers look like, checked before any of them is used in a path, a
git argument or a comparison (pure): commit shas, `owner/name` repositories, PR numbers."""

from __future__ import annotations

import re
from typing import TypeGuard

_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_NAME = r"[A-Za-z0-9_.-]{1,100}"
_LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}(?:\[bot\])?$")
_REPOSITORY = re.compile(rf"^(?!\.)({_NAME})/(?!\.\.?$)({_NAME})$")


def is_commit_sha(value: object) -> TypeGuard[str]:
    """A full SHA-1 or SHA-256 object name, lower-case hex."""
    return isinstance(value, str) and _SHA.match(value) is not None


def is_repository(value: object) -> TypeGuard[str]:
    """`owner/name` of safe characters, neither part `.` or `..` (a path segment)."""
    return isinstance(value, str) and _REPOSITORY.match(value) is not None


def is_issue_number(value: object) -> TypeGuard[int]:
    """A pull request or issue number: a positive int (not a bool) below 2**31."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**31


def is_login(value: object) -> TypeGuard[str]:
    """A GitHub login: a user's, or an app's bot (`name[bot]`)."""
    return isinstance(value, str) and _LOGIN.match(value) is not None
