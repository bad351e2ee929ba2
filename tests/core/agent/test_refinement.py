"""Correctness failures wired (prompt sets through the agent and the oracle) and the
verified refinement of an erroneous set's documentation, against a scripted model."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import partial
from typing import Any

from tests.receipts import fingerprint_of, typed
from toolfuzz_gate.core.agent.agent_receipt import build_agent_receipt
from toolfuzz_gate.core.agent.chat import Reply, ToolCall
from toolfuzz_gate.core.agent.correctness import PromptSet
from toolfuzz_gate.core.agent.correctness_oracle import (
    EXPECTATION_SYSTEM,
    ORACLE_SYSTEM,
    read_expectation,
    read_judgement,
)
from toolfuzz_gate.core.agent.health import set_trouble
from toolfuzz_gate.core.agent.loop import FunctionTool, ToolResult
from toolfuzz_gate.core.agent.prompt_sets import run_prompt_set
from toolfuzz_gate.core.agent.refinement import (
    REFINER_SYSTEM,
    CorrectnessRun,
    Refinement,
    campaign_patches,
    check_correctness,
    patched,
    read_refinement,
)
from toolfuzz_gate.core.gate.agent_settings import AgentSettings
from toolfuzz_gate.core.gate.regression import schema_judge
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.options import SchemaOptions

SCHEMA: Any = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city's name."},
        "country": {"type": "string", "description": "The country."},
    },
    "required": ["city"],
}
TOOL = FunctionTool("geocode", "Find the coordinates of a city.", SCHEMA)
PLACES = {"France": "48.85,2.35", None: "33.66,-95.55"}  # no country: Paris, Texas


class Model:
    """Writes one set; emulates the geocoder from its documentation (it knows Paris is in
    France) for the expected answer; as the oracle scores an answer 10 when it gives the
    French Paris's coordinates, else 2, with a reason; proposes `fix`; as an agent leaves
    the country out unless the prompt or the country's description asks for it."""

    def __init__(self, sets: Sequence[Any], fix: Any, listen: bool = True) -> None:
        self.sets = list(sets)
        self.fix = fix
        self.listen = listen
        self.asked: list[str] = []
        self.seen: list[str] = []

    def __call__(self, messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        system, last = str(messages[0]["content"]), messages[-1]
        self.asked.append(system[:20])
        self.seen.append(str(last["content"]))
        if system.startswith("You write test requests"):
            return Reply(json.dumps(self.sets.pop(0)) if self.sets else "no", (), 1)
        if system == EXPECTATION_SYSTEM:
            count = len(re.findall(r"^\d+\. ", str(last["content"]), re.M))
            emulated = ["Paris, France: 48.85,2.35"] * count
            return Reply(json.dumps({"emulated": emulated, "expected": emulated[0]}), (), 1)
        if system == ORACLE_SYSTEM:
            answer = str(last["content"]).split("The assistant answered:\n", 1)[1]
            right = answer.startswith("accepted: 48.85,2.35")
            reason = "the French Paris" if right else "Paris, Texas, not the expected Paris"
            return Reply(json.dumps({"score": 10 if right else 2, "reason": reason}), (), 1)
        if system == REFINER_SYSTEM:
            return Reply(json.dumps(self.fix), (), 1)
        if last["role"] == "tool":
            return Reply(str(last["content"]), (), 1)
        offered: Any = tools[0]
        country = offered["function"]["parameters"]["properties"]["country"]
        told = self.listen and "always" in country["description"].lower()
        arguments = {"city": "Paris"}
        if told or "France" in str(last["content"]):
            arguments["country"] = "France"
        return Reply("", (ToolCall("c", "geocode", json.dumps(arguments)),), 1)


def call_tool(arguments: JSONObject) -> ToolResult:
    said = PLACES[arguments.get("country")]  # type: ignore[index]
    return ToolResult(f"accepted: {said}", {"outcome": "accepted", "output": said})


PARIS_SET: JSONObject = {
    "template": "Where is [A]?",
    "infills": ["Paris", "Paris, France", "Paris city"],
}
FIX: JSONObject = {
    "description": "",
    "arguments": {"country": "Always give the country.", "zip": "x"},
}


def test_an_erroneous_set_names_the_argument_and_the_fix_is_verified_by_a_rerun() -> None:
    model = Model(
        [PARIS_SET, {"template": "Map [A]", "infills": ["Paris, France", "Paris in France"]}], FIX
    )
    first, second = check_correctness(TOOL, model, call_tool)
    assert first["number"] == 1 and first["template"] == "Where is [A]?"
    checks = {key: first[key] for key in ("inputConsistent", "outputConsistent", "answersAgree")}
    assert checks == {"inputConsistent": False, "outputConsistent": False, "answersAgree": False}
    assert (first["erroneous"], first["underspecified"]) == (True, ["country"])
    oracle: Any = first["oracle"]
    assert (oracle["method"], oracle["expected"]) == ("tool-emulation", "Paris, France: 48.85,2.35")
    assert (oracle["scores"], oracle["judged"]) == ([2, 10, 2], ["scored"] * 3)
    assert oracle["reasons"][0] == "Paris, Texas, not the expected Paris"
    # per prompt: the two that got Paris, Texas fail all three checks
    assert first["failingPrompts"] == ["Where is Paris?", "Where is Paris city?"]
    assert first["failureRate"] == 0.6667
    refinement: Any = first["refinement"]
    assert refinement["suggestion"] == {
        "description": None,
        "arguments": {"country": "Always give the country."},  # `zip` is no argument
    }
    assert (refinement["failureRateBefore"], refinement["failureRateAfter"]) == (0.6667, 0.0)
    assert refinement["verified"] is True
    # the re-run is judged against the first run's expected answer: no new expectation asked
    assert model.asked.count(EXPECTATION_SYSTEM[:20]) == 2
    rerun = refinement["rerun"]
    assert rerun["erroneous"] is False and rerun["inputConsistent"] is True
    # the second set: every prompt led to the same call
    assert second["erroneous"] is False and second["refinement"] is None
    assert second["inputConsistent"] is True
    receipt = build_agent_receipt("geocode", {}, {}, None, {}, [], [], [], [first, second])
    summary: Any = receipt["summary"]
    assert (summary["promptSets"], summary["erroneous"], summary["refinementsVerified"]) == (
        2,
        1,
        1,
    )


def test_a_fix_the_agent_ignores_is_proposed_but_not_verified() -> None:
    model = Model([PARIS_SET], FIX, listen=False)
    (entry, unusable) = check_correctness(TOOL, model, call_tool)
    refinement: Any = entry["refinement"]
    assert entry["erroneous"] is True
    assert refinement["failureRateAfter"] == refinement["failureRateBefore"] == 0.6667
    assert refinement["verified"] is False
    assert unusable == {"number": 2, "template": None}


def test_no_suggestion_means_no_rerun() -> None:
    model = Model([PARIS_SET], {"description": " ", "arguments": {"nothing": "x"}})
    entry = check_correctness(TOOL, model, call_tool)[0]
    assert entry["refinement"] == {
        "suggestion": None,
        "rerun": None,
        "failureRateBefore": 0.6667,
        "failureRateAfter": None,
        "verified": False,
        "schemaPatches": [],
        "droppedSchemaPatches": [],
    }
    assert model.asked.count(REFINER_SYSTEM[:20]) == 1


def test_an_unreadable_oracle_never_makes_a_set_erroneous() -> None:
    def chat(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        if messages[0]["content"] == ORACLE_SYSTEM:
            return Reply('{"score": 11, "reason": "x"}', (), 1)  # 11 is out of range
        return Model([], FIX)(messages, tools)

    rows = (("Paris",), ("Paris, France",), ("Paris city",))
    run = run_prompt_set(PromptSet("Where is [A]?", rows), TOOL, chat, call_tool)
    assert run.judged == ("unreadable",) * 3 and run.failure_rate() == 0.0
    assert run.checks()["erroneous"] is False and run.checks()["answersAgree"] is True
    assert run.checks()["inputConsistent"] is False
    assert set_trouble(run.to_json()) == "the oracle's reply could not be read for 3 of 3 answer(s)"

    def no_expectation(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        if messages[0]["content"] == EXPECTATION_SYSTEM:
            return Reply("The tool returns coordinates.", (), 1)
        return Model([], FIX)(messages, tools)

    asked = Model([], FIX)
    run = run_prompt_set(PromptSet("Where is [A]?", rows), TOOL, no_expectation, call_tool)
    assert run.expectation is None and run.judged == ("no-expected",) * 3
    assert run.to_json()["oracle"] is None and asked.asked == []  # no answer was judged
    assert set_trouble(run.to_json()) == "the oracle's reply could not be read"


def test_the_oracle_reply_is_a_score_and_a_reason_read_tolerantly() -> None:
    def read(text: str) -> object:
        judgement = read_judgement(Reply(text, (), 0))
        return None if judgement is None else (judgement.score, judgement.reason)

    assert read('```json\n{"score": 5, "reason": "close"}\n```') == (5, "close")
    assert read('{"score": 4.5}') == (5, "")  # half up; no reason given
    assert read('{"score": " 7 ", "reason": 3}') == (7, "")  # a number text
    assert read('{"correctness_degree": 8, "reason": "r"}') == (8, "r")  # ToolFuzz's name
    assert read('{"score": 0.4}') is None  # rounds to 0: out of range
    assert read('{"score": true}') is None
    assert read('{"score": "high"}') is None
    assert read("five") is None
    assert read_expectation(Reply('{"expected": "  "}', (), 0)) is None
    found = read_expectation(Reply('{"emulated": ["a", 3], "expected": " b "}', (), 0))
    assert found is not None and (found.expected, found.emulated) == ("b", ("a",))
    found = read_expectation(Reply('{"expected_answer": "c"}', (), 0))
    assert found is not None and (found.expected, found.emulated) == ("c", ())


def test_a_patch_changes_descriptions_only_and_leaves_the_tool_alone() -> None:
    suggestion = read_refinement(
        Reply('{"description": "Geocode a city in a country.", "arguments": {"city": "A"}}', (), 0),
        SCHEMA,
    )
    assert suggestion == Refinement("Geocode a city in a country.", (("city", "A"),))
    changed = patched(TOOL, suggestion)
    assert changed.description == "Geocode a city in a country."
    assert changed.parameters == {
        **SCHEMA,
        "properties": {**SCHEMA["properties"], "city": {"type": "string", "description": "A"}},
    }
    assert SCHEMA["properties"]["city"]["description"] == "The city's name."
    assert read_refinement(Reply("[]", (), 0), SCHEMA) is None


def test_the_campaigns_verified_patches_for_the_named_argument_go_with_the_set() -> None:
    def counterexample(fingerprint: str, path: str, verified: bool) -> JSONObject:
        patch: JSON = [{"op": "remove", "path": path}]
        return {
            "fingerprint": fingerprint_of(fingerprint),
            "suggestion": {"patch": patch, "sentence": "s", "verified": verified},
        }

    a, e = fingerprint_of("a"), fingerprint_of("e")
    receipt = typed(
        {
            "counterexamples": [
                counterexample("a", "/properties/country", True),
                counterexample("b", "/properties/country/enum", False),  # not proven
                counterexample("c", "/properties/city", True),  # another argument
                counterexample("d", "/properties/countryCode", True),  # a longer name
            ],
            "underSpecified": [counterexample("e", "/properties/country/minLength", True)],
        }
    )
    assert [p["fingerprint"] for p in campaign_patches(receipt, ["country"])] == [a, e]
    assert campaign_patches(receipt, []) == [] and campaign_patches(None, ["country"]) == []
    model = Model([PARIS_SET], FIX)
    entry = check_correctness(TOOL, model, call_tool, CorrectnessRun(receipt=receipt))[0]
    refinement: Any = entry["refinement"]
    assert entry["underspecified"] == ["country"]
    # "a" removes the argument the fix tells the agent to always give: dropped, with why
    assert [p["fingerprint"] for p in refinement["schemaPatches"]] == [e]
    (dropped,) = refinement["droppedSchemaPatches"]
    assert dropped["fingerprint"] == a
    assert dropped["reason"] == (
        "it removes country, which the proposed description tells the agent to give"
    )


def test_a_campaign_patch_the_fixed_agents_accepted_calls_break_is_dropped() -> None:
    """The patch bounds `country` to two letters; the agent, following the fix, sends
    `France`, which the tool accepted: under the patch that call would be invalid."""
    narrow: JSON = [{"op": "add", "path": "/properties/country/maxLength", "value": 2}]
    wide: JSON = [{"op": "add", "path": "/properties/country/maxLength", "value": 60}]
    suggested = (("narrow", narrow), ("wide", wide))
    receipt = typed(
        {
            "counterexamples": [
                {
                    "fingerprint": fingerprint_of(f),
                    "suggestion": {"patch": p, "sentence": "s", "verified": True},
                }
                for f, p in suggested
            ]
        }
    )
    judge_under = partial(schema_judge, options=SchemaOptions(), dialect=None)
    setup = CorrectnessRun(receipt=receipt, judge_under=judge_under)
    entry = check_correctness(TOOL, Model([PARIS_SET], FIX), call_tool, setup)[0]
    refinement: Any = entry["refinement"]
    assert refinement["verified"] is True
    assert [p["fingerprint"] for p in refinement["schemaPatches"]] == [fingerprint_of("wide")]
    (dropped,) = refinement["droppedSchemaPatches"]
    assert dropped["fingerprint"] == fingerprint_of("narrow")
    assert dropped["reason"].startswith('under it the call {"city":"Paris","country":"France"}')
    # without a judge (the engine refused the schema) the patch cannot be checked: kept
    setup = CorrectnessRun(receipt=receipt)
    entry = check_correctness(TOOL, Model([PARIS_SET], FIX), call_tool, setup)[0]
    assert len(entry["refinement"]["schemaPatches"]) == 2  # type: ignore[index,call-overload,arg-type]


def test_the_refiner_sees_each_call_its_verdict_and_what_the_handler_said() -> None:
    def refused_once(arguments: JSONObject) -> ToolResult:
        if "country" not in arguments:
            said = "which Paris? give the country"
            return ToolResult(f"rejected: {said}", {"outcome": "rejected", "said": said})
        return call_tool(arguments)

    model = Model([PARIS_SET], FIX)
    check_correctness(TOOL, model, refused_once)
    (asked,) = [
        seen
        for name, seen in zip(model.asked, model.seen, strict=True)
        if name == REFINER_SYSTEM[:20]
    ]
    assert '- \'Where is Paris?\'\n  call {"city":"Paris"} -> rejected: which Paris? give' in asked
    assert 'call {"city":"Paris","country":"France"} -> accepted: 48.85,2.35' in asked
    assert "answer scored 2/10: Paris, Texas, not the expected Paris" in asked
    assert "The expected answer: Paris, France: 48.85,2.35" in asked


def test_a_rerun_the_oracle_could_not_score_verifies_nothing() -> None:
    model = Model([PARIS_SET], FIX)
    judged = 0

    def chat(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        nonlocal judged
        if messages[0]["content"] == ORACLE_SYSTEM:
            judged += 1
            if judged > 3:  # the re-run's answers: prose
                return Reply("They all look right to me.", (), 1)
        return model(messages, tools)

    (entry,) = check_correctness(TOOL, chat, call_tool, CorrectnessRun(AgentSettings(1)))
    refinement: Any = entry["refinement"]
    assert refinement["rerun"]["oracle"]["judged"] == ["unreadable"] * 3
    assert refinement["failureRateAfter"] == 0.0  # no prompt can fail unscored ...
    assert refinement["verified"] is False  # ... and so the fix is not verified
