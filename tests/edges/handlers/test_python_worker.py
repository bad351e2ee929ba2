"""The python:MODULE:FUNCTION adapter against real worker processes and real fixture modules."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.processes import alive, process_gone
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_compact, digest
from toolfuzz_gate.edges.handlers.base import RESPONSE_SLACK_BYTES
from toolfuzz_gate.edges.handlers.python_worker import (
    PythonSpec,
    PythonWorkerHandler,
    WorkerOptions,
)
from toolfuzz_gate.errors import HandlerError

MakeHandler = Callable[..., PythonWorkerHandler]


def worker_pid(handler: PythonWorkerHandler) -> int:
    pid = handler.worker_pid
    assert pid is not None
    return pid


# --- spec parsing -------------------------------------------------------------------------


def test_parse_reads_module_and_function() -> None:
    spec = PythonSpec.parse("python:pkg.poster:render_poster", rejects=["pkg.errors:ToolError"])
    assert (spec.module, spec.function) == ("pkg.poster", "render_poster")
    assert spec.rejects == ("pkg.errors:ToolError",)
    assert spec.text == "python:pkg.poster:render_poster"


@pytest.mark.parametrize(
    "text",
    [
        "poster:render",
        "python:poster",
        "python::render",
        "python:poster:",
        "python:po-ster:f",
        "python:poster:render:extra",
        "python:poster.:f",
        "command:poster:f",
    ],
)
def test_parse_refuses_malformed_specs(text: str) -> None:
    with pytest.raises(HandlerError, match="python:MODULE:FUNCTION"):
        PythonSpec.parse(text)


@pytest.mark.parametrize(
    ("rejects", "effects"),
    [(["ToolError"], None), ("builtins:ValueError", None), ((), "poster"), ((), "poster:a:b")],
)
def test_parse_refuses_malformed_references(rejects: tuple[str, ...], effects: str | None) -> None:
    with pytest.raises(HandlerError):
        PythonSpec.parse("python:poster:render", rejects=rejects, effects=effects)


# --- outcomes -----------------------------------------------------------------------------


def test_accepted_output_is_digested_and_measured(make_handler: MakeHandler) -> None:
    handler = make_handler("python:echo:echo")
    arguments: JSONObject = {"width": 3, "title": "café", "tags": ["a"]}
    outcome = handler.call(arguments)
    assert outcome.kind is OutcomeKind.ACCEPTED
    assert outcome.output_digest == digest(arguments)
    assert outcome.output_bytes == len(canonical_compact(arguments))
    assert not outcome.output_capped
    assert not outcome.effects_observed
    assert handler.describe() == "python:echo:echo"


def test_value_error_is_a_rejection_coded_by_class_name(make_handler: MakeHandler) -> None:
    outcome = make_handler("python:faulty:reject_value").call({"width": -1})
    assert outcome.kind is OutcomeKind.REJECTED
    assert (outcome.error_code, outcome.error_path) == ("ValueError", None)


def test_custom_reject_class_supplies_code_and_path(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:reject_tool", rejects=("faulty:ToolError",))
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.REJECTED
    assert (outcome.error_code, outcome.error_path) == ("policy-pixel-budget", "/width")


def test_subclass_of_reject_class_with_non_string_code_uses_class_name(
    make_handler: MakeHandler,
) -> None:
    outcome = make_handler("python:faulty:reject_subclass", rejects=("faulty:ToolError",)).call({})
    assert (outcome.kind, outcome.error_code) == (OutcomeKind.REJECTED, "BudgetError")


def test_exception_outside_rejects_is_a_crash(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:reject_value", rejects=("faulty:ToolError",))
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.message.startswith("ValueError: width must be positive")


def test_unexpected_exception_is_a_crash_naming_type_and_place(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:crash")
    pid = worker_pid(handler)
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.message.startswith("KeyError: 'missing'")
    assert "faulty.py:" in outcome.message
    assert handler.worker_pid == pid, "an exception in the handler does not cost the worker"


@pytest.mark.parametrize("function", ["unserializable", "not_a_number"])
def test_non_json_return_value_is_a_crash(make_handler: MakeHandler, function: str) -> None:
    handler = make_handler(f"python:faulty:{function}")
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH
    assert "not JSON" in outcome.message


def test_coroutine_functions_are_awaited(make_handler: MakeHandler) -> None:
    outcome = make_handler("python:echo:async_echo").call({"n": 1})
    assert (outcome.kind, outcome.output_digest) == (OutcomeKind.ACCEPTED, digest({"n": 1}))


def test_effects_snapshots_bracket_each_call(make_handler: MakeHandler) -> None:
    handler = make_handler("python:stateful:commit", effects="stateful:snapshot")
    first = handler.call({})
    dry = handler.call({"dry_run": True})
    assert first.effects_observed
    assert (first.effects_before, first.effects_after) == ({"commits": 0}, {"commits": 1})
    assert first.committed_change
    assert (dry.effects_before, dry.effects_after) == ({"commits": 1}, {"commits": 1})
    assert not dry.committed_change


def test_rejections_carry_effects(make_handler: MakeHandler) -> None:
    handler = make_handler("python:stateful:commit_then_reject", effects="stateful:snapshot")
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.REJECTED
    assert outcome.committed_change


def test_unserializable_effects_snapshot_is_a_crash(make_handler: MakeHandler) -> None:
    outcome = make_handler("python:stateful:commit", effects="stateful:bad_snapshot").call({})
    assert outcome.kind is OutcomeKind.CRASH
    assert "effects snapshot" in outcome.message


# --- the worker's protocol channel --------------------------------------------------------


def test_handler_output_on_stdout_and_stderr_does_not_corrupt_the_protocol(
    make_handler: MakeHandler,
) -> None:
    handler = make_handler("python:echo:noisy")
    for n in range(3):  # 900 KB of stderr in all: far past any pipe buffer
        outcome = handler.call({"n": n})
        assert (outcome.kind, outcome.output_digest) == (OutcomeKind.ACCEPTED, digest({"n": n}))


def test_handler_reading_stdin_sees_nothing(make_handler: MakeHandler) -> None:
    handler = make_handler("python:echo:read_stdin")
    assert handler.call({}).output_digest == digest("")
    assert handler.call({}).output_digest == digest("")


# --- failures that cost the worker --------------------------------------------------------


def test_hang_times_out_and_the_next_call_gets_a_fresh_worker(make_handler: MakeHandler) -> None:
    handler = make_handler("python:echo:nap", timeout_s=0.3)
    pid = worker_pid(handler)
    started = time.monotonic()
    outcome = handler.call({"seconds": 600})
    assert time.monotonic() - started < 5
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert handler.worker_pid is None
    assert process_gone(pid)
    assert handler.call({"seconds": 0}).output_digest == digest(0)
    assert worker_pid(handler) != pid


def test_a_call_that_never_returns_times_out_every_time(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:hang", timeout_s=0.3)
    assert [handler.call({}).kind for _ in range(2)] == [OutcomeKind.TIMEOUT] * 2


@pytest.mark.slow
def test_timeout_kills_processes_the_handler_started(
    make_handler: MakeHandler, tmp_path: Path
) -> None:
    handler = make_handler("python:faulty:hang_with_child", timeout_s=1.0)
    pidfile = tmp_path / "child.pid"
    outcome = handler.call({"pidfile": str(pidfile)})
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert process_gone(int(pidfile.read_text()))


def test_huge_output_is_capped_and_the_worker_restarts(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:huge", max_output_bytes=1000)
    pid = worker_pid(handler)
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.ACCEPTED
    assert outcome.output_capped
    assert outcome.output_bytes == 1000 + RESPONSE_SLACK_BYTES + 1
    assert outcome.output_digest is None
    assert process_gone(pid)
    assert handler.call({}).output_capped


def test_worker_exit_is_a_crash_and_the_next_call_restarts(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:exit_now")
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH
    assert "exited during the call" in outcome.message
    assert "exit code 3" in outcome.message
    assert "about to exit" in outcome.message
    assert handler.call({}).kind is OutcomeKind.CRASH


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the memory limit is enforced on Linux"
)
def test_memory_limit_turns_a_big_allocation_into_resource_exhaustion(
    make_handler: MakeHandler,
) -> None:
    handler = make_handler("python:faulty:allocate", memory_limit_bytes=512 * 2**20)
    assert handler.call({"size": 2**20}).kind is OutcomeKind.ACCEPTED
    outcome = handler.call({"size": 2 * 2**30})
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.exhausted == "memory 512 MB"
    assert outcome.message.startswith("memory 512 MB limit reached: MemoryError")


# --- startup, environment, cleanup --------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "rejects", "effects", "expected"),
    [
        ("python:no_such_module_xyz:f", (), None, "ModuleNotFoundError"),
        ("python:echo:no_such_function", (), None, "AttributeError"),
        ("python:echo:echo", ("faulty:NoSuchError",), None, "AttributeError"),
        ("python:echo:echo", ("faulty:crash",), None, "not an exception class"),
        ("python:echo:echo", (), "stateful:COMMITS", "not callable"),
    ],
)
def test_unimportable_handler_is_a_handler_error(
    make_handler: MakeHandler,
    spec: str,
    rejects: tuple[str, ...],
    effects: str | None,
    expected: str,
) -> None:
    with pytest.raises(HandlerError) as caught:
        make_handler(spec, rejects=rejects, effects=effects)
    assert caught.value.message.startswith(f"{spec}: cannot import the handler")
    assert expected in caught.value.message


def test_module_raising_at_import_is_a_handler_error(
    make_handler: MakeHandler, tmp_path: Path
) -> None:
    (tmp_path / "explodes.py").write_text("raise RuntimeError('no config file')\n")
    with pytest.raises(HandlerError, match="RuntimeError: no config file"):
        make_handler("python:explodes:f", extra_pythonpath=(str(tmp_path),))


def test_worker_imports_modules_from_the_working_directory(
    make_handler: MakeHandler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mymodule.py").write_text("def fn(n):\n    return n * 2\n")
    monkeypatch.chdir(tmp_path)
    handler = make_handler("python:mymodule:fn", extra_pythonpath=())
    assert handler.call({"n": 21}).output_digest == digest(42)
    assert not (tmp_path / "__pycache__").exists()


def test_handler_environment_is_scrubbed(
    make_handler: MakeHandler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GITHUB_TOKEN", "INPUT_X", "ACTIONS_RUNTIME_TOKEN", "MY_SECRET", "POSTER_DPI"):
        monkeypatch.setenv(name, "value-the-handler-must-not-see")
    handler = make_handler("python:echo:dump_environment", env_passthrough=("POSTER_DPI",))
    dump = tmp_path / "env.json"
    assert handler.call({"path": str(dump)}).kind is OutcomeKind.ACCEPTED
    environment = json.loads(dump.read_text())
    for name in ("GITHUB_TOKEN", "INPUT_X", "ACTIONS_RUNTIME_TOKEN", "MY_SECRET"):
        assert name not in environment
    assert environment["POSTER_DPI"] == "value-the-handler-must-not-see"
    assert "PATH" in environment


def test_passing_a_gate_secret_through_is_refused(make_handler: MakeHandler) -> None:
    with pytest.raises(HandlerError, match="GITHUB_TOKEN"):
        make_handler("python:echo:echo", env_passthrough=("GITHUB_TOKEN",))


def test_close_leaves_no_process(make_handler: MakeHandler) -> None:
    with make_handler("python:echo:whoami") as handler:
        pid = worker_pid(handler)
        assert handler.call({}).output_digest == digest(pid)
    assert handler.worker_pid is None
    assert process_gone(pid)


def test_close_kills_a_worker_stuck_in_a_call(make_handler: MakeHandler) -> None:
    handler = make_handler("python:faulty:hang", timeout_s=0.3)
    pid = worker_pid(handler)
    handler.close()
    assert process_gone(pid)


_INTERRUPTED_GATE = """
import os, signal, sys, threading
from toolfuzz_gate.edges.handlers.python_worker import (
    PythonSpec, PythonWorkerHandler, WorkerOptions,
)
handler = PythonWorkerHandler(
    PythonSpec.parse(sys.argv[1]), WorkerOptions(timeout_s=60, extra_pythonpath=(sys.argv[2],))
)
print(handler.worker_pid, flush=True)
if sys.argv[1] == "python:stubborn:ping":
    raise KeyboardInterrupt  # between calls: only the exit hook can kill this worker
signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with it ignored
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
handler.call({})  # Ctrl-C arrives while the worker is stuck in the call
"""


@pytest.mark.parametrize("spec", ["python:stubborn:ping", "python:faulty:hang"])
def test_keyboard_interrupt_in_the_gate_leaves_no_worker(spec: str, fixtures_dir: Path) -> None:
    gate = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_GATE, spec, str(fixtures_dir)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "KeyboardInterrupt" in gate.stderr
    # No grace period: the gate must have killed the worker before it exited itself.
    assert not alive(int(gate.stdout.split()[0]))


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        WorkerOptions(timeout_s=0)
