"""Correctness failures wired (prompt sets through the agent and the oracle) and the
verified refinement of an erroneous set's documentation, against a scripted model."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toolfuzz_gate.core.agent.agent_receipt import build_agent_receipt
from toolfuzz_gate.core.agent.chat import Reply, ToolCall
from toolfuzz_gate.core.agent.correctness import PromptSet
from toolfuzz_gate.core.agent.loop import FunctionTool, ToolResult
from toolfuzz_gate.core.agent.prompt_sets import ORACLE_SYSTEM, read_oracle, run_prompt_set
from toolfuzz_gate.core.agent.refinement import (
    REFINER_SYSTEM,
    Refinement,
    campaign_patches,
    check_correctness,
    patched,
    read_refinement,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

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
    """Writes one set, votes as an oracle by exact majority, proposes `fix`; as an agent
    leaves the country out unless the prompt or the country's description asks for it."""

    def __init__(self, sets: Sequence[Any], fix: Any, listen: bool = True) -> None:
        self.sets = list(sets)
        self.fix = fix
        self.listen = listen
        self.asked: list[str] = []

    def __call__(self, messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        system, last = str(messages[0]["content"]), messages[-1]
        self.asked.append(system[:20])
        if system.startswith("You write test requests"):
            return Reply(json.dumps(self.sets.pop(0)) if self.sets else "no", (), 1)
        if system == ORACLE_SYSTEM:
            answers = re.findall(r"^\d+\. (.*)$", str(last["content"]), re.M)
            expected = max(answers, key=answers.count)
            scores = [10 if answer == expected else 2 for answer in answers]
            return Reply(json.dumps({"expected": expected, "scores": scores}), (), 1)
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
    assert first["oracle"] == {"expected": "accepted: 33.66,-95.55", "scores": [10, 2, 10]}
    assert first["failureRate"] == 0.3333
    refinement: Any = first["refinement"]
    assert refinement["suggestion"] == {
        "description": None,
        "arguments": {"country": "Always give the country."},  # `zip` is no argument
    }
    assert (refinement["failureRateBefore"], refinement["failureRateAfter"]) == (0.3333, 0.0)
    assert refinement["verified"] is True
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
    assert refinement["failureRateAfter"] == refinement["failureRateBefore"] == 0.3333
    assert refinement["verified"] is False
    assert unusable == {"number": 2, "template": None}


def test_no_suggestion_means_no_rerun() -> None:
    model = Model([PARIS_SET], {"description": " ", "arguments": {"nothing": "x"}})
    entry = check_correctness(TOOL, model, call_tool)[0]
    assert entry["refinement"] == {
        "suggestion": None,
        "rerun": None,
        "failureRateBefore": 0.3333,
        "failureRateAfter": None,
        "verified": False,
        "schemaPatches": [],
    }
    assert model.asked.count(REFINER_SYSTEM[:20]) == 1


def test_an_unreadable_oracle_never_makes_a_set_erroneous() -> None:
    def chat(messages: Sequence[JSONObject], tools: Sequence[JSONObject]) -> Reply:
        if messages[0]["content"] == ORACLE_SYSTEM:
            return Reply('{"expected": "x", "scores": [10, 11, 1]}', (), 1)  # 11 is out of range
        return Model([], FIX)(messages, tools)

    prompt_set = PromptSet("Where is [A]?", ("Paris", "Paris, France", "Paris city"))
    run = run_prompt_set(prompt_set, TOOL, chat, call_tool)
    assert run.oracle is None and run.failure_rate() == 1.0
    assert run.checks()["erroneous"] is False and run.checks()["answersAgree"] is True
    assert run.checks()["inputConsistent"] is False


def test_the_oracle_reply_needs_one_score_per_answer_read_tolerantly() -> None:
    def read(text: str) -> object:
        oracle = read_oracle(Reply(text, (), 0), 2)
        return None if oracle is None else oracle.scores

    assert read('```json\n{"expected": "a", "scores": [5, 4]}\n```') == (5, 4)
    assert read('{"expected": "a", "scores": [5]}') is None
    assert read('{"expected": "a", "scores": [5, true]}') is None
    assert read('{"expected": "a", "scores": [5, 4.0]}') == (5, 4)  # a float's meaning is clear
    assert read('{"expected": "a", "scores": [4.5, " 7 "]}') == (5, 7)  # half up; a number text
    assert read('{"expected": "a", "scores": [0.4, 7]}') is None  # rounds to 0: out of range
    assert read('{"expected": "a", "scores": ["high", 7]}') is None
    assert read("five") is None


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
            "fingerprint": fingerprint,
            "suggestion": {"patch": patch, "sentence": "s", "verified": verified},
        }

    receipt: JSONObject = {
        "counterexamples": [
            counterexample("a", "/properties/country", True),
            counterexample("b", "/properties/country/enum", False),  # not proven
            counterexample("c", "/properties/city", True),  # another argument
            counterexample("d", "/properties/countryCode", True),  # a longer name
        ],
        "underSpecified": [counterexample("e", "/properties/country/minLength", True)],
    }
    assert [p["fingerprint"] for p in campaign_patches(receipt, ["country"])] == ["a", "e"]
    assert campaign_patches(receipt, []) == [] and campaign_patches({}, ["country"]) == []
    model = Model([PARIS_SET], FIX)
    entry = check_correctness(TOOL, model, call_tool, receipt)[0]
    refinement: Any = entry["refinement"]
    assert entry["underspecified"] == ["country"]
    assert [p["fingerprint"] for p in refinement["schemaPatches"]] == ["a", "e"]
