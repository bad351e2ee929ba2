"""Agent mode as part of the gate: when `gate.fail_on` lists an agent check, `run --policy`,
`merge` and the action try head's receipts through the agent after the campaign, and the
agent receipts go to the verdict. Without one, the gate never runs it (nor needs `llm`, nor
imports agent mode and its HTTP client)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.policy_plan import Written
from toolfuzz_gate.core.gate.verdict import AGENT_CHECKS
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import LlmError, UsageError


@dataclass(frozen=True)
class AgentForGate:
    """What agent mode gave the gate: its receipts, or why the model could not be used
    (`unavailable`: the `llm.*` error's code and message), in which case the schema
    campaign's verdict and reports are still written and the agent checks are judged by
    `agent.unjudged` (`core.gate.verdict`)."""

    receipts: list[JSONObject] = field(default_factory=list)
    unavailable: str | None = None


def agent_for_gate(
    loaded: LoadedPolicy,
    written: Sequence[Written],
    directory: Path,
    out: TextIO,
    environ: Mapping[str, str],
) -> AgentForGate:
    """The agent receipts of head's receipts (written into `agent/` under `directory`), or
    none when `fail_on` lists no agent check. The API key, in `record` or `live` mode, is
    read from the variable `llm.api_key_env` names; `replay` reads none."""
    listed = [name for name in loaded.policy.gate.fail_on if name in AGENT_CHECKS]
    if not listed:
        return AgentForGate()
    if loaded.policy.llm is None:
        raise UsageError(
            f"fail_on lists {listed[0]}, which needs agent mode, and the policy "
            f"{loaded.file} has no llm section",
            hint="add `llm: {base_url, model, cassette}` (see docs/agent-mode.md), or drop "
            f"{listed[0]} from fail_on",
        )
    from toolfuzz_gate.app.agent import AGENT_DIRECTORY, try_receipts  # the model's client

    pairs = [(item.file, item.receipt) for item in written]
    print(f"agent mode ({', '.join(listed)} in fail_on):", file=out)
    try:
        tried = try_receipts(loaded, pairs, directory / AGENT_DIRECTORY, environ, time.sleep, out)
    except LlmError as error:
        reason = f"{error.code}: {error.message}"
        print(f"agent mode unavailable: {reason}", file=out)
        return AgentForGate(unavailable=reason)
    return AgentForGate(tried.receipts)
