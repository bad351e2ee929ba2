"""Runtime failures made agent-reachable: would a real agent make the breaking call? (pure)

For a counterexample or under-specification note of the schema campaign, the finding's
own call is first run verbatim: a finding that does not reproduce on its own is not tried
(`not-reproduced`, no model request spent). Then, up to `attempts` times, the model is
asked for a natural user request that would lead an agent to that call (each attempt
told the requests already tried, so it words a new one); the agent (`core.agent.loop`)
runs on the request, and each call it makes is judged as a regression case is
(`core.gate.regression`) with the agent's arguments in place of the finding's. The first
attempt that reaches the finding ends the trying.

A counterexample is *reachable* when one of the agent's calls reproduces its fingerprint:
the same failure class at the same path with the same cause (`replay_case`'s
`still-failing`); *related* when a call fails with the same class elsewhere or otherwise
(a different defect, or the same one by another road: reported, not counted as reached).
A note (a clean rejection of a schema-valid call) is reachable when one of the agent's
schema-valid calls is rejected: the agent, reading the documentation, made a call the tool
turns down.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.correctness_oracle import context_line
from toolfuzz_gate.core.agent.loop import (
    DEFAULT_MAX_STEPS,
    AgentRun,
    CallTool,
    Chat,
    FreshState,
    FunctionTool,
    ToolResult,
    run_agent,
)
from toolfuzz_gate.core.campaign.findings import Failure, Finding, InputKind
from toolfuzz_gate.core.campaign.outcome import Handler
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.regression import (
    STILL_FAILING,
    RegressionCase,
    build_case,
    parse_case,
    replay_case,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.errors import ReceiptError

MAX_PROMPT = 1_000
"""Characters kept of a generated user request."""
REACHABLE = "reachable"
RELATED = "related"
NOT_REACHED = "not-reached"
NO_PROMPT = "no-prompt"
NOT_REPRODUCED = "not-reproduced"
DEFAULT_ATTEMPTS = 3
"""User requests asked for per finding, at most (the trying stops once one reaches it)."""
WRITER_SYSTEM = (
    "You write realistic requests that users type to an AI assistant. "
    "Reply with the requests only: no quotes, no explanation."
)
"""The system message of every request asking the model to write user requests."""
AGENT_MUTATION = "agent"
"""The mutation family of an agent's schema-invalid call: it was no mutation of ours."""


def prompt_messages(
    tool: FunctionTool, arguments: JSONObject, tried: Sequence[str] = (), context: str = ""
) -> list[JSONObject]:
    """The conversation asking the model for a user request that leads to `arguments`;
    `tried`: requests already tried that did not lead there (the new one must differ)."""
    before = ""
    if tried:
        listed = "; ".join(json.dumps(prompt) for prompt in tried)
        before = f" These requests did not lead there, so word it differently: {listed}."
    return [
        {"role": "system", "content": WRITER_SYSTEM},
        {
            "role": "user",
            "content": (
                "Write one natural request a user might send to an assistant that has the "
                f"tool {tool.name!r} (description: {tool.description or 'none'}), such that "
                "the assistant would call the tool with exactly these arguments: "
                f"{canonical_compact(arguments)}{before}{context_line(context)}"
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


@dataclass(frozen=True)
class JudgedCalls:
    """The tool as agent mode calls it: each call run on the handler in use (`handler()`:
    a tool with a reset gets a fresh one for each agent run) and judged as `replay` judges
    a case, under the tool's contract `spec` and its schema's `judge` (None: the engine
    refused the schema)."""

    handler: Callable[[], Handler]
    spec: ToolSpec
    judge: Callable[[JSON], bool] | None

    def caller(
        self,
        make_case: Callable[[JSONObject, bool], RegressionCase],
        unjudged: bool,
        fingerprinted: bool = False,
    ) -> CallTool:
        """Runs one agent call on the handler and judges it as `make_case` (arguments,
        validity) says; `unjudged` is the validity assumed when the engine refused the
        schema. `fingerprinted`: the case is a finding's, and the record says whether the
        call reproduced it (`reproduces`: its failure class, path and cause)."""

        def call(arguments: JSONObject) -> ToolResult:
            bound = self.spec.with_fixed(arguments)  # `fixed_arguments`: every call has them
            if isinstance(bound, dict):
                arguments = bound
            valid = self.judge(arguments) if self.judge is not None else unjudged
            return self._judged(make_case(arguments, valid), valid, fingerprinted)

        return call

    def verbatim(self, case: RegressionCase) -> ToolResult:
        """The finding's own call, run as is: does it still reproduce on its own?"""
        return self._judged(case, case.valid, True)

    def _judged(self, case: RegressionCase, valid: bool, fingerprinted: bool) -> ToolResult:
        replayed = replay_case(case, self.handler(), self.spec)
        said = bounded_message(" ".join(replayed.said.split()), 200)
        failures: list[JSON] = list(failure_record(replayed.findings))
        record: JSONObject = {"outcome": replayed.observed, "valid": valid, "failures": failures}
        if fingerprinted and case.failure is not Failure.UNDER_SPECIFIED:  # a note: rejected
            record["reproduces"] = replayed.outcome == STILL_FAILING
        if said:
            record["said"] = said
        if replayed.output_text is not None:
            record["output"] = replayed.output_text
        shown = replayed.output_text if replayed.output_text is not None else said
        return ToolResult(replayed.observed + (f": {shown}" if shown else ""), record)


def failure_record(findings: Iterable[Finding]) -> list[str]:
    """The failure classes of a call's findings, as a step's record keeps them."""
    return sorted({found.failure.value for found in findings})


def verdict(case: RegressionCase, prompt: str, run: AgentRun | None) -> str:
    """`reachable` (one of the agent's calls reproduced the finding), `related` (one failed
    with the same class, not the same fingerprint), `not-reached`, or `no-prompt` (the
    model wrote no request)."""
    if not prompt or run is None:
        return NO_PROMPT
    records = [step.record for step in run.steps if step.kind == "call"]
    if any(reaches(case, record) for record in records):
        return REACHABLE
    if any(_related(case, record) for record in records):
        return RELATED
    return NOT_REACHED


def try_finding(
    case: RegressionCase,
    tool: FunctionTool,
    chat: Chat,
    call_tool: CallTool,
    verbatim: ToolResult,
    attempts: int = DEFAULT_ATTEMPTS,
    fresh_state: FreshState | None = None,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    context: str = "",
) -> JSONObject:
    """The finding's receipt entry: `verbatim` is what its own call gave when run as is;
    when that reproduced it, up to `attempts` user requests are written and run through
    the agent, stopping at the first that reaches it. `prompt`, `agent` and `outcome` are
    the deciding attempt's (the one that reached it, else the last); `attempts` lists all."""
    entry: JSONObject = {
        "kind": kind_of(case),
        "fingerprint": case.fingerprint,
        "failure": case.failure.value,
        "path": case.path,
        "input": case.input,
        "verbatim": verbatim.record,
    }
    tried: list[JSONObject] = []
    prompt, outcome = "", NOT_REPRODUCED
    run: AgentRun | None = None
    if reaches(case, verbatim.record):
        for _ in range(max(1, attempts)):
            earlier = [str(t["prompt"]) for t in tried if t["prompt"]]
            asked = prompt_messages(tool, case.input, earlier, context)
            prompt = read_prompt(chat(asked, ()))
            run = (
                run_agent(prompt, tool, chat, call_tool, max_steps, fresh_state=fresh_state)
                if prompt
                else None
            )
            outcome = verdict(case, prompt, run)
            tried.append({"prompt": prompt, "outcome": outcome})
            if outcome == REACHABLE:
                break
    entry.update(
        {
            "prompt": prompt,
            "agent": None if run is None else run.to_json(),
            "outcome": outcome,
            "agentReachable": outcome == REACHABLE,
            "attempts": list[JSON](tried),
        }
    )
    return entry


def kind_of(case: RegressionCase) -> str:
    """`note` for an under-specification note, else `counterexample`."""
    return "note" if case.failure is Failure.UNDER_SPECIFIED else "counterexample"


def reaches(case: RegressionCase, record: JSONObject) -> bool:
    """Does a call's record (`JudgedCalls.caller`) reproduce the finding? A
    counterexample: its fingerprint (`reproduces`, set from `replay_case`); a note: a
    schema-valid call rejected."""
    if case.failure is Failure.UNDER_SPECIFIED:
        return record.get("valid") is True and record.get("outcome") == "rejected"
    return record.get("reproduces") is True


def _related(case: RegressionCase, record: JSONObject) -> bool:
    return case.failure is not Failure.UNDER_SPECIFIED and case.failure.value in _failures(record)


def _failures(record: JSONObject) -> list[str]:
    failures = record.get("failures")
    return [str(item) for item in failures] if isinstance(failures, list) else []


def receipt_cases(receipt: Receipt) -> tuple[list[RegressionCase], list[JSONObject]]:
    """The receipt's counterexamples and under-specification notes as cases (in that
    order), and those that cannot be replayed, why."""
    cases: list[RegressionCase] = []
    skipped: list[JSONObject] = []
    for example in (*receipt.counterexamples, *receipt.under_specified):
        try:
            cases.append(parse_case(build_case(receipt, example)))
        except (ReceiptError, ValueError) as error:
            reason = error.message if isinstance(error, ReceiptError) else str(error)
            skipped.append({"fingerprint": example.fingerprint, "reason": reason})
    return cases, skipped
