"""Agent-reachability: the agent's call judged as the counterexample, the receipt sealed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from toolfuzz_gate.core.agent.agent_receipt import build_agent_receipt
from toolfuzz_gate.core.agent.chat import Reply, ToolCall
from toolfuzz_gate.core.agent.loop import AgentRun, FunctionTool, Step, ToolResult
from toolfuzz_gate.core.agent.reachability import (
    AGENT_MUTATION,
    JudgedCalls,
    agent_case,
    prompt_messages,
    read_prompt,
    try_finding,
    verdict,
)
from toolfuzz_gate.core.campaign.findings import Failure, InputKind
from toolfuzz_gate.core.campaign.outcome import Handler, Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.regression import RegressionCase
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest

CASE = RegressionCase(
    "geocode",
    "a" * 24,
    Failure.CRASH,
    InputKind.HOSTILE,
    "/country",
    "type",
    "type",
    "null",
    {"city": "a", "country": None},
    False,
    "hostile",
    3,
)


def _run(*records: JSONObject) -> AgentRun:
    steps = tuple(Step("call", "geocode", "{}", {}, record) for record in records)
    return AgentRun("Where is Paris?", steps, "done", "answered", 2)


def test_only_a_call_reproducing_the_fingerprint_makes_it_reachable() -> None:
    reproduced: JSONObject = {"failures": ["crash"], "reproduces": True}
    assert verdict(CASE, "p", _run(reproduced)) == "reachable"
    # the same class elsewhere (another path or cause): related, not reached (0.5.0: reached)
    assert verdict(CASE, "p", _run({"failures": ["crash"], "reproduces": False})) == "related"
    assert verdict(CASE, "p", _run({"failures": ["hostile-accepted"]}, {"failures": []})) == (
        "not-reached"
    )
    assert verdict(CASE, "", None) == "no-prompt"


def test_a_note_is_reached_by_a_schema_valid_call_the_tool_rejects() -> None:
    note = replace(CASE, failure=Failure.UNDER_SPECIFIED, valid=True)
    rejected: JSONObject = {"outcome": "rejected", "valid": True, "failures": []}
    assert verdict(note, "p", _run(rejected)) == "reachable"
    assert verdict(note, "p", _run({**rejected, "valid": False})) == "not-reached"
    assert verdict(note, "p", _run({**rejected, "outcome": "accepted"})) == "not-reached"


def test_the_agent_arguments_are_judged_by_their_own_validity() -> None:
    valid = agent_case(CASE, {"city": "Paris"}, True)
    assert (valid.input_kind, valid.mutation, valid.valid) == (InputKind.VALID, "valid", True)
    assert valid.input == {"city": "Paris"} and valid.failure is Failure.CRASH
    invalid = agent_case(CASE, {"city": 3}, False)
    assert (invalid.input_kind, invalid.path, invalid.valid) == (
        InputKind.HOSTILE,
        "/country",
        False,
    )
    from_valid = agent_case(valid, {"city": 3}, False)
    assert (from_valid.mutation, from_valid.path, from_valid.valid) == (AGENT_MUTATION, "", False)


def test_the_prompt_request_names_the_tool_and_the_exact_arguments() -> None:
    tool = FunctionTool("geocode", "Find a city.", {"type": "object"})
    text = str(prompt_messages(tool, {"city": "a", "country": None})[1]["content"])
    assert "'geocode'" in text and "Find a city." in text
    assert text.endswith('{"city":"a","country":null}')
    assert read_prompt(Reply("\n  Where is Paris?\n\nThis request...", (), 0)) == "Where is Paris?"
    assert read_prompt(Reply("   ", (), 0)) == ""


def _model(prompts: Sequence[str], calls: dict[str, JSONObject]) -> tuple[list[str], object]:
    """A model writing `prompts` in turn, and as the agent making the call `calls` names
    for the request, then answering; the requests it was asked for are logged."""
    asked: list[str] = []
    queue = list(prompts)

    def chat(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        if not tools:
            asked.append(str(messages[-1]["content"]))
            return Reply(queue.pop(0), (), 1)
        if messages[-1]["role"] == "tool":
            return Reply("done", (), 1)
        prompt = str(messages[1]["content"])
        return Reply("", (ToolCall("c0", "geocode", json.dumps(calls[prompt])),), 1)

    return asked, chat


TOOL = FunctionTool("geocode", "Find a city.", {"type": "object"})


def _call(reproducing: JSONObject) -> object:
    def call(arguments: JSONObject) -> ToolResult:
        hit = arguments == reproducing
        return ToolResult("x", {"outcome": "crash", "failures": ["crash"], "reproduces": hit})

    return call


def test_a_finding_is_tried_verbatim_first_then_up_to_three_requests() -> None:
    reproducing: JSONObject = {"city": "a", "country": None}
    asked, chat = _model(["one", "two", "three"], {"one": {"city": "b"}, "two": reproducing})
    found = ToolResult("crash", {"reproduces": True})
    entry = try_finding(CASE, TOOL, chat, _call(reproducing), found)  # type: ignore[arg-type]
    assert entry["outcome"] == "reachable" and entry["prompt"] == "two"
    assert entry["attempts"] == [
        {"prompt": "one", "outcome": "related"},
        {"prompt": "two", "outcome": "reachable"},
    ]
    assert len(asked) == 2 and '"one"' in asked[1] and "word it differently" in asked[1]
    asked, chat = _model([], {})
    gone = ToolResult("accepted", {"reproduces": False})
    entry = try_finding(CASE, TOOL, chat, _call(reproducing), gone)  # type: ignore[arg-type]
    assert entry["outcome"] == "not-reproduced" and entry["attempts"] == [] and asked == []


def test_the_receipt_is_sealed_over_everything_else() -> None:
    _, chat = _model(["Where is Paris?"], {"Where is Paris?": dict(CASE.input)})
    found = ToolResult("crash", {"reproduces": True})
    entry = try_finding(CASE, TOOL, chat, _call(dict(CASE.input)), found)  # type: ignore[arg-type]
    assert entry["agentReachable"] is True and entry["input"] == CASE.input
    receipt = build_agent_receipt(
        "geocode", {"file": "geocode.json"}, {"model": "m"}, "d" * 64, {}, [entry], []
    )
    sealed = receipt.pop("agentReceiptHash")
    assert sealed == digest(receipt)
    assert receipt["summary"] == {
        "findings": 1,
        "counterexample": 1,
        "reachable": 1,
        "probes": 0,
        "probesFailing": 0,
        "promptSets": 0,
        "erroneous": 0,
        "refinementsVerified": 0,
        "recovered": 0,
    }


class _Geocode:
    """Crashes on a missing country, else answers; `strict` rejects a blank city."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        self.calls: list[JSONObject] = []

    def call(self, arguments: JSONObject) -> Outcome:
        self.calls.append(arguments)
        if arguments.get("country") is None:
            return Outcome(OutcomeKind.CRASH, message="TypeError: country is None")
        if self.strict and not arguments.get("city"):
            return Outcome(OutcomeKind.REJECTED, error_code="city-required")
        return Outcome(OutcomeKind.ACCEPTED, output_digest="d", output_bytes=2)


def _valid(arguments: JSON) -> bool:
    return isinstance(arguments, dict) and isinstance(arguments.get("country"), str)


def test_an_agents_call_is_judged_as_replay_judges_the_finding_on_the_handler_in_use() -> None:
    handlers: list[Handler] = [_Geocode()]
    judged = JudgedCalls(lambda: handlers[-1], ToolSpec("geocode"), _valid)
    found = judged.verbatim(CASE)
    assert found.text == "crash: TypeError: country is None"
    assert found.record["reproduces"] is True and found.record["failures"] == ["crash"]
    call = judged.caller(partial(agent_case, CASE), CASE.valid, fingerprinted=True)
    fine = call({"city": "Paris", "country": "FR"})
    assert fine.text == "accepted"
    assert fine.record == {
        "outcome": "accepted",
        "valid": True,
        "failures": [],
        "reproduces": False,
    }
    handlers.append(_Geocode(strict=True))  # a fresh handler after a reset: the next call's
    rejected = call({"city": "", "country": "FR"})
    assert rejected.record["outcome"] == "rejected" and "reproduces" in rejected.record


def test_without_a_judge_the_assumed_validity_holds_and_fixed_arguments_are_added() -> None:
    handler = _Geocode()
    spec = replace(ToolSpec("geocode"), fixed=(("/country", "FR"),))
    judged = JudgedCalls(lambda: handler, spec, None)
    record = judged.caller(partial(agent_case, CASE), True)({"city": "Paris"}).record
    assert handler.calls and all(c == {"city": "Paris", "country": "FR"} for c in handler.calls)
    assert record["valid"] is True and "reproduces" not in record  # not a finding's call
