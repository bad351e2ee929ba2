"""`run --policy --baseline REF --jobs N`: the same files whatever N (issue 17).

The fixture is `tests/fixtures/gate_speed/` in a real git repository (the base commit with
its `base/` laid over it, then the head): tools of one MCP server built with the official
SDK, a `python:` handler and a `command` handler, with findings on both sides and one new
on the head. With two jobs the base runs beside the head and the tools beside each other;
every file written must still be byte for byte the serial run's.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import commit, init_repository
from toolfuzz_gate.cli import run

FIXTURE = Path(__file__).parents[1] / "fixtures" / "gate_speed"
TOOLS = ("divide", "slugify", "greet", "word_count", "checksum")

pytestmark = pytest.mark.slow


def fixture_repository(root: Path) -> str:
    """The fixture as a repository at `root`, its head checked out; the base commit."""
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("base", "__pycache__"))
    policy = root / "policy.yml"
    policy.write_text(policy.read_text("utf-8").replace("PYTHON", json.dumps(sys.executable)))
    head = {path: path.read_bytes() for path in root.rglob("*") if path.is_file()}
    init_repository(root)
    for layered in (FIXTURE / "base").rglob("*"):
        shutil.copy(layered, root / layered.relative_to(FIXTURE / "base"))
    base = commit(root, "base")
    for path, content in head.items():
        path.write_bytes(content)
    commit(root, "head")
    return base


def gate(root: Path, base: str, out: Path, *flags: str) -> tuple[int, str]:
    picked = [word for tool in TOOLS for word in ("--tool", tool)]
    argv = ["run", "--policy", str(root / "policy.yml"), "--baseline", base, "--runs", "12"]
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([*argv, *picked, "--out", str(out), *flags], stdout, stderr)
    assert "Traceback" not in stderr.getvalue(), stderr.getvalue()
    return code, stdout.getvalue()


def files(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_two_jobs_write_the_serial_runs_files_byte_for_byte(tmp_path: Path) -> None:
    root, out = tmp_path / "repo", tmp_path / "out"
    base = fixture_repository(root)
    # one output directory for both: the reports name it
    serial_code, serial_printed = gate(root, base, out, "--jobs", "1")
    serial = files(out)
    shutil.rmtree(out)
    parallel_code, parallel_printed = gate(root, base, out, "--jobs", "2")
    parallel = files(out)
    assert serial_code == parallel_code == 1  # slugify's crash is new on the head
    assert sorted(serial) == sorted(parallel)
    assert {f"{tool}.json" for tool in TOOLS} <= set(serial)
    for name, content in serial.items():
        assert parallel[name] == content, name
    diff = json.loads(serial["diff.json"])
    new = {item["tool"]: len(item["counterexamples"]["new"]) for item in diff["tools"]}
    # the server's tools also run as one stateful campaign (`stateful:SERVER`), nothing new
    assert new == {tool: int(tool == "slugify") for tool in TOOLS} | {"stateful:notes_server": 0}
    assert diff["totals"]["stillFailing"] > 0  # the base ran, and found what the head has
    # both runs told every tool of both sides, each as it started and as it ended
    for printed in (serial_printed, parallel_printed):
        lines = printed.splitlines()
        for side in ("[base] ", ""):
            for tool in TOOLS:
                assert lines.count(f"{side}{tool}: seed 41, 12 runs ...") == 1
                ended = [line for line in lines if line.startswith(f"{side}{tool}: ")]
                assert sum(" findings, " in line for line in ended) == 1


def test_the_base_receipts_are_the_serial_runs_too(tmp_path: Path) -> None:
    """`--diagnostics` keeps the base's receipts in OUT/base; their hashed content (all
    but the unhashed `diagnostics` block) is the same whatever the jobs."""
    root = tmp_path / "repo"
    base = fixture_repository(root)
    kept = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs-{jobs}"
        gate(root, base, out, "--jobs", jobs, "--diagnostics")
        receipts = {}
        for name, content in files(out / "base").items():
            document = json.loads(content)
            if not name.startswith("stateful_"):  # a stateful receipt keeps no profile
                assert "profile" in document.pop("diagnostics")
            receipts[name] = document
        kept.append(receipts)
    assert {f"{tool}.json" for tool in TOOLS} | {"stateful_notes_server.json"} == set(kept[0])
    assert kept[0] == kept[1]
