"""Agent runs of a stateful tool start from the state the policy's reset restores: two
requests for the same note both create it, instead of the second meeting the first's note.

The tool is `tests/fixtures/agent_notes` (a note store that refuses a name it has); the
model is the loopback stand-in of `tests.llm_server`. Nothing leaves the machine.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.llm_server import Call, LoopbackModel, agent_script
from toolfuzz_gate.cli import run
from toolfuzz_gate.exitcodes import ExitCode

FIXTURE = Path(__file__).parent.parent / "fixtures" / "agent_notes"
ALPHA = Call("create", '{"name": "alpha"}')
MODEL = agent_script(
    prompts=[(r"different natural requests", "1. Save a note named alpha.\n2. Add alpha.\n")],
    calls=[(r"alpha", ALPHA)],
)


def _probe_outcomes(tmp_path: Path, reset: bool) -> list[Any]:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".git").mkdir()
    policy = root / "policy.yml"
    text = policy.read_text(encoding="utf-8")
    if not reset:
        text = "\n".join(line for line in text.splitlines() if "reset_command" not in line)
    policy.write_text(text + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run(["run", "--policy", str(policy), "--out", str(root / "receipts")], out, err, {})
    assert code in (ExitCode.PASSED, ExitCode.FAILED), err.getvalue()
    (root / "store.txt").unlink(missing_ok=True)
    with LoopbackModel(MODEL) as model:
        section = {"base_url": model.url, "model": "stand-in", "cassette": "c.json"}
        section["mode"] = "record"
        policy.write_text(policy.read_text("utf-8") + "llm: " + json.dumps(section) + "\n")
        argv = ["agent", "--policy", str(policy), "--receipts", str(root / "receipts")]
        code = run([*argv, "--out", str(root / "agent")], out, err, {})
    assert code in (ExitCode.PASSED, ExitCode.FAILED), err.getvalue()
    (receipt_file,) = sorted((root / "agent").glob("*.json"))
    receipt = json.loads(receipt_file.read_text(encoding="utf-8"))
    probes = receipt["documentationProbes"]
    assert [p["prompt"] for p in probes] == ["Save a note named alpha.", "Add alpha."]
    return [step["result"]["outcome"] for p in probes for step in p["agent"]["steps"]]


@pytest.mark.slow
def test_each_agent_run_starts_from_the_reset_state(tmp_path: Path) -> None:
    assert _probe_outcomes(tmp_path / "reset", reset=True) == ["accepted", "accepted"]


def test_without_a_declared_reset_the_state_carries_over(tmp_path: Path) -> None:
    # The control: the second request meets the note the first one created.
    assert _probe_outcomes(tmp_path / "kept", reset=False) == ["accepted", "rejected"]
