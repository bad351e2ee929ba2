"""`agent`: the schema campaign's counterexamples through a scripted model on 127.0.0.1.

The model is a loopback stand-in (`tests.llm_server`) speaking chat-completions; the tool
is `tests/fixtures/agent_tool`, a geocoder whose code needs the `country` its schema makes
optional. Nothing leaves the machine.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.llm_server import Call, Canned, LoopbackModel, Script, Turn, agent_script, sequence
from toolfuzz_gate.app.agent import AgentRequest, agent
from toolfuzz_gate.cli import run
from toolfuzz_gate.errors import LlmError
from toolfuzz_gate.exitcodes import ExitCode

FIXTURE = Path(__file__).parent.parent / "fixtures" / "agent_tool"
KEY = "sk-agent-test-0123456789abcdefghijkl"
PARIS = Call("geocode", '{"city": "Paris"}')
PARIS_FRANCE = Call("geocode", '{"city": "Paris", "country": "France"}')
FREEDONIA = Call("geocode", '{"city": "Springfield", "country": "Freedonia"}')
MODEL = agent_script(
    prompts=[
        (r"different natural requests", "1. Where is Paris?\n2. 'Where is Paris, France?'\n"),
        (r'"country":null', "Where is Paris, France?"),
        (r'"country"', "Where is Springfield, Freedonia?"),
        (r"arguments:", "Where is Paris?"),
    ],
    calls=[(r"Paris, France", PARIS_FRANCE), (r"Freedonia", FREEDONIA), (r"Paris", PARIS)],
)


@pytest.fixture(scope="module")
def receipts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The schema campaign's receipts for the geocoder (a real `run --policy`)."""
    root = _repository(tmp_path_factory.mktemp("campaign"))
    out = root / "receipts"
    code, _, err = _invoke("run", "--policy", str(root / "policy.yml"), "--out", str(out))
    assert code == ExitCode.FAILED, err
    return out


def _repository(where: Path, unjudged: str | None = None, **llm: Any) -> Path:
    """The fixture repository with the policy's `llm` section set to `llm`, and its
    `agent.unjudged` rule when given."""
    root = where / "repo"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".git").mkdir()
    section = {"base_url": "http://127.0.0.1:9/v1", "model": "stand-in", "cassette": "c.json"}
    section.update(llm)
    text = (root / "policy.yml").read_text(encoding="utf-8").split("llm:")[0]
    text += "llm: " + json.dumps(section) + "\n"
    if unjudged is not None:
        text += "agent: " + json.dumps({"unjudged": unjudged}) + "\n"
    (root / "policy.yml").write_text(text, "utf-8")
    return root


def _invoke(*argv: str, environ: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, environ or {})
    return code, out.getvalue(), err.getvalue()


def _agent(root: Path, receipts: Path, out: Path, **environ: str) -> tuple[int, str, str]:
    policy = str(root / "policy.yml")
    return _invoke(
        "agent",
        "--policy",
        policy,
        "--receipts",
        str(receipts),
        "--out",
        str(out),
        environ=environ,
    )


def _record(
    tmp_path: Path, receipts: Path, script: Script, unjudged: str | None = None, **llm: Any
) -> tuple[Path, Any]:
    with LoopbackModel(script) as model:
        root = _repository(tmp_path, unjudged, base_url=model.url, mode="record", **llm)
        code, out, err = _agent(root, receipts, tmp_path / "recorded")
    return root, (code, out, err, model.requests)


def test_record_then_replay_marks_the_planted_failure_reachable_byte_for_byte(
    tmp_path: Path, receipts: Path
) -> None:
    root, (code, out, err, asked) = _record(tmp_path, receipts, MODEL, api_key_env="KEY")
    assert code == ExitCode.MODEL and "llm.missing-key" in err  # record needs its key
    assert asked == []
    with LoopbackModel(MODEL) as model:
        root = _repository(tmp_path / "again", base_url=model.url, mode="record", api_key_env="KEY")
        code, out, err = _agent(root, receipts, tmp_path / "recorded", KEY=KEY)
        assert code == ExitCode.FAILED, err
        recorded_requests = len(model.requests)
        assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in model.requests)
        offered = [r.body["tools"][0]["function"] for r in model.requests if "tools" in r.body]
        assert offered and all(
            f["description"] == "Find the coordinates of a city." and f["name"] == "geocode"
            for f in offered
        )
        _replay_policy(root)
        replays = []
        for attempt in ("one", "two"):
            code, replay_out, err = _agent(root, receipts, tmp_path / attempt)
            assert code == ExitCode.FAILED, err
            replays.append((tmp_path / attempt / "geocode.json").read_bytes())
        assert len(model.requests) == recorded_requests  # replay never asks the endpoint
    assert replays[0] == replays[1] == (tmp_path / "recorded" / "geocode.json").read_bytes()
    assert replay_out.replace("two", "recorded").replace("(replay)", "(record)") == out
    assert f"llm: {recorded_requests} of 200 request(s), {recorded_requests * 10} of " in out
    cassette = (root / "c.json").read_text(encoding="utf-8")
    assert KEY not in cassette and KEY not in replays[0].decode()
    receipt = json.loads(replays[0])
    by_input = {json.dumps(f["input"], sort_keys=True): f for f in receipt["findings"]}
    planted = by_input['{"city": "a"}']
    assert (planted["kind"], planted["failure"], planted["outcome"], planted["agentReachable"]) == (
        "counterexample",
        "crash",
        "reachable",
        True,
    )
    assert planted["prompt"] == "Where is Paris?"
    (step,) = planted["agent"]["steps"]
    assert step["arguments"] == {"city": "Paris"}
    assert step["result"]["outcome"] == "crash" and step["result"]["failures"] == ["crash"]
    assert "title" in step["result"]["said"]
    with_country = by_input['{"city": "a", "country": null}']
    assert (with_country["outcome"], with_country["agentReachable"]) == ("not-reached", False)
    accepted = with_country["agent"]["steps"][0]["result"]
    assert accepted["outcome"] == "accepted"
    assert accepted["output"] == '{"results":[{"lat":48.8566,"lon":2.3522}]}'  # the text itself
    note = by_input['{"city": "a", "country": "a"}']
    assert (note["kind"], note["failure"], note["outcome"]) == (
        "note",
        "under-specified",
        "reachable",
    )
    (call,) = note["agent"]["steps"]
    assert call["result"] == {
        "outcome": "rejected",
        "valid": True,
        "failures": [],
        "said": "not_found",
    }
    probes = receipt["documentationProbes"]
    assert [(p["prompt"], p["failures"], p["failing"]) for p in probes] == [
        ("Where is Paris?", ["crash"], True),
        ("Where is Paris, France?", [], False),
    ]
    assert probes[0]["agent"]["steps"][0]["arguments"] == {"city": "Paris"}
    assert receipt["summary"] == {
        "probes": 2,
        "probesFailing": 1,
        "findings": 6,
        "counterexample": 5,
        "note": 1,
        "reachable": 4,
        "related": 1,  # `{}` crashes on a missing city; the agent's call on a missing country
        "not-reached": 1,
        "promptSets": 0,
        "erroneous": 0,
        "refinementsVerified": 0,
        "recovered": 0,
    }
    assert [entry["template"] for entry in receipt["correctness"]] == [None, None]
    assert receipt["llm"] == {
        "model": "stand-in",
        "baseUrl": model.url,
        "parameters": {"seed": 0, "temperature": 0.0},
    }
    assert receipt["cassetteDigest"] == _digest(root / "c.json")
    assert receipt["budget"]["requests"] == recorded_requests
    assert "reachable: geocode counterexample crash at / " in out
    assert "skipped: refused.json: the tool was refused, not fuzzed" in out
    assert sorted(path.name for path in (tmp_path / "one").iterdir()) == ["geocode.json"]
    assert "failing: geocode documentation probe (crash); prompt: 'Where is Paris?'" in out
    assert (
        "agent: 4 of 6 finding(s) agent-reachable, 3 of them counterexamples; 1 of 2 "
        "documentation probe(s) failing" in out
    )


def _replay_policy(root: Path) -> None:
    policy = root / "policy.yml"
    text = policy.read_text(encoding="utf-8")
    policy.write_text(text.replace('"mode": "record"', '"mode": "replay"'), "utf-8")


def _digest(path: Path) -> str:
    from toolfuzz_gate.core.agent.cassette import parse_cassette

    return parse_cassette(json.loads(path.read_text("utf-8")), str(path)).digest()


def test_a_request_missing_from_the_cassette_is_an_error_naming_the_prompt(
    tmp_path: Path, receipts: Path
) -> None:
    root = _repository(tmp_path)
    (root / "c.json").write_text('{"format": "toolfuzz-cassette/1", "entries": {}}', "utf-8")
    code, _, err = _agent(root, receipts, tmp_path / "out")
    assert code == ExitCode.MODEL
    assert "error[llm.cassette-miss]" in err
    assert 'prompt: "Write one natural request a user might send' in err


def test_replay_without_a_cassette_file_says_to_record_one(tmp_path: Path, receipts: Path) -> None:
    code, _, err = _agent(_repository(tmp_path), receipts, tmp_path / "out")
    assert code == ExitCode.MODEL and "llm.cassette-miss" in err and "record it first" in err


def test_the_request_budget_is_never_exceeded(tmp_path: Path, receipts: Path) -> None:
    root, (code, _, err, asked) = _record(tmp_path, receipts, MODEL, max_requests=3)
    assert code == ExitCode.MODEL and "error[llm.budget-exceeded]" in err
    assert "all 3 requests of llm.max_requests" in err
    assert len(asked) == 3
    assert len(json.loads((root / "c.json").read_text("utf-8"))["entries"]) == 3


def test_a_model_answer_that_is_not_a_completion_stops_the_run(
    tmp_path: Path, receipts: Path
) -> None:
    _, (code, _, err, _) = _record(tmp_path, receipts, sequence([Canned(200, '{"choices": []}')]))
    assert code == ExitCode.MODEL and "error[llm.malformed-response]" in err
    assert "no choices" in err


def test_malformed_tool_calls_are_recorded_and_the_run_goes_on(
    tmp_path: Path, receipts: Path
) -> None:
    def script(body: dict[str, Any]) -> Any:
        if body["messages"][-1]["role"] == "tool":
            return Turn("could not do it")
        if "You write realistic" in body["messages"][0]["content"]:
            return Turn("Where is Paris?")
        return Turn(calls=(Call("geocode", '{"city": "Par'), Call("search", "{}")))

    _, (code, out, err, _) = _record(tmp_path, receipts, script)
    receipt = json.loads((tmp_path / "recorded" / "geocode.json").read_text("utf-8"))
    steps = receipt["findings"][0]["agent"]["steps"]
    assert [s["kind"] for s in steps] == ["bad-arguments", "unknown-tool"]
    assert steps[0]["arguments"] == '{"city": "Par'
    assert {f["outcome"] for f in receipt["findings"]} == {"not-reached"}
    # not one usable call: nothing was judged, and the run says so and fails (0.5.0 passed)
    assert code == ExitCode.FAILED, err
    health = receipt["health"]
    runs = len(receipt["findings"]) + len(receipt["documentationProbes"])
    assert health["unparseableArguments"] == health["unknownToolCalls"] >= runs
    reasons = {item["reason"] for item in health["unjudged"]}
    assert "the agent made no usable call (unknown tools, arguments that are not JSON)" in reasons
    assert "unjudged: geocode agent-reachable finding " in out
    assert "agent: could not judge" in out and "(agent.unjudged: fail;" in out


def test_a_model_that_never_stops_calling_ends_at_the_step_limit(
    tmp_path: Path, receipts: Path
) -> None:
    def script(body: dict[str, Any]) -> Any:
        if "You write realistic" in body["messages"][0]["content"]:
            return Turn("Where is Paris, France?")
        return Turn(calls=(PARIS_FRANCE,))

    _, (code, out, err, asked) = _record(tmp_path, receipts, script)
    assert code == ExitCode.FAILED, err  # the prompt sets were unusable: unjudged
    receipt = json.loads((tmp_path / "recorded" / "geocode.json").read_text("utf-8"))
    assert receipt["health"]["stepLimits"] == len(receipt["findings"]) + 1
    assert [i["what"] for i in receipt["health"]["unjudged"]] == ["prompt set 1", "prompt set 2"]
    said = "the model's prompt set could not be read"
    assert f"unjudged: geocode agent-correctness prompt set 1: {said}" in out
    runs = [f["agent"] for f in receipt["findings"]]
    assert {(r["outcome"], r["replies"], len(r["steps"])) for r in runs} == {("step-limit", 6, 6)}
    # and one probe request, its one prompt's run, two prompt-set requests (unusable here)
    assert len(asked) == len(runs) * 3 * 7 + 7 + 2  # three requests per finding: none reached
    (probe,) = receipt["documentationProbes"]
    assert (probe["agent"]["outcome"], probe["failing"]) == ("step-limit", False)


def test_an_endpoint_refusing_the_key_is_an_error_without_the_key(
    tmp_path: Path, receipts: Path
) -> None:
    echo = Canned(401, f'{{"error": {{"message": "Incorrect API key provided: {KEY}"}}}}')
    with LoopbackModel(sequence([echo])) as model:
        root = _repository(tmp_path, base_url=model.url, mode="live", api_key_env="KEY")
        code, out, err = _agent(root, receipts, tmp_path / "out", KEY=KEY)
    assert code == ExitCode.MODEL and "error[llm.forbidden]" in err and "HTTP 401" in err
    assert KEY not in err + out
    assert not (root / "c.json").exists()


def test_server_faults_are_retried_then_reported(tmp_path: Path, receipts: Path) -> None:
    waits: list[float] = []
    failing = sequence([Canned(429, "{}"), Canned(500, "{}")], then=MODEL)
    with LoopbackModel(failing) as model:
        root = _repository(tmp_path, base_url=model.url, mode="live")
        request = AgentRequest(root / "policy.yml", receipts, tmp_path / "out", sleep=waits.append)
        assert agent(request, io.StringIO()) == ExitCode.FAILED
    assert waits == [1.0, 2.0]
    with LoopbackModel(sequence([Canned(503, "down")] * 4)) as model:
        root = _repository(tmp_path / "down", base_url=model.url, mode="live")
        request = AgentRequest(root / "policy.yml", receipts, tmp_path / "o2", sleep=waits.append)
        with pytest.raises(LlmError) as raised:
            agent(request, io.StringIO())
    assert raised.value.code == "llm.failed" and "after 4 attempts" in raised.value.message


def test_a_policy_without_an_llm_section_is_a_usage_error(tmp_path: Path, receipts: Path) -> None:
    root = _repository(tmp_path)
    policy = root / "policy.yml"
    policy.write_text(policy.read_text("utf-8").split("llm:")[0], "utf-8")
    code, _, err = _agent(root, receipts, tmp_path / "out")
    assert code == ExitCode.USAGE and "has no llm section" in err


def test_a_reachable_note_alone_does_not_fail(tmp_path: Path, receipts: Path) -> None:
    script = agent_script(
        prompts=[(r"arguments:", "Where is Springfield, Freedonia?")],
        calls=[(r"Freedonia", FREEDONIA)],
    )
    _, (code, out, err, _) = _record(tmp_path, receipts, script, unjudged="note")
    assert code == ExitCode.PASSED, err
    assert "agent: 1 of 6 finding(s) agent-reachable, 0 of them counterexamples" in out
    # this model writes no prompt sets: with `agent.unjudged: note` that is said, not failed
    assert "(agent.unjudged: note;" in out
    assert "reachable: geocode note under-specified at /country" in out


def test_a_finding_two_seeds_found_is_tried_once(tmp_path: Path) -> None:
    root = _repository(tmp_path / "seeds")
    policy = root / "policy.yml"
    policy.write_text(
        policy.read_text(encoding="utf-8").replace("runs: 20", "runs: 20\n  seeds: [1, 2]"),
        "utf-8",
    )
    code, _, err = _invoke("run", "--policy", str(policy), "--out", str(root / "receipts"))
    assert code == ExitCode.FAILED, err
    first, second = (
        json.loads((root / "receipts" / f"geocode.seed-{seed}.json").read_text(encoding="utf-8"))
        for seed in (1, 2)
    )
    both = {c["fingerprint"] for c in first["counterexamples"]} & {
        c["fingerprint"] for c in second["counterexamples"]
    }
    assert both  # the planted crash is found by either seed
    script = agent_script(prompts=[(r"arguments:", "Where is Paris?")], calls=[("Paris", PARIS)])
    _, (code, _, err, _) = _record(root.parent / "agent", root / "receipts", script)
    tried = [
        json.loads((root.parent / "agent" / "recorded" / f"geocode.seed-{seed}.json").read_text())
        for seed in (1, 2)
    ]
    assert not both & {f["fingerprint"] for f in tried[1]["findings"]}
    again = {s["fingerprint"]: s["reason"] for s in tried[1]["skipped"]}
    assert set(again) >= both
    assert all(again[f] == "the same finding was tried from geocode.seed-1.json" for f in both)


def test_the_policy_fixed_arguments_are_bound_to_every_agent_call(
    tmp_path: Path, receipts: Path
) -> None:
    script = agent_script(prompts=[(r"arguments:", "Where is Paris?")], calls=[("Paris", PARIS)])
    with LoopbackModel(script) as model:
        root = _repository(tmp_path, "note", base_url=model.url, mode="record")
        policy = root / "policy.yml"
        text = policy.read_text("utf-8").replace(
            "    schema: geocode.schema.json\n",
            "    schema: geocode.schema.json\n    fixed_arguments: {/country: France}\n",
        )
        policy.write_text(text, "utf-8")
        code, _, err = _agent(root, receipts, tmp_path / "out")
    assert code == ExitCode.PASSED, err
    receipt = json.loads((tmp_path / "out" / "geocode.json").read_text("utf-8"))
    results = {
        step["result"]["outcome"] for f in receipt["findings"] for step in f["agent"]["steps"]
    }
    assert results == {"accepted"}  # Paris, France: the planted crash needs a missing country


def test_a_policy_passing_the_model_key_to_a_handler_is_refused(
    tmp_path: Path, receipts: Path
) -> None:
    root = _repository(tmp_path, api_key_env="OPENAI_API_KEY")
    policy = root / "policy.yml"
    text = policy.read_text("utf-8").replace(
        "      cwd: .\n", "      cwd: .\n      env: [OPENAI_API_KEY]\n", 1
    )
    policy.write_text(text, "utf-8")
    code, out, err = _agent(root, receipts, tmp_path / "out", OPENAI_API_KEY=KEY)
    assert code == ExitCode.USAGE, err
    assert "error[policy" in err and "OPENAI_API_KEY" in err and "handlers never get" in err
    assert KEY not in err + out
    assert not (tmp_path / "out").exists()


def _judging_model(judge: Sequence[str], usage: bool = True) -> Script:
    """A model that writes usable prompts and prompt sets, emulates the geocoder for the
    expected answer, calls it with the city the prompt names, and answers the oracle's
    requests with `judge`, in turn (again from the start once used up)."""
    prompt_set = json.dumps({"template": "Where is [A]?", "infills": ["Paris", "Paris, France"]})
    expectation = json.dumps({"emulated": ["France"] * 2, "expected": "It is in France."})
    judged = iter(list(judge) * 10)

    def script(body: dict[str, Any]) -> Any:
        system = str(body["messages"][0].get("content"))
        if "You write realistic" in system:
            return Turn("Where is Paris, France?", usage=usage)
        if "You write test requests" in system:
            return Turn(prompt_set, usage=usage)
        if "You emulate tools" in system:
            return Turn(expectation, usage=usage)
        if "You judge answers" in system:
            return Turn(next(judged), usage=usage)
        if body["messages"][-1]["role"] == "tool":
            return Turn("It is in France.", usage=usage)
        return Turn(calls=(PARIS_FRANCE,), usage=usage)

    return script


def test_float_oracle_scores_are_read_and_the_sets_judged(tmp_path: Path, receipts: Path) -> None:
    judge = ['{"score": 7.5, "reason": "the same"}', '{"score": "9", "reason": "the same"}']
    _, (code, out, err, _) = _record(tmp_path, receipts, _judging_model(judge))
    assert code == ExitCode.PASSED, err
    receipt = json.loads((tmp_path / "recorded" / "geocode.json").read_text("utf-8"))
    assert [entry["oracle"]["scores"] for entry in receipt["correctness"]] == [[8, 9], [8, 9]]
    assert receipt["correctness"][0]["oracle"]["reasons"] == ["the same"] * 2
    assert receipt["health"]["unjudged"] == [] and "could not judge" not in out


def test_an_oracle_answering_in_prose_leaves_the_sets_unjudged_and_fails(
    tmp_path: Path, receipts: Path
) -> None:
    model = _judging_model(["Both answers say the city is in France, so they agree."])
    _, (code, out, err, _) = _record(tmp_path, receipts, model)
    assert code == ExitCode.FAILED, err  # 0.5.0: passed, the oracle counted as agreeing
    receipt = json.loads((tmp_path / "recorded" / "geocode.json").read_text("utf-8"))
    assert receipt["health"]["unreadableReplies"] == 4  # two answers in each of two sets
    reasons = [(item["check"], item["reason"]) for item in receipt["health"]["unjudged"]]
    said = "the oracle's reply could not be read for 2 of 2 answer(s)"
    assert reasons == [("agent-correctness", said)] * 2
    assert "agent: could not judge 2 of " in out
    assert "0 of 2 prompt set(s) erroneous" in out
    _, (code, out, err, _) = _record(tmp_path / "noted", receipts, model, unjudged="note")
    assert code == ExitCode.PASSED, err
    assert "agent: could not judge 2 of " in out and "(agent.unjudged: note;" in out


def test_answers_without_usage_are_counted_and_charged_an_estimate(
    tmp_path: Path, receipts: Path
) -> None:
    model = _judging_model(['{"score": 9, "reason": "France"}'], usage=False)
    _, (code, out, err, asked) = _record(tmp_path, receipts, model)
    assert code == ExitCode.PASSED, err
    receipt = json.loads((tmp_path / "recorded" / "geocode.json").read_text("utf-8"))
    assert receipt["health"]["answersWithoutUsage"] == len(asked)
    assert receipt["budget"]["tokens"] >= len(asked)  # 0.5.0 charged 0: the budget never bit
    assert f"{len(asked)} without usage (estimated)" in out


def test_retries_are_counted_recorded_and_replayed_to_the_same_receipt(
    tmp_path: Path, receipts: Path
) -> None:
    failing = sequence([Canned(429, "{}"), Canned(500, "{}")], then=MODEL)
    with LoopbackModel(failing) as model:
        root = _repository(tmp_path, base_url=model.url, mode="record")
        request = AgentRequest(
            root / "policy.yml", receipts, tmp_path / "rec", sleep=lambda s: None
        )
        assert agent(request, out := io.StringIO()) == ExitCode.FAILED
        sent = len(model.requests)
    recorded = json.loads((tmp_path / "rec" / "geocode.json").read_text("utf-8"))
    assert recorded["health"]["retries"] == 2
    assert recorded["budget"]["requests"] == sent  # the two retries are requests of the budget
    assert f"llm: {sent} of 200 request(s)" in out.getvalue()
    _replay_policy(root)
    replayed = AgentRequest(root / "policy.yml", receipts, tmp_path / "rep")
    assert agent(replayed, io.StringIO()) == ExitCode.FAILED
    assert (tmp_path / "rep" / "geocode.json").read_bytes() == (
        tmp_path / "rec" / "geocode.json"
    ).read_bytes()


def test_the_tools_of_a_whole_entry_are_tried_each_under_its_own_name(tmp_path: Path) -> None:
    """A tools file without `tool:` stands for every tool it declares: agent mode finds each
    of them in the policy (it said "the policy has no tool" before)."""
    script = agent_script(prompts=[(r"arguments:", "Where is Paris?")], calls=[("Paris", PARIS)])
    with LoopbackModel(script) as model:
        root = _repository(tmp_path, base_url=model.url, mode="record")
        schema = json.loads((root / "geocode.schema.json").read_text(encoding="utf-8"))
        declared = [{"name": "geocode", "description": "Find a city.", "inputSchema": schema}]
        (root / "tools.json").write_text(json.dumps(declared), "utf-8")
        policy = root / "policy.yml"
        text = policy.read_text(encoding="utf-8")
        whole = text.replace("  - name: geocode\n    schema: geocode.schema.json\n",
                             "  - tools: tools.json\n")  # fmt: skip
        assert whole != text
        policy.write_text(whole, "utf-8")
        code, _, err = _invoke("run", "--policy", str(policy), "--out", str(root / "receipts"))
        assert code == ExitCode.FAILED, err
        code, out, err = _agent(root, root / "receipts", tmp_path / "tried")
    assert "the policy has no tool 'geocode'" not in out, out
    tried = json.loads((tmp_path / "tried" / "geocode.json").read_text(encoding="utf-8"))
    assert tried["findings"], tried
