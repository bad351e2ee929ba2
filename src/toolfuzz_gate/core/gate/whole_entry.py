"""Whole policy entries: an entry that takes every tool of its source (pure).

A tools file without `tool` takes every tool it declares, an MCP server entry without
`name` (and without the handler's `tool`) every tool the server lists; each such tool gets
its own name and receipt (`app.whole_entries` expands them). Only a whole entry may go
without `name`, and only a whole entry may leave tools out with `exclude_tools`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolfuzz_gate.core.gate.handler_kinds import BY_NAME
from toolfuzz_gate.errors import PolicyError

ErrorAt = Callable[[str, str, str], PolicyError]
"""(JSON Pointer, message, hint) -> the error naming the policy's file and line."""


def check_whole_entry(
    entry: Mapping[str, Any], kind: str, target: str, where: str, error: ErrorAt
) -> None:
    """`PolicyError` for an entry without `name` that is not whole, or with
    `exclude_tools` that is not whole."""
    whole_file = "tools" in entry and "tool" not in entry
    whole_server = BY_NAME[kind].lists_its_tools and "name" not in entry and not target
    if "name" not in entry and not (whole_file or whole_server):
        raise error(
            f"{where}/name",
            "missing key 'name'",
            "only a whole entry may omit it: a tools file without `tool`, "
            "or an mcp server without the handler's `tool` (every tool it lists)",
        )
    if "exclude_tools" in entry and not (whole_file or whole_server):
        raise error(
            f"{where}/exclude_tools",
            "`exclude_tools` goes with an entry that takes every tool: a `tools` file "
            "without `tool`, or an mcp server entry without `name`",
            "or use --exclude-tool",
        )
