"""Correctness checks: prompt sets, input and output consistency, the erroneous rule."""

from __future__ import annotations

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
    assert found == PromptSet("Find cafes near [A]", ("Paris", "City of Paris", "Paris, France"))
    assert found.prompts()[1] == "Find cafes near City of Paris"


@pytest.mark.parametrize(
    "text",
    [
        "no json here",
        '{"template": "Find cafes", "infills": ["a", "b"]}',
        '{"template": "[A] and [A]", "infills": ["a", "b"]}',
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
