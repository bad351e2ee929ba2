"""One conformance suite over every adapter: the same renderPoster tool, implemented as a
Python function, a stdio program, an HTTP server and an MCP server, each correct and with
one planted bug. Each bug is found with the right failure class and a shrunk input; the
correct versions yield nothing; no process is left behind.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.processes import children_of
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.gate.handler_kinds import POLICY_KINDS
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TIMEOUT_MS = 400
STATE = (
    "import json, sys, urllib.request\nprint(urllib.request.urlopen(sys.argv[1]).read().decode())"
)
TOOL = ToolSpec(
    poster.TOOL_NAME,
    expected_rejections=poster.EXPECTED_REJECTIONS,
    error_codes=poster.ERROR_CODES,
    dry_run=poster.DRY_RUN,
)


@dataclass(frozen=True)
class Expected:
    """What the suite must see for one fault: a failure class on an input kind, and a
    property of the shrunk input (the trigger kept, the rest simplified)."""

    failure: str
    kind: str
    shrunk: Callable[[dict[str, Any]], bool]


def simple(arguments: dict[str, Any], *keep: str) -> bool:
    """The members not named in `keep` are at their simplest."""
    simplest = {"width": 64, "height": 64, "palette": ["aaaa"], "title": "a"}
    return all(arguments.get(k) == v for k, v in simplest.items() if k not in keep)


EXPECTED: dict[str, Expected | None] = {
    "correct": None,
    "crash": Expected("crash", "valid", lambda a: len(a["title"]) == 1 and simple(a, "title")),
    "hang": Expected("hung", "valid", lambda a: a["width"] == 65),
    "lax": Expected(
        "hostile-accepted", "hostile", lambda a: a["width"] == 401 and simple(a, "width")
    ),
    "commit-first": Expected("mutation-on-rejection", "hostile", lambda a: len(a) <= 6),
    "flood": Expected(
        "output-unbounded", "valid", lambda a: a["height"] == 65 and simple(a, "height")
    ),
    "garbage": Expected("crash", "valid", lambda a: len(a["title"]) == 80 and simple(a, "title")),
    "exit": Expected("crash", "valid", lambda a: len(a["palette"]) == 5 and simple(a, "palette")),
}


def python_config(
    fault: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Generator[HandlerConfig, None, None]:
    monkeypatch.setenv("PYTHONPATH", str(FIXTURES / "conformance"))
    function = fault.replace("-", "_")
    yield HandlerConfig(
        "python",
        f"poster_python:{function}",
        rejects=("toolfuzz_gate.contract.poster:ToolError",),
        effects="poster_python:snapshot",
        timeout_ms=TIMEOUT_MS,
    )


def command_config(
    fault: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Generator[HandlerConfig, None, None]:
    script = FIXTURES / "stdio_tool" / "poster_stdio.py"
    yield HandlerConfig(
        "command", argv=(sys.executable, str(script), "--fault", fault), timeout_ms=TIMEOUT_MS
    )


def http_config(
    fault: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Generator[HandlerConfig, None, None]:
    script = FIXTURES / "http_tool" / "poster_http.py"
    state = tmp / "state"
    state.mkdir()
    argv = [sys.executable, str(script), "--fault", fault, "--state-file", str(state / "n.json")]
    with (tmp / "server.log").open("wb") as log:
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base = f"http://127.0.0.1:{port}"
        # The server keeps its committed count in a file: a directory probe sees it.
        yield HandlerConfig(
            "http", f"{base}/render", timeout_ms=TIMEOUT_MS, effects_directory=str(state)
        )
    finally:
        server.kill()
        server.wait(timeout=10)
        assert server.stdout is not None
        server.stdout.close()


def mcp_config(
    fault: str, tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> Generator[HandlerConfig, None, None]:
    script = FIXTURES / "mcp_tool" / "poster_mcp.py"
    planted = () if fault == "correct" else ("--fault", fault)
    yield HandlerConfig(
        "mcp",
        "render_poster",
        argv=(sys.executable, str(script), *planted),
        effects="state",
        timeout_ms=TIMEOUT_MS * 4,  # an SDK server answers in about a millisecond, not less
    )


ADAPTERS: dict[str, Callable[..., Generator[HandlerConfig, None, None]]] = {
    "python": python_config,
    "command": command_config,
    "http": http_config,
    "mcp": mcp_config,
}


def test_the_suite_runs_every_kind_a_policy_may_name() -> None:
    assert sorted(ADAPTERS) == sorted(POLICY_KINDS)


# Where a transport cannot show a fault, the suite says so instead of skipping it.
IMMUNE = {
    ("python", "garbage"): "the worker keeps the handler's prints off its protocol channel",
    ("mcp", "garbage"): "stray non-JSON lines are tolerated as server logs, and counted",
}
# A server that exits stays down: every later call crashes whatever its input, so the
# shrinker rightly keeps nothing of the trigger. The crash itself must still be found.
UNSHRINKABLE = {("http", "exit")}


@contextmanager
def no_new_children() -> Iterator[None]:
    import os

    before = children_of(os.getpid())
    yield
    import time

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = children_of(os.getpid()) - before
        if not left:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes left behind: {sorted(left)}")


@pytest.mark.slow
@pytest.mark.parametrize("fault", list(EXPECTED))
@pytest.mark.parametrize("adapter", list(ADAPTERS))
def test_adapter_finds_the_planted_fault(
    adapter: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configs = ADAPTERS[adapter](fault, tmp_path, monkeypatch)
    config = next(configs)
    try:
        with no_new_children():
            with build_handler(config) as handler:
                result = fuzz(
                    poster.SCHEMA,
                    handler,
                    TOOL,
                    FuzzConfig(41, 24),
                    handler_label=config.label(),
                    replay_command="conformance",
                )
    finally:
        configs.close()
    examples: list[Any] = result.receipt.document()["counterexamples"]  # type: ignore[assignment]
    expected = None if (adapter, fault) in IMMUNE else EXPECTED[fault]
    if expected is None:
        assert examples == []
        return
    matching = [
        c for c in examples if c["failure"] == expected.failure and c["inputKind"] == expected.kind
    ]
    assert matching, [(c["failure"], c["inputKind"], c["path"]) for c in examples]
    example = matching[0]
    if (adapter, fault) not in UNSHRINKABLE:
        assert expected.shrunk(example["input"]), example["input"]
    assert example["sizes"][-1] <= example["sizes"][0]
    unexpected = {c["failure"] for c in examples} - {expected.failure}
    assert not unexpected - ALSO_SEEN.get(fault, set()), unexpected


# Faults whose one bug legitimately shows under a second class too.
ALSO_SEEN: dict[str, set[str]] = {
    "commit-first": {"dry-run-mutation"},
}
