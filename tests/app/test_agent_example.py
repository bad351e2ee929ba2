"""The worked example `examples/agent-geocoder`, run as its README says: `agent` in replay
mode from the committed cassette finds the underspecified argument, marks the planted
runtime failure agent-reachable and verifies a description fix; twice, byte for byte, with
no connection made. And the committed cassette is what its scripted stand-in answers."""

from __future__ import annotations

import importlib.util
import io
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.cli import run
from toolfuzz_gate.exitcodes import ExitCode

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent-geocoder"


def example_copy(where: Path) -> Path:
    copy = where / "agent-geocoder"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _agent(example: Path, policy: str, out: Path) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["agent", "--policy", str(example / policy), "--root", str(example)]
    argv += ["--receipts", str(example / "receipts"), "--out", str(out)]
    code = run(argv, stdout, stderr, {})
    return code, stdout.getvalue(), stderr.getvalue()


def test_the_example_replays_its_findings_byte_for_byte_without_a_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = example_copy(tmp_path)
    connections: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        connections.append(address)
        raise OSError("no network in replay")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    runs = [_agent(example, "toolfuzz.yml", tmp_path / name) for name in ("one", "two")]
    assert connections == []
    (code, out, err), again = runs
    assert code == again[0] == ExitCode.FAILED, err
    first = (tmp_path / "one" / "geocode.json").read_bytes()
    assert first == (tmp_path / "two" / "geocode.json").read_bytes()
    assert out.replace("/one", "/two") == again[1]
    receipt = json.loads(first)

    (finding, note) = receipt["findings"]
    assert (finding["kind"], finding["failure"], finding["path"]) == (
        "counterexample",
        "crash",
        "/country",
    )
    assert finding["agentReachable"] is True
    (step,) = finding["agent"]["steps"]
    assert step["arguments"] == {"city": "Springfield", "country": "Freedonia"}
    assert step["result"]["outcome"] == "crash" and "KeyError" in step["result"]["said"]
    assert (note["kind"], note["outcome"]) == ("note", "reachable")

    erroneous, consistent = receipt["correctness"]
    assert erroneous["erroneous"] is True and erroneous["underspecified"] == ["country"]
    checks = [erroneous[k] for k in ("inputConsistent", "outputConsistent", "answersAgree")]
    assert checks == [False, False, False]
    calls = [run_["steps"][0]["arguments"] for run_ in erroneous["runs"]]
    assert calls == [
        {"city": "Paris"},
        {"city": "Paris", "country": "France"},
        {"city": "Paris"},
    ]
    assert '"country":"US"' in erroneous["runs"][0]["steps"][0]["result"]["output"]  # Texas
    # the expected answer comes from emulating the tool, not from the agent's answers: the
    # two prompts that got Paris, Texas fail, though they are the majority
    assert erroneous["oracle"]["expected"] == "Paris is in France."
    assert erroneous["oracle"]["scores"] == [2, 10, 2]
    assert erroneous["failingPrompts"] == ["Where is Paris?", "Where is the city of Paris?"]
    fix = erroneous["refinement"]
    assert "Always give it" in fix["suggestion"]["arguments"]["country"]
    assert (fix["failureRateBefore"], fix["failureRateAfter"], fix["verified"]) == (
        0.6667,
        0.0,
        True,
    )
    assert fix["rerun"]["inputConsistent"] is True
    # The schema campaign's verified fix for the same argument removes it: it contradicts the
    # description fix ("always give it"), so it is dropped, with the reason.
    assert fix["schemaPatches"] == []
    (patch,) = fix["droppedSchemaPatches"]
    assert patch["patch"] == [{"op": "remove", "path": "/properties/country"}]
    assert patch["fingerprint"] == "69c8a3b551e4aa29103272c7"
    assert "removes country" in patch["reason"]
    assert consistent["erroneous"] is False and consistent["refinement"] is None
    assert consistent["template"] == "What are the coordinates of [A] in [B]?"  # two slots
    assert consistent["infills"][0] == {"A": "Springfield", "B": "the United States"}
    assert receipt["summary"]["erroneous"] == receipt["summary"]["refinementsVerified"] == 1
    assert (
        "erroneous: geocode prompt set 'Where is [A]?'; underspecified: country; description "
        "fix verified (failure rate 0.6667 -> 0.0)" in out
    )
    assert "reachable: geocode counterexample crash at /country" in out
    assert "llm: 42 of 200 request(s)" in out and "(replay)" in out


@contextmanager
def stand_in(example: Path, policy: str = "record.yml") -> Iterator[Path]:
    """The example's scripted stand-in on a free port of 127.0.0.1, and `policy`: the
    example's policy recording against it into `recorded.json`."""
    spec = importlib.util.spec_from_file_location("stand_in_model", EXAMPLE / "stand_in_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server = module.serve(0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        text = (example / "toolfuzz.yml").read_text("utf-8")
        port = server.server_address[1]
        text = text.replace("mode: replay", "mode: record").replace(
            "cassette: cassette.json", "cassette: recorded.json"
        )
        (example / policy).write_text(text.replace(":8765/", f":{port}/"), "utf-8")
        yield example / policy
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_the_committed_cassette_is_what_the_stand_in_answers(tmp_path: Path) -> None:
    example = example_copy(tmp_path)
    with stand_in(example):
        code, _, err = _agent(example, "record.yml", tmp_path / "recorded")
    assert code == ExitCode.FAILED, err
    assert (example / "recorded.json").read_bytes() == (EXAMPLE / "cassette.json").read_bytes()
