"""Runtime failures made agent-reachable: would a real agent make the breaking call? (pure)

For a counterexample or under-specification note of the schema campaign, the model is
asked for a natural user request that would lead an agent to that call; the agent
(`core.agent.loop`) runs on the request, and each call it makes is judged as a regression
case is (`core.gate.regression`) with the agent's arguments in place of the finding's. A
counterexample is agent-reachable when one of the agent's calls fails with the same failure
class; a note (a clean rejection of a schema-valid call) when one of its schema-valid calls
is rejected: the agent, reading the documentation, made a call the tool turns down.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.loop import AgentRun, FunctionTool
from toolfuzz_gate.core.campaign.findings import Failure, Finding, InputKind
from toolfuzz_gate.core.gate.regression import RegressionCase, build_case, parse_case
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact
from toolfuzz_gate.errors import ReceiptError

MAX_PROMPT = 1_000
"""Characters kept of a generated user request."""
REACHABLE = "reachable"
NOT_REACHED = "not-reached"
NO_PROMPT = "no-prompt"
WRITER_SYSTEM = (
    "You write realistic requests that users type to an AI assistant. "
    "Reply with the requests only: no quotes, no explanation."
)
"""The system message of every request asking the model to write user requests."""
AGENT_MUTATION = "agent"
"""The mutation family of an agent's schema-invalid call: it was no mutation of ours."""


def prompt_messages(tool: FunctionTool, arguments: JSONObject) -> list[JSONObject]:
    """The conversation asking the model for a user request that leads to `arguments`."""
    return [
        {"role": "system", "content": WRITER_SYSTEM},
        {
            "role": "user",
            "content": (
                "Write one natural request a user might send to an assistant that has the "
                f"tool {tool.name!r} (description: {tool.description or 'none'}), such that "
                "the assistant would call the tool with exactly these arguments: "
                f"{canonical_compact(arguments)}"
            ),
        },
    ]


def read_prompt(reply: Reply) -> str:
    """The user request in the model's reply: its first paragraph, bounded ("" for none)."""
    paragraphs = [p.strip() for p in reply.content.strip().split("\n\n") if p.strip()]
    return paragraphs[0][:MAX_PROMPT] if paragraphs else ""


def agent_case(case: RegressionCase, arguments: JSONObject, valid: bool) -> RegressionCase:
    """The counterexample's case with the agent's `arguments`: judged as valid input when
    they are schema-valid, else as the hostile input it was (or an agent-made one)."""
    if valid:
        return replace(
            case, input=arguments, valid=True, input_kind=InputKind.VALID, mutation="valid"
        )
    if case.valid:
        return replace(
            case,
            input=arguments,
            valid=False,
            input_kind=InputKind.HOSTILE,
            mutation=AGENT_MUTATION,
            path="",
        )
    return replace(case, input=arguments)


def failure_record(findings: Iterable[Finding]) -> list[str]:
    """The failure classes of a call's findings, as a step's record keeps them."""
    return sorted({found.failure.value for found in findings})


def verdict(case: RegressionCase, prompt: str, run: AgentRun | None) -> str:
    """`reachable` (one of the agent's calls failed as the finding did), `not-reached`, or
    `no-prompt` (the model wrote no request)."""
    if not prompt or run is None:
        return NO_PROMPT
    reached = any(_reaches(case, step.record) for step in run.steps if step.kind == "call")
    return REACHABLE if reached else NOT_REACHED


def kind_of(case: RegressionCase) -> str:
    """`note` for an under-specification note, else `counterexample`."""
    return "note" if case.failure is Failure.UNDER_SPECIFIED else "counterexample"


def _reaches(case: RegressionCase, record: JSONObject) -> bool:
    if case.failure is Failure.UNDER_SPECIFIED:
        return record.get("valid") is True and record.get("outcome") == "rejected"
    return case.failure.value in _failures(record)


def _failures(record: JSONObject) -> list[str]:
    failures = record.get("failures")
    return [str(item) for item in failures] if isinstance(failures, list) else []


def receipt_cases(receipt: JSONObject) -> tuple[list[RegressionCase], list[JSONObject]]:
    """The receipt's counterexamples and under-specification notes as cases (in that
    order), and those that cannot be replayed, why."""
    cases: list[RegressionCase] = []
    skipped: list[JSONObject] = []
    examples: list[JSON] = []
    for member in ("counterexamples", "underSpecified"):
        listed = receipt.get(member)
        examples += listed if isinstance(listed, list) else []
    for example in examples:
        if not isinstance(example, dict):
            continue
        try:
            cases.append(parse_case(build_case(receipt, example)))
        except (ReceiptError, ValueError) as error:
            reason = error.message if isinstance(error, ReceiptError) else str(error)
            skipped.append({"fingerprint": example.get("fingerprint"), "reason": reason})
    return cases, skipped
