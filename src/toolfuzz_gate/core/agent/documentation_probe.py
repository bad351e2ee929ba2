"""The reverse direction: requests written from the documentation alone (pure).

Besides steering the agent to known counterexamples, the model is asked for a few
ordinary requests a user of the tool might send, knowing only its name and description.
Each runs through the agent, and every call the agent makes is judged by the campaign's
invariants on its own (valid or not under the schema, no counterexample to match): a
failing call is a runtime failure an agent produced unprompted.
"""

from __future__ import annotations

import re

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.correctness_oracle import context_line
from toolfuzz_gate.core.agent.loop import AgentRun, FunctionTool
from toolfuzz_gate.core.agent.reachability import AGENT_MUTATION, MAX_PROMPT, WRITER_SYSTEM
from toolfuzz_gate.core.campaign.findings import Failure, InputKind
from toolfuzz_gate.core.gate.agent_settings import AgentSettings
from toolfuzz_gate.core.gate.regression import RegressionCase
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

PROBES = AgentSettings.probes
"""Requests asked for per tool (the policy's `agent.probes`)."""
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_NO_FINGERPRINT = "0" * 24


def probe_messages(tool: FunctionTool, count: int = PROBES, context: str = "") -> list[JSONObject]:
    """The conversation asking for `count` requests from the documentation alone (and the
    user context the policy gives the tool)."""
    return [
        {"role": "system", "content": WRITER_SYSTEM},
        {
            "role": "user",
            "content": (
                f"Write {count} different natural requests users might send to an assistant "
                f"that has the tool {tool.name!r} (description: {tool.description or 'none'}), "
                f"each needing the tool.{context_line(context)} One request per line."
            ),
        },
    ]


def read_prompts(reply: Reply, count: int = PROBES) -> list[str]:
    """Up to `count` distinct requests, one per line, list marks and quotes removed."""
    found: list[str] = []
    for line in reply.content.splitlines():
        text = _LIST_MARK.sub("", line).strip().strip("\"'").strip()[:MAX_PROMPT]
        if text and text not in found:
            found.append(text)
    return found[:count]


def probe_case(tool: str, arguments: JSONObject, valid: bool) -> RegressionCase:
    """A call of the agent's judged on its own: as a valid case when the arguments are
    schema-valid, else as a hostile one (a correct handler rejects it)."""
    return RegressionCase(
        tool=tool,
        fingerprint=_NO_FINGERPRINT,
        failure=Failure.CRASH,  # never matched: only the call's own findings are read
        input_kind=InputKind.VALID if valid else InputKind.HOSTILE,
        path="",
        keyword="",
        mutation="valid" if valid else AGENT_MUTATION,
        operator="",
        input=arguments,
        valid=valid,
        stream="agent",
        index=0,
    )


def probe_entry(prompt: str, run: AgentRun) -> JSONObject:
    """One request's entry in the receipt: the agent's run and the failures it produced."""
    failures: set[str] = set()
    for step in run.steps:
        listed = step.record.get("failures")
        if isinstance(listed, list):
            failures.update(str(item) for item in listed)
    found: list[JSON] = list(sorted(failures))
    return {"prompt": prompt, "agent": run.to_json(), "failures": found, "failing": bool(found)}
