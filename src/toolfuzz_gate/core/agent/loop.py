"""A minimal ReAct-style agent: the model, one tool, a prompt, a bounded loop (pure).

As in the ToolFuzz paper's agents, the model is offered the tool (name, description,
JSON Schema) as a function and given the user's request; each tool call it makes is run
and its result shown to it, until it answers in words. `chat` and `call_tool` are
injected, so the loop does no I/O: the edges make the requests and run the handler.
A model that never stops calling tools ends after `max_steps` replies with the outcome
`step-limit`; a call naming another tool, or whose arguments are not a JSON object, is
recorded as such and answered with an error, as a real agent framework would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.agent.chat import Reply, ToolCall, function_tool
from toolfuzz_gate.core.gate.agent_settings import AgentSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

DEFAULT_MAX_STEPS = AgentSettings.steps
"""Model replies one agent run may take: enough to call, see an error, call again, answer
(the policy's `agent.steps`)."""
SYSTEM_PROMPT = (
    "You are a helpful assistant with access to tools. When the user's request needs a "
    "tool, call it with arguments that follow its schema; then answer the user briefly."
)
ANSWERED = "answered"
STEP_LIMIT = "step-limit"

Chat = Callable[[Sequence[JSONObject], Sequence[JSONObject]], Reply]
"""(messages, tools) -> the model's reply."""


@dataclass(frozen=True)
class FunctionTool:
    """The tool as the model sees it."""

    name: str
    description: str
    parameters: JSON


@dataclass(frozen=True)
class ToolResult:
    """What running one call gave: the text the model sees and what the receipt keeps."""

    text: str
    record: JSONObject


CallTool = Callable[[JSONObject], ToolResult]
"""Arguments -> the result of running the tool with them."""
FreshState = Callable[[], None]
"""Restores the state the tool's calls share, before an agent run calls it."""


@dataclass(frozen=True)
class Step:
    """One tool call the model made. `kind`: `call` (run), `bad-arguments` (not a JSON
    object: not run), `unknown-tool` (not the tool offered: not run)."""

    kind: str
    name: str
    arguments: str
    """As the model wrote them."""
    parsed: JSONObject | None
    record: JSONObject

    def to_json(self) -> JSONObject:
        data: JSONObject = {"kind": self.kind, "name": self.name}
        data["arguments"] = self.parsed if self.parsed is not None else self.arguments
        if self.record:
            data["result"] = self.record
        return data


@dataclass(frozen=True)
class AgentRun:
    prompt: str
    steps: tuple[Step, ...]
    answer: str
    outcome: str
    """`answered` (the model answered in words) or `step-limit` (it never stopped)."""
    replies: int

    def to_json(self) -> JSONObject:
        return {
            "prompt": self.prompt,
            "outcome": self.outcome,
            "replies": self.replies,
            "steps": [step.to_json() for step in self.steps],
            "answer": self.answer,
        }


def run_agent(
    prompt: str,
    tool: FunctionTool,
    chat: Chat,
    call_tool: CallTool,
    max_steps: int = DEFAULT_MAX_STEPS,
    fresh_state: FreshState | None = None,
) -> AgentRun:
    """The agent's run on `prompt`: every call it made, and its answer. `fresh_state`, when
    given, restores the tool's state before the run's first call (the policy's reset), so
    one run's calls never meet what an earlier run left behind."""
    offered = [function_tool(tool.name, tool.description, tool.parameters)]
    messages: list[JSONObject] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": prompt},
    ]
    steps: list[Step] = []
    for replies in range(1, max_steps + 1):
        reply = chat(messages, offered)
        if not reply.tool_calls:
            return AgentRun(prompt, tuple(steps), reply.content, ANSWERED, replies)
        messages.append(reply.message())
        if fresh_state is not None and not steps:
            fresh_state()
        for call in reply.tool_calls:
            step, text = _step(call, tool.name, call_tool)
            steps.append(step)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    return AgentRun(prompt, tuple(steps), "", STEP_LIMIT, max_steps)


def _step(call: ToolCall, offered: str, call_tool: CallTool) -> tuple[Step, str]:
    if call.name != offered:
        text = f"error: there is no tool named {call.name!r}; the only tool is {offered!r}"
        return Step("unknown-tool", call.name, call.arguments, None, {}), text
    arguments = parse_arguments(call.arguments)
    if arguments is None:
        text = "error: the arguments are not a JSON object; call the tool again with one"
        return Step("bad-arguments", call.name, call.arguments, None, {}), text
    result = call_tool(arguments)
    return Step("call", call.name, call.arguments, arguments, result.record), result.text


def parse_arguments(text: str) -> JSONObject | None:
    """The arguments as a JSON object, or None when the text is not one (NaN and
    Infinity, which are not JSON, included)."""

    def refuse(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text or "{}", parse_constant=refuse)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
