"""Model health: what kept agent mode from judging, counted from the receipt's entries."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.agent.health import (
    finding_trouble,
    model_health,
    run_trouble,
    set_trouble,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject


def _run(*kinds: str, outcome: str = "answered", results: tuple[str, ...] = ()) -> JSONObject:
    steps: list[JSONObject] = []
    outcomes = iter(results)
    for kind in kinds:
        step: JSONObject = {"kind": kind, "name": "t", "arguments": "{}"}
        if kind == "call":
            step["result"] = {"outcome": next(outcomes, "accepted")}
        steps.append(step)
    listed: list[Any] = steps
    return {"prompt": "p", "outcome": outcome, "replies": len(kinds) + 1, "steps": listed}


def test_a_run_that_tried_and_made_no_usable_call_is_trouble() -> None:
    assert run_trouble(_run("unknown-tool", "unknown-tool")) == (
        "the agent only called tools that do not exist"
    )
    assert run_trouble(_run("bad-arguments")) == (
        "the agent only wrote arguments that are not a JSON object"
    )
    assert run_trouble(_run("bad-arguments", "unknown-tool")) is not None
    assert run_trouble(_run("bad-arguments", "call")) is None  # it got there in the end
    assert run_trouble(_run()) is None  # answered without the tool: a judgement, not trouble
    assert run_trouble(None) is None


def test_a_finding_is_unjudged_only_when_the_model_kept_every_attempt_from_judging() -> None:
    no_prompt: JSONObject = {"prompt": "", "agent": None, "outcome": "no-prompt", "attempts": []}
    assert finding_trouble(no_prompt) == "the model wrote no user request for the call"
    # never put to the model: the finding's own call did not reproduce it
    assert finding_trouble({**no_prompt, "outcome": "not-reproduced"}) is None
    lost: JSONObject = {
        "prompt": "p",
        "agent": _run("unknown-tool"),
        "outcome": "not-reached",
        "attempts": [{"prompt": "p", "outcome": "not-reached"}],
    }
    assert finding_trouble(lost) == "the agent only called tools that do not exist"
    assert finding_trouble({**lost, "outcome": "reachable"}) is None
    assert finding_trouble({**lost, "agent": _run("call")}) is None  # a call that missed


def test_a_set_is_unjudged_without_a_set_an_oracle_or_any_call() -> None:
    good: JSONObject = {
        "template": "Where is [A]?",
        "oracle": {"scores": [9, 9]},
        "runs": [_run("call")] * 2,
    }
    assert set_trouble(good) is None
    assert set_trouble({"template": None}) == "the model's prompt set could not be read"
    assert set_trouble({**good, "oracle": None}) == "the oracle's reply could not be read"
    lost: JSONObject = {**good, "runs": [_run("unknown-tool"), _run()]}
    assert (
        set_trouble(lost)
        == "no prompt led to a call: the agent only called tools that do not exist"
    )
    endless: JSONObject = {**good, "runs": [_run("call", outcome="step-limit")] * 2}
    assert "never stopped" in str(set_trouble(endless))


def test_health_counts_every_run_including_the_refinement_rerun() -> None:
    finding: JSONObject = {
        "fingerprint": "f1",
        "prompt": "p",
        "agent": _run("unknown-tool", "call"),
    }
    silent: JSONObject = {"fingerprint": "f2", "prompt": "", "agent": None}
    recovering = _run("call", "call", results=("rejected", "accepted"))
    rerun: JSONObject = {"runs": [_run("bad-arguments", outcome="step-limit")]}
    sets: list[JSONObject] = [
        {
            "number": 1,
            "template": "t [A]",
            "oracle": None,
            "runs": [recovering],
            "refinement": {"rerun": rerun},
        }
    ]
    health = model_health([finding, silent], [], sets, probes_asked=True, unmetered=3, retries=2)
    assert {key: value for key, value in health.items() if key != "unjudged"} == {
        "unknownToolCalls": 1,
        "unparseableArguments": 1,
        "stepLimits": 1,
        "recoveredAfterError": 1,
        "unreadableReplies": 3,  # the silent finding's prompt, the oracle, the missing probes
        "answersWithoutUsage": 3,
        "retries": 2,
    }
    unjudged: Any = health["unjudged"]
    assert [(item["check"], item["what"]) for item in unjudged] == [
        ("agent-reachable", "finding f2"),
        ("agent-reachable", "documentation probes"),
        ("agent-correctness", "prompt set 1"),
    ]
