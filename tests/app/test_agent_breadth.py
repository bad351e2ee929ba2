"""ToolFuzz's breadth, configured in the policy's `agent` section: prompt sets, slots per
template, infills, documentation probes, agent steps and the user context of a tool, run
end to end through `agent` against a loopback model and the real fixture handler."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.app.test_agent import FREEDONIA, PARIS, PARIS_FRANCE, _agent, _invoke, _repository
from tests.app.test_agent import receipts as receipts  # the module's campaign fixture
from tests.llm_server import LoopbackModel, Turn, last_user
from toolfuzz_gate.exitcodes import ExitCode

CONTEXT = "Our users are in France and mean French cities."
SIZES = {
    "prompt_sets": 1,
    "slots": 2,
    "infills": 2,
    "probes": 0,
    "steps": 3,
    "context": {"geocode": CONTEXT},
}
TWO_SLOTS = {
    "template": "Where is [A] in [B]?",
    "infills": [
        {"A": "Paris", "B": "France"},
        {"A": "the city of Paris", "B": "the French Republic"},
    ],
}


def script(body: dict[str, Any]) -> Any:
    messages = body["messages"]
    system, asked = str(messages[0].get("content")), last_user(body)
    if "You write realistic" in system:
        return Turn("Find Springfield in Freedonia, again and again.")
    if "You write test requests" in system:
        return Turn(json.dumps(TWO_SLOTS))
    if "You emulate tools" in system:
        return Turn(json.dumps({"emulated": ["48.85, 2.35"] * 2, "expected": "48.85, 2.35"}))
    if "You judge answers" in system:
        return Turn(json.dumps({"score": 9, "reason": "the coordinates of Paris, France"}))
    last = messages[-1]
    if "again and again" in asked:  # an agent that never stops calling
        return Turn(calls=(FREEDONIA,))
    if last["role"] == "tool":
        if "crash" in str(last["content"]):  # corrected after the handler's refusal
            return Turn(calls=(PARIS_FRANCE,))
        return Turn("48.85, 2.35")
    return Turn(calls=(PARIS if "French Republic" in asked else PARIS_FRANCE,))


def test_the_agent_section_sizes_the_run_and_gives_the_writer_the_context(
    tmp_path: Path, receipts: Path
) -> None:
    with LoopbackModel(script) as model:
        root = _repository(tmp_path, base_url=model.url, mode="record")
        policy = root / "policy.yml"
        policy.write_text(policy.read_text("utf-8") + f"agent: {json.dumps(SIZES)}\n", "utf-8")
        code, out, err = _agent(root, receipts, tmp_path / "recorded")
        bodies = [request.body for request in model.requests]
    # the campaign's crash (no country) is not reached by an agent that always names
    # Freedonia, and a recovery is reported, failing nothing
    assert code == ExitCode.PASSED, err
    systems = [str(body["messages"][0]["content"]) for body in bodies]
    # probes: 0 asks for none; one prompt set, not two
    assert not any("different natural requests" in last_user(b) for b in bodies)
    assert sum("You write test requests" in s for s in systems) == 1
    # every request that writes prompts, and the tool emulation, gets the tool's context
    writers = [last_user(b) for b, s in zip(bodies, systems, strict=True) if "You write" in s]
    writers += [last_user(b) for b, s in zip(bodies, systems, strict=True) if "emulate" in s]
    assert writers and all(CONTEXT in text for text in writers)
    (set_request,) = [last_user(b) for b in bodies if "prompt set 1 of 1" in last_user(b)]
    assert "1 to 2 slots ([A], [B], in that order) and 2 rows of infills" in set_request

    receipt = json.loads((tmp_path / "recorded" / "geocode.json").read_text("utf-8"))
    # the agent that never stops calling ends after `steps` replies
    endless = [f["agent"] for f in receipt["findings"] if f["agent"] is not None]
    assert endless and all(run["replies"] <= 3 for run in endless)
    assert any(run["outcome"] == "step-limit" and run["replies"] == 3 for run in endless)
    (checked,) = receipt["correctness"]
    assert checked["prompts"] == [
        "Where is Paris in France?",
        "Where is the city of Paris in the French Republic?",
    ]
    assert checked["infills"] == TWO_SLOTS["infills"]
    # the second prompt's agent was refused (a crash) and corrected itself: inputs over
    # every call disagree, the answers agree, and the recovery names the argument
    assert checked["inputConsistent"] is False and checked["answersAgree"] is True
    assert checked["erroneous"] is False
    (recovered,) = checked["recovered"]
    assert (recovered["outcome"], recovered["arguments"]) == ("crash", ["country"])
    assert recovered["refused"] == {"city": "Paris"}
    assert (
        "recovered: geocode prompt set 'Where is [A] in [B]?': the call was crash, then "
        "corrected in country; prompt: 'Where is the city of Paris in the French Republic?'"
    ) in out
    assert receipt["health"]["recoveredAfterError"] >= 1
    assert receipt["summary"]["recovered"] == 1


def test_a_context_for_a_tool_the_policy_does_not_have_is_a_policy_error(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    policy = root / "policy.yml"
    section = {"context": {"geocoder": "a typo"}}
    policy.write_text(policy.read_text("utf-8") + f"agent: {json.dumps(section)}\n", "utf-8")
    code, _, err = _invoke("run", "--policy", str(policy), "--out", str(tmp_path / "out"))
    assert code == ExitCode.USAGE
    assert "agent.context names 'geocoder', which is not a tool of this policy" in err
    assert "agent/context/geocoder" in err
