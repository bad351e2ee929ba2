"""Agent mode as part of the gate: when `gate.fail_on` lists an agent check, `run --policy`,
`merge` and the action try head's receipts through the agent after the campaign, and the
agent receipts go to the verdict. Without one, the gate never runs it (nor needs `llm`, nor
imports agent mode and its HTTP client)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.gate.verdict import AGENT_CHECKS
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.agent_receipts import AGENT_DIRECTORY, load_agent_receipts
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
    base: list[JSONObject] | None = None
    """The base's agent receipts, when stored ones were at hand (a stored baseline's
    `agent/`): head's agent findings are then diffed against them (`core.gate.agent_diff`)."""


def agent_for_gate(
    loaded: LoadedPolicy,
    written: Sequence[Written],
    directory: Path,
    out: TextIO,
    environ: Mapping[str, str],
    base_directory: Path | None = None,
) -> AgentForGate:
    """The agent receipts of head's receipts (written into `agent/` under `directory`), or
    none when `fail_on` lists no agent check; with them the base's, from `agent/` under
    `base_directory` (a stored baseline) when it has one. The API key, in `record` or
    `live` mode, is read from the variable `llm.api_key_env` names; `replay` reads none."""
    listed = [name for name in loaded.policy.gate.fail_on if name in AGENT_CHECKS]
    if not listed:
        return AgentForGate()
    base = None
    if base_directory is not None:
        base = load_agent_receipts(base_directory / AGENT_DIRECTORY)
    if loaded.policy.llm is None:
        raise UsageError(
            f"fail_on lists {listed[0]}, which needs agent mode, and the policy "
            f"{loaded.file} has no llm section",
            hint="add `llm: {base_url, model, cassette}` (see docs/agent-mode.md), or drop "
            f"{listed[0]} from fail_on",
        )
    from toolfuzz_gate.app.agent import try_receipts  # the model's client

    pairs = [(item.file, item.receipt) for item in written]
    print(f"agent mode ({', '.join(listed)} in fail_on):", file=out)
    try:
        tried = try_receipts(loaded, pairs, directory / AGENT_DIRECTORY, environ, time.sleep, out)
    except LlmError as error:
        reason = f"{error.code}: {error.message}"
        print(f"agent mode unavailable: {reason}", file=out)
        return AgentForGate(unavailable=reason, base=base)
    return AgentForGate(tried.receipts, base=base)


def stored_base_agent(
    loaded: LoadedPolicy,
    written: Sequence[Written],
    directory: Path,
    out: TextIO,
    stored: Path | None,
    environ: Mapping[str, str],
) -> AgentForGate | None:
    """Agent mode for a gate against a stored baseline (`--baseline-dir DIR`): head's agent
    receipts diffed against `DIR/agent/`; None (the gate runs agent mode itself, with no
    base agent receipts) without a stored baseline."""
    if stored is None:
        return None
    return agent_for_gate(loaded, written, directory, out, environ, base_directory=stored)


def with_stored_base(tried: AgentForGate, stored: Path | None) -> AgentForGate:
    """`tried` with the base's agent receipts from `agent/` under a stored baseline (the
    action's `baseline: dir:PATH`), when agent mode ran and there is one."""
    if stored is None or (not tried.receipts and tried.unavailable is None):
        return tried
    return replace(tried, base=load_agent_receipts(stored / AGENT_DIRECTORY))
