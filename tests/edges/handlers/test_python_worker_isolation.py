"""The Python worker imports from the gate's directory but runs in a temporary one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler

WRITER = """
import os

def write(**arguments):
    with open("written.txt", "w") as handle:
        handle.write("x")
    return {"cwd": os.getcwd()}
"""


def test_relative_writes_stay_out_of_the_gate_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "writer_tool.py").write_text(WRITER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with build_handler(HandlerConfig("python", "writer_tool:write")) as handler:
        outcome = handler.call({})
        assert outcome.kind is OutcomeKind.ACCEPTED
    assert not (tmp_path / "written.txt").exists()
    leftovers = [p for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("toolfuzz-python-*")]
    assert all(not (p / "written.txt").exists() for p in leftovers)


def test_a_configured_directory_is_used_as_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "writer_tool.py").write_text(WRITER, encoding="utf-8")
    config = HandlerConfig("python", "writer_tool:write", cwd=str(tmp_path))
    with build_handler(config) as handler:
        assert handler.call({}).kind is OutcomeKind.ACCEPTED
    assert (tmp_path / "written.txt").exists()
