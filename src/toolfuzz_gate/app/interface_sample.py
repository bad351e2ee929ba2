"""Breaking interface changes tried on head's handler: for a sample of them, the example
call base's schema accepts and head's refuses is sent to head's own handler, and what it
did (accepted, rejected with a code, crashed, timed out) goes into the entry's evidence as
`onHead`. The schema says a call breaks; the handler shows whether it really does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.tool_setup import Listings, replay_setup
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.edges.handlers.registry import build_handler
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import ToolfuzzError

SAMPLE = 5
"""Breaking entries whose example call is sent to head's handler, per run."""


def with_head_sample(
    document: JSONObject, loaded: LoadedPolicy, overrides: Mapping[str, Any]
) -> JSONObject:
    """`document` with `evidence.onHead` on the first `SAMPLE` breaking input changes that
    carry an example call (a tool head's policy has and its handler starts)."""
    entries = document.get("interface")
    if not isinstance(entries, list):
        return document
    picked = [
        index
        for index, entry in enumerate(entries)
        if isinstance(entry, dict)
        and entry.get("breaking") is True
        and isinstance(entry.get("evidence"), dict)
        and cast(dict[str, Any], entry["evidence"]).get("call") is not None
        and entry.get("change") != "tool-removed"
    ][:SAMPLE]
    if not picked:
        return document
    tools = {tool.name: tool for tool in policy_tools(loaded)}
    listings: Listings = {}
    shown = list(entries)
    for index in picked:
        entry = cast(dict[str, Any], entries[index])
        tool = tools.get(str(entry["tool"]))
        if tool is None:
            continue
        call = entry["evidence"]["call"]
        try:
            setup = replay_setup(tool, replace(tool.options, **overrides), loaded, listings)
            with build_handler(setup.handler) as running:
                outcome = running.call(cast(JSONObject, setup.spec.with_fixed(call)))
        except ToolfuzzError:
            continue  # the handler does not start here: the schema's word stands
        on_head: JSON = {"outcome": outcome.kind.value, "code": outcome.error_code}
        shown[index] = {**entry, "evidence": {**entry["evidence"], "onHead": on_head}}
    return {**document, "interface": shown}
