"""The model's API key never reaches a handler (application).

Checked by value, for every tool, before the first handler starts: no variable a handler
receives (its `env` names, its HTTP `headers`), no argument of its command line and no
fixed argument holds the key, whatever the variable's name: a policy that leaves out
`llm.api_key_env`, or names the key's variable under a tool's `env`, is refused alike.
The key is the value of the variable the policy's `llm.api_key_env` names (the base's
and the head's, when both name one: `core.gate.policy_trust`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.edges.policy_file import LoadedPolicy

MIN_KEY_CHARS = 8
"""Shorter values are not looked for (a key that short would match by accident)."""


def keep_key_from_handlers(
    loaded: LoadedPolicy, environ: Mapping[str, str], names: Iterable[str | None] = ()
) -> None:
    """Refuse the policy when a handler would receive the key's value (`names`: more
    variables holding a key, besides the policy's `llm.api_key_env`)."""
    llm = loaded.policy.llm
    variables = {name for name in (*names, llm.api_key_env if llm else None) if name}
    keys = [
        environ[name] for name in sorted(variables) if len(environ.get(name, "")) >= MIN_KEY_CHARS
    ]
    if not keys:
        return
    for tool in loaded.policy.tools:
        where = _holder(tool, environ, keys)
        if where is not None:
            raise loaded.error_at(
                f"{tool.pointer}/handler",
                f"tool {tool.name!r} would give its handler the model's API key "
                f"({', '.join(sorted(variables))}) through {where}",
                near=tool.pointer,
                hint="handlers never get the model's key, under any name; remove it from the "
                "handler's env, headers, command line and fixed arguments",
            )


def _holder(tool: ToolPolicy, environ: Mapping[str, str], keys: list[str]) -> str | None:
    """Where the tool's handler would find a key, in words (None: nowhere)."""
    handler = tool.handler
    places = [
        *((f"env {name}", environ.get(name, "")) for name in handler.env),
        *((f"header {header}", environ.get(name, "")) for header, name in handler.headers),
        *((f"command-line argument {i}", arg) for i, arg in enumerate(handler.argv)),
        ("fixed_arguments", json.dumps([value for _, value in tool.fixed])),
        ("the handler's target", handler.target),
    ]
    for where, value in places:
        if any(key in value for key in keys):
            return where
    return None
