"""Correctness checks: prompt sets, input and output consistency, the erroneous rule."""

from __future__ import annotations

import json

import pytest

from toolfuzz_gate.core.agent.chat import Reply
from toolfuzz_gate.core.agent.correctness import (
    PromptSet,
    answers_agree,
    differing_arguments,
    erroneous,
    inputs_consistent,
    outputs_consistent,
    read_prompt_set,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject


def _reply(text: str) -> Reply:
    return Reply(text, (), 0)


def test_a_prompt_set_is_read_from_json_even_in_a_code_fence() -> None:
    text = (
        'Here it is:\n```json\n{"template": "Find cafes near [A]", '
        '"infills": ["Paris", "City of Paris", " Paris ", "Paris, France", ""]}\n```'
    )
    found = read_prompt_set(_reply(text))
    rows = (("Paris",), ("City of Paris",), ("Paris, France",))
    assert found == PromptSet("Find cafes near [A]", rows)
    assert found.prompts()[1] == "Find cafes near City of Paris"
    assert found.infills_json() == ["Paris", "City of Paris", "Paris, France"]


def test_a_two_slot_prompt_set_fills_each_slot_from_its_row() -> None:
    text = json.dumps(
        {
            "template": "Find [A] near [B]",
            "infills": [
                {"A": "cafes", "B": "Paris"},
                {"A": "coffee shops", "B": "the city of Paris"},
                ["cafés", "Paris, France"],  # a row as a list, in slot order
                {"A": "cafes", "B": ""},  # an empty infill: not a row
                {"A": "[B]", "B": "Lyon"},  # an infill that looks like a slot stays as it is
            ],
        }
    )
    found = read_prompt_set(_reply(text))
    assert found is not None and found.slots() == ("[A]", "[B]")
    assert found.prompts() == (
        "Find cafes near Paris",
        "Find coffee shops near the city of Paris",
        "Find cafés near Paris, France",
        "Find [B] near Lyon",
    )
    assert found.infills_json()[0] == {"A": "cafes", "B": "Paris"}
    # per slot, as ToolFuzz's model writes them: the columns are zipped into rows
    columns = {"template": "[A] to [B]", "infills": {"A": ["Send", "Upload"], "B": ["x", "y"]}}
    assert read_prompt_set(_reply(json.dumps(columns))) == PromptSet(
        "[A] to [B]", (("Send", "x"), ("Upload", "y"))
    )
    # the policy's `agent.slots` and `agent.infills` bound what is read
    assert read_prompt_set(_reply(text), max_slots=1) is None
    assert len(read_prompt_set(_reply(text), max_infills=2).infills) == 2  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "no json here",
        '{"template": "Find cafes", "infills": ["a", "b"]}',
        '{"template": "[A] and [A]", "infills": ["a", "b"]}',
        '{"template": "[B] only", "infills": ["a", "b"]}',  # slots start at [A]
        '{"template": "[A] and [C]", "infills": [["a", "c"], ["b", "d"]]}',  # no [B]
        '{"template": "[A] near [B]", "infills": ["a", "b"]}',  # one value for two slots
        '{"template": "near [A]", "infills": ["Paris", "Paris"]}',
        '{"template": "near [A]", "infills": "Paris"}',
        '["near [A]"]',
        '{"template": "near [A]", "infills": ["a", "b"]',
    ],
)
def test_a_reply_without_a_usable_set_gives_none(text: str) -> None:
    assert read_prompt_set(_reply(text)) is None


def test_inputs_are_compared_after_normalisation() -> None:
    same: list[JSONObject | None] = [
        {"city": "Paris", "limit": 1},
        {"city": "  PARIS ", "limit": 1.0},
        {"limit": 1, "city": "\uff50\uff41\uff52\uff49\uff53"},  # fullwidth: NFKC is paris
    ]
    assert inputs_consistent(same)
    assert not inputs_consistent([*same, {"city": "Paris, France", "limit": 1}])
    assert not inputs_consistent([*same, None])
    assert not inputs_consistent([{"flag": True}, {"flag": 1}])
    # every call a prompt led to: refused and corrected is not the same as right at once
    paris: JSONObject = {"city": "Paris"}
    assert inputs_consistent([[paris], [{"city": "paris"}]])
    assert not inputs_consistent([[paris], [{"city": "Paris", "country": "FR"}, paris]])


def test_outputs_are_compared_exactly() -> None:
    assert outputs_consistent(["d1", "d1", "d1"])
    assert not outputs_consistent(["d1", "d2"])
    assert not outputs_consistent(["d1", None])


def test_a_set_is_erroneous_only_when_every_check_fails() -> None:
    assert erroneous(False, False, False)
    for checks in [(True, False, False), (False, True, False), (False, False, True)]:
        assert not erroneous(*checks)
    assert answers_agree([5, 10, 7]) and not answers_agree([9, 4])


def test_the_differing_argument_is_named() -> None:
    calls: list[JSONObject | None] = [
        {"city": "Paris", "limit": 1},
        {"city": "Paris", "country": "France", "limit": 1},
        {"city": "paris", "limit": 1},
        None,
    ]
    assert differing_arguments(calls) == ["country"]
    assert differing_arguments([{"city": "Paris"}, {"city": "Lyon"}]) == ["city"]
