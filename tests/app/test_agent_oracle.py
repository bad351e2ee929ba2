"""The held-out case of issue 30, end to end: a unit converter whose agent is wrong for most
of a prompt set. The agent passes `ft` and `foot` as written, the converter refuses them
(`unknown_unit`) and the agent apologises; only `feet` converts. A majority vote over the
answers (0.5.0) took the apology for the expected answer and reported 1 prompt of 3
failing; the expected answer from tool emulation catches the 2 that are wrong."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from tests.llm_server import Call, LoopbackModel, Turn, last_user
from toolfuzz_gate.cli import run
from toolfuzz_gate.exitcodes import ExitCode

CONVERTER = """
class Refused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def convert(value, unit):
    factors = {"feet": 0.3048, "meters": 1.0}
    if unit not in factors:
        raise Refused("unknown_unit", f"unknown_unit: {unit!r} is not one of feet, meters")
    return {"meters": round(value * factors[unit], 4)}
"""
SCHEMA = {
    "type": "object",
    "description": "Convert a length to meters.",
    "properties": {
        "value": {"type": "number", "description": "The length."},
        "unit": {"type": "string", "description": "The unit of the length."},
    },
    "required": ["value", "unit"],
    "additionalProperties": False,
}
SET = {"template": "How many meters is 5 [A]?", "infills": ["feet", "ft", "foot"]}
RIGHT = "5 feet is 1.524 meters."
FIX = "The unit, exactly `feet` or `meters`: write ft and foot as feet."


def _repository(where: Path, url: str) -> Path:
    (where / ".git").mkdir(parents=True)
    (where / "convert.py").write_text(CONVERTER, "utf-8")
    (where / "convert.schema.json").write_text(json.dumps(SCHEMA), "utf-8")
    policy = {
        "version": 1,
        "defaults": {"runs": 5},
        "tools": [
            {
                "name": "convert",
                "schema": "convert.schema.json",
                "handler": {
                    "python": "convert:convert",
                    "rejects": ["convert:Refused"],
                    "cwd": ".",
                },
            }
        ],
        "llm": {"base_url": url, "model": "stand-in", "cassette": "c.json", "mode": "record"},
        "agent": {"prompt_sets": 1, "probes": 0, "unjudged": "note"},  # findings: no request
    }
    (where / "policy.yml").write_text(json.dumps(policy), "utf-8")
    return where


def script(body: dict[str, Any]) -> Any:
    messages = body["messages"]
    system, asked = str(messages[0].get("content")), last_user(body)
    if "You write realistic" in system:
        return Turn("")  # no request for the campaign's findings: unjudged, only noted
    if "You write test requests" in system:
        return Turn(json.dumps(SET))
    if "You emulate tools" in system:  # from the documentation: every request means feet
        return Turn(json.dumps({"emulated": ["1.524 meters"] * 3, "expected": RIGHT}))
    if "You judge answers" in system:
        answer = asked.split("The assistant answered:\n", 1)[1].split("\nExpectations:", 1)[0]
        score = 10 if "1.524" in answer else 2
        return Turn(json.dumps({"score": score, "reason": f"expected {RIGHT!r}"}))
    if "You improve the documentation" in system:
        return Turn(json.dumps({"arguments": {"unit": FIX}}))
    last = messages[-1]
    if last["role"] == "tool":
        said = str(last["content"])
        if "unknown_unit" in said:
            return Turn(f"Sorry, the converter said: {said}")
        return Turn("5 feet is 1.524 meters.")
    unit = next(u for u in ("feet", "ft", "foot") if f" {u}?" in asked)
    told = body["tools"][0]["function"]["parameters"]["properties"]["unit"].get("description")
    if "exactly" in str(told):  # the fixed documentation: every length unit is spelled out
        unit = "feet"
    arguments = json.dumps({"value": 5, "unit": unit})
    return Turn(calls=(Call("convert", arguments),))


def test_the_expected_answer_from_tool_emulation_catches_a_wrong_majority(tmp_path: Path) -> None:
    with LoopbackModel(script) as model:
        root = _repository(tmp_path / "repo", model.url)
        out, err = io.StringIO(), io.StringIO()
        policy = str(root / "policy.yml")
        code = run(["run", "--policy", policy, "--out", str(root / "r")], out, err, {})
        assert code in (ExitCode.PASSED, ExitCode.FAILED), err.getvalue()
        argv = [
            "agent",
            "--policy",
            policy,
            "--receipts",
            str(root / "r"),
            "--out",
            str(root / "a"),
        ]
        code = run(argv, out, err, {})
    assert code == ExitCode.FAILED, err.getvalue()  # the erroneous set, nothing else
    assert (
        "erroneous: convert prompt set 'How many meters is 5 [A]?'; underspecified: unit; "
        "description fix verified (failure rate 0.6667 -> 0.0)"
    ) in out.getvalue()
    receipt = json.loads((root / "a" / "convert.json").read_text("utf-8"))
    (checked,) = receipt["correctness"]
    answers = [r["answer"] for r in checked["runs"]]
    assert sum(a.startswith("Sorry") for a in answers) == 2  # the wrong answer is the majority
    assert checked["oracle"]["expected"] == RIGHT
    assert checked["oracle"]["scores"] == [10, 2, 2]
    assert checked["failingPrompts"] == ["How many meters is 5 ft?", "How many meters is 5 foot?"]
    assert checked["failureRate"] == 0.6667  # 0.5.0: 0.3333, the one right answer "failing"
    assert checked["erroneous"] is True and checked["underspecified"] == ["unit"]
    said = checked["runs"][1]["steps"][0]["result"]["said"]
    assert "unknown_unit" in said  # the handler's words reached the agent and the receipt
    fix = checked["refinement"]
    assert fix["suggestion"]["arguments"] == {"unit": FIX}
    assert (fix["failureRateBefore"], fix["failureRateAfter"], fix["verified"]) == (
        0.6667,
        0.0,
        True,
    )
    assert fix["rerun"]["oracle"]["scores"] == [10, 10, 10]
