"""A user's value quoted back in a message, cut short (pure): the policy's and the
regression corpus's messages quote what a file held, whatever its size."""

from __future__ import annotations

from typing import Any

MAX_SHOWN = 160
"""Characters of a user's value quoted back in a message."""


def shown(value: Any) -> str:
    """`value`'s repr, cut at `MAX_SHOWN` characters."""
    return bounded(repr(value))


def bounded(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."
