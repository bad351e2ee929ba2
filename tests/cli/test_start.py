"""A command imports what it uses: `--version` and `--help` load no engine, no validator
library and no HTTP client; the built-in run, a policy run of the built-in contract
(`app.front_doors`), loads the engine and the policy run's modules but neither `jsonschema`
(nothing to confirm) nor an HTTP client nor agent mode; `fuzz` and a policy run whose
`fail_on` lists no agent check load no HTTP client or agent mode either; agent mode loads
its client.

Each command runs in a fresh interpreter (the test process has imported everything), which
prints the modules it holds when it exits. Not timed: `bench/bench_start.py` measures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import atexit, json, sys
from toolfuzz_gate.cli import main
atexit.register(lambda: print("MODULES " + json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["toolfuzz-gate", *json.loads(sys.argv[1])]
sys.exit(main())
"""

HTTP_AND_AGENT = ("requests", "urllib3", "toolfuzz_gate.app.agent", "toolfuzz_gate.edges.llm")
ENGINE = ("toolfuzz_gate.core.campaign.tool_fuzz", "toolfuzz_gate.core.engine.generate")


def _loaded(argv: list[str], cwd: Path) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), *sys.path])},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    assert lines, done.stderr
    return done.returncode, set(json.loads(lines[-1].removeprefix("MODULES ")))


def _within(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"]])
def test_version_and_help_load_neither_engine_nor_libraries(
    argv: list[str], tmp_path: Path
) -> None:
    code, modules = _loaded(argv, tmp_path)
    assert code == 0
    assert _within(modules, ("jsonschema", "referencing", "yaml", *HTTP_AND_AGENT, *ENGINE)) == []


def test_the_builtin_run_loads_the_engine_but_no_reference_library_or_http(
    tmp_path: Path,
) -> None:
    code, modules = _loaded(["run", "--runs", "5", "--out", "receipts"], tmp_path)
    assert code == 0
    assert (tmp_path / "receipts" / "renderPoster.json").is_file()
    assert set(ENGINE) <= modules  # it did fuzz: the probe sees what the command loaded
    assert _within(modules, ("jsonschema", *HTTP_AND_AGENT)) == []


@pytest.mark.slow
def test_fuzz_and_a_policy_run_without_agent_checks_load_no_http_client(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "echo_tool.py").write_text("def echo(**arguments):\n    return arguments\n")
    (tmp_path / "echo.json").write_text(
        '{"type": "object", "properties": {"a": {"type": "integer"}}}'
    )
    tool = "{name: echo, schema: echo.json, handler: {python: echo_tool:echo}}"
    (tmp_path / "policy.yml").write_text(f"version: 1\ntools:\n  - {tool}\n")
    for argv in (
        ["fuzz", "--schema", "echo.json", "--handler", "python:echo_tool:echo", "--runs", "5"],
        ["run", "--policy", "policy.yml", "--runs", "5", "--out", "policy-out"],
    ):
        code, modules = _loaded(argv, tmp_path)
        assert code in (0, 1), argv
        assert set(ENGINE) <= modules
        assert _within(modules, HTTP_AND_AGENT) == [], argv


def test_agent_mode_loads_its_http_client(tmp_path: Path) -> None:
    """The other side of the split: the client is lazy, not gone (a missing policy stops
    the command after its modules are loaded)."""
    code, modules = _loaded(
        ["agent", "--policy", "missing.yml", "--receipts", str(tmp_path)], tmp_path
    )
    assert code == 2
    assert "toolfuzz_gate.app.agent" in modules
    assert "requests" in modules
