"""The command: [ARGV...] adapter against real JSON-lines processes (tests/fixtures/stdio_tool)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import alive, process_gone
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest, digest_and_size
from toolfuzz_gate.edges.handlers.base import RESPONSE_SLACK_BYTES
from toolfuzz_gate.edges.handlers.command import CommandHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
from toolfuzz_gate.errors import HandlerError

STDIO = Path(__file__).resolve().parents[2] / "fixtures" / "stdio_tool"
POSTER = str(STDIO / "poster_stdio.py")
ECHO = str(STDIO / "echo_stdio.py")
VALID: JSONObject = {
    "title": "Harbour",
    "format": "png",
    "width": 200,
    "height": 100,
    "palette": ["#fff", "#000"],
}

MakeHandler = Callable[..., CommandHandler]


def poster_argv(fault: str = "correct") -> tuple[str, ...]:
    return (sys.executable, POSTER, "--fault", fault)


def with_(**changes: Any) -> JSONObject:
    return {**VALID, **changes}


@pytest.fixture
def make_handler() -> Iterator[MakeHandler]:
    """Builds command handlers and closes them all after the test."""
    made: list[CommandHandler] = []

    def make(
        argv: tuple[str, ...], *, startup_probe_s: float = 0.5, **options: Any
    ) -> CommandHandler:
        handler = CommandHandler(
            HandlerConfig("command", argv=argv, **options), startup_probe_s=startup_probe_s
        )
        made.append(handler)
        return handler

    yield make
    for handler in made:
        handler.close()


def pid_of(handler: CommandHandler) -> int:
    pid = handler.worker_pid
    assert pid is not None
    return pid


def assert_still_works(handler: CommandHandler, old_pid: int) -> None:
    assert process_gone(old_pid)
    outcome = handler.call(VALID)
    assert outcome.kind is OutcomeKind.ACCEPTED
    assert pid_of(handler) != old_pid


pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="process checks read /proc"
)


# --- the correct tool ---------------------------------------------------------------------


def test_valid_call_is_accepted_with_the_tools_output(make_handler: MakeHandler) -> None:
    outcome = make_handler(poster_argv()).call(VALID)
    expected = poster.PosterService().render_poster(**VALID)
    assert outcome.kind is OutcomeKind.ACCEPTED
    assert (outcome.output_digest, outcome.output_bytes) == digest_and_size(expected)
    assert not outcome.output_capped


@pytest.mark.parametrize(
    ("arguments", "code", "path"),
    [
        (with_(width=401), "schema-range", "/width"),
        (with_(title=""), "schema-length", "/title"),
        (with_(extra=1), "schema-unknown-key", "/extra"),
        (with_(width=400, height=400), "policy-pixel-budget", ""),
    ],
)
def test_invalid_calls_are_rejected_with_the_tools_code(
    make_handler: MakeHandler, arguments: JSONObject, code: str, path: str
) -> None:
    outcome = make_handler(poster_argv()).call(arguments)
    assert (outcome.kind, outcome.error_code, outcome.error_path) == (
        OutcomeKind.REJECTED,
        code,
        path,
    )


def test_effects_are_observed_from_the_first_call(make_handler: MakeHandler) -> None:
    handler = make_handler(poster_argv())
    first, rejected, dry = (
        handler.call(VALID),
        handler.call(with_(width=1)),
        handler.call(with_(dryRun=True)),
    )
    assert first.effects_observed
    assert (first.effects_before, first.effects_after) == ({"committed": 0}, {"committed": 1})
    assert rejected.effects_observed and not rejected.committed_change
    assert dry.effects_observed and not dry.committed_change


# --- each planted fault, and the handler carrying on ---------------------------------------


def test_crash_fault_is_a_crash_with_a_stderr_tail(make_handler: MakeHandler) -> None:
    handler = make_handler(poster_argv("crash"))
    pid = pid_of(handler)
    outcome = handler.call(with_(title="A"))
    assert outcome.kind is OutcomeKind.CRASH
    assert "exited during the call (exit code 1)" in outcome.message
    assert "IndexError" in outcome.message
    assert_still_works(handler, pid)


def test_hang_fault_times_out_and_kills_the_process(make_handler: MakeHandler) -> None:
    handler = make_handler(poster_argv("hang"), timeout_ms=300)
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED
    pid = pid_of(handler)
    started = time.monotonic()
    outcome = handler.call(with_(width=65))
    assert time.monotonic() - started < 5
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert handler.worker_pid is None
    assert_still_works(handler, pid)


def test_lax_fault_accepts_the_hostile_width(make_handler: MakeHandler) -> None:
    assert make_handler(poster_argv("lax")).call(with_(width=401)).kind is OutcomeKind.ACCEPTED
    assert make_handler(poster_argv()).call(with_(width=401)).kind is OutcomeKind.REJECTED


def test_commit_first_fault_changes_state_on_the_first_rejection(
    make_handler: MakeHandler,
) -> None:
    outcome = make_handler(poster_argv("commit-first")).call(with_(width=401))
    assert outcome.kind is OutcomeKind.REJECTED
    assert (outcome.effects_before, outcome.effects_after) == ({"committed": 0}, {"committed": 1})
    assert outcome.committed_change


@pytest.mark.parametrize("max_output_bytes", [1000, 65536])
def test_flood_fault_is_capped_and_the_process_restarts(
    make_handler: MakeHandler, max_output_bytes: int
) -> None:
    handler = make_handler(poster_argv("flood"), max_output_bytes=max_output_bytes)
    pid = pid_of(handler)
    outcome = handler.call(with_(width=66))
    assert outcome.kind is OutcomeKind.ACCEPTED
    assert outcome.output_capped
    assert outcome.output_bytes == max_output_bytes + RESPONSE_SLACK_BYTES + 1
    assert outcome.output_digest is None
    assert_still_works(handler, pid)


def test_garbage_fault_is_a_crash_naming_the_line(make_handler: MakeHandler) -> None:
    handler = make_handler(poster_argv("garbage"))
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED
    pid = pid_of(handler)
    outcome = handler.call(with_(width=67))
    assert outcome.kind is OutcomeKind.CRASH
    assert "not JSON: b\"rendering 'Harbour' at 67 px\"" in outcome.message
    assert_still_works(handler, pid)


def test_exit_fault_is_a_crash_with_the_exit_code(make_handler: MakeHandler) -> None:
    handler = make_handler(poster_argv("exit"))
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED
    pid = pid_of(handler)
    outcome = handler.call(with_(width=68))
    assert outcome.kind is OutcomeKind.CRASH
    assert "exited during the call (exit code 3)" in outcome.message
    assert "giving up on width 68" in outcome.message
    assert_still_works(handler, pid)


def test_input_that_kills_the_very_first_call_is_a_crash_not_a_handler_error(
    make_handler: MakeHandler,
) -> None:
    handler = make_handler(poster_argv("exit"))
    assert handler.call(with_(width=68)).kind is OutcomeKind.CRASH
    assert handler.call(VALID).kind is OutcomeKind.ACCEPTED


# --- the protocol -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"raw": "[1, 2]"}, "not JSON"),
        ({"raw": '{"id": 1, "ok": true, "output": NaN}'}, "not JSON"),
        ({"raw": '{"id": 99, "ok": true, "output": 1}'}, "answered id 99, expected 2"),
        ({"raw": '{"ok": true, "output": 1}'}, "answered id None, expected 2"),
        ({"respond": {"output": 1}}, "malformed response"),
        ({"respond": {"ok": "yes", "output": 1}}, "malformed response"),
        ({"respond": {"ok": True}}, "malformed response"),
        ({"respond": {"ok": False, "error": "bad"}}, "malformed response"),
        ({"respond": {"ok": False, "error": {"code": 7}}}, "malformed response"),
    ],
)
def test_protocol_breakage_is_a_crash_and_costs_the_process(
    make_handler: MakeHandler, arguments: JSONObject, expected: str
) -> None:
    handler = make_handler((sys.executable, ECHO))
    assert handler.call({"n": 1}).kind is OutcomeKind.ACCEPTED
    pid = pid_of(handler)
    outcome = handler.call(arguments)
    assert outcome.kind is OutcomeKind.CRASH
    assert expected in outcome.message
    assert process_gone(pid)
    assert handler.call({"n": 2}).output_digest == digest({"n": 2})


def test_rejection_message_is_kept_bounded_and_masked(make_handler: MakeHandler) -> None:
    token = "ghp_" + "a" * 36
    error: dict[str, Any] = {"code": "policy-x", "message": f"token {token} " + "x" * 1000}
    outcome = make_handler((sys.executable, ECHO)).call({"respond": {"ok": False, "error": error}})
    assert (outcome.kind, outcome.error_code, outcome.error_path) == (
        OutcomeKind.REJECTED,
        "policy-x",
        None,
    )
    assert token not in outcome.message
    assert len(outcome.message) <= 300


def test_effects_compare_reports_of_one_process_only(make_handler: MakeHandler) -> None:
    handler = make_handler((sys.executable, ECHO))

    def report(state: int | None) -> Outcome:
        respond: JSONObject = {"ok": True, "output": 0}
        if state is not None:
            respond["effects"] = state
        return handler.call({"respond": respond})

    first = report(5)  # no announcement line: nothing to compare with
    assert not first.effects_observed and not first.committed_change
    same, changed = report(5), report(6)
    assert (same.effects_before, same.effects_after, same.committed_change) == (5, 5, False)
    assert (changed.effects_before, changed.effects_after, changed.committed_change) == (
        6 - 1,
        6,
        True,
    )
    assert not report(None).effects_observed  # an unreported call makes the state unknown
    assert not report(6).effects_observed
    assert report(6).effects_observed
    assert handler.call({"raw": "garbage"}).kind is OutcomeKind.CRASH
    assert not report(0).effects_observed  # a new process: 6 -> 0 is no change by this call


def test_stderr_flood_does_not_block_the_process(make_handler: MakeHandler) -> None:
    handler = make_handler((sys.executable, ECHO))
    for n in range(3):  # 1.5 MB of stderr in all: far past any pipe buffer
        assert handler.call({"stderr": 500_000, "n": n}).kind is OutcomeKind.ACCEPTED


# --- startup ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [("/no/such/executable",), ("no-such-command-xyz",), (str(STDIO / "echo_stdio.py"),)],
)
def test_a_command_that_cannot_be_started_is_a_handler_error(
    make_handler: MakeHandler, argv: tuple[str, ...]
) -> None:
    with pytest.raises(HandlerError, match="cannot start") as raised:
        make_handler(argv)
    # The program itself is named, not the shim that sets the resource limits before it.
    assert f"cannot start {argv[0]!r}" in raised.value.message


def test_an_empty_command_is_a_handler_error(make_handler: MakeHandler) -> None:
    with pytest.raises(HandlerError, match="no command"):
        make_handler(())


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ((sys.executable, "-c", "import sys; sys.exit('no config')"), "exit code 1"),
        ((sys.executable, "tool_that_is_not_here.py"), "can't open file"),
        ((sys.executable, "-c", "print('listening', flush=True); input()"), "b'listening'"),
    ],
)
def test_a_command_that_cannot_run_fails_its_first_call_with_a_handler_error(
    make_handler: MakeHandler, argv: tuple[str, ...], expected: str
) -> None:
    handler = make_handler(argv)
    with pytest.raises(HandlerError) as caught:
        handler.call(VALID)
    assert expected in caught.value.message
    assert handler.worker_pid is None


def test_environment_is_scrubbed_and_cwd_is_a_private_temporary_directory(
    make_handler: MakeHandler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GITHUB_TOKEN", "INPUT_X", "ACTIONS_RUNTIME_TOKEN", "MY_SECRET", "POSTER_DPI"):
        monkeypatch.setenv(name, "value-the-handler-must-not-see")
    handler = make_handler((sys.executable, ECHO), env=("POSTER_DPI",))
    dump = tmp_path / "dump.json"
    assert handler.call({"dump": str(dump)}).kind is OutcomeKind.ACCEPTED
    seen = json.loads(dump.read_text())
    for name in ("GITHUB_TOKEN", "INPUT_X", "ACTIONS_RUNTIME_TOKEN", "MY_SECRET"):
        assert name not in seen["env"]
    assert seen["env"]["POSTER_DPI"] == "value-the-handler-must-not-see"
    assert "PATH" in seen["env"]
    cwd = Path(seen["cwd"])
    assert cwd.is_dir() and cwd != Path.cwd() and cwd.name.startswith("toolfuzz-command-")
    handler.close()
    assert not cwd.exists()


def test_configured_cwd_is_used_and_kept(make_handler: MakeHandler, tmp_path: Path) -> None:
    handler = make_handler((sys.executable, ECHO), cwd=str(tmp_path))
    dump = tmp_path / "dump.json"
    handler.call({"dump": "dump.json"})
    assert Path(json.loads(dump.read_text())["cwd"]) == tmp_path
    handler.close()
    assert tmp_path.is_dir()


def test_a_missing_cwd_is_a_handler_error(make_handler: MakeHandler, tmp_path: Path) -> None:
    with pytest.raises(HandlerError, match="does not exist"):
        make_handler((sys.executable, ECHO), cwd=str(tmp_path / "absent"))


def test_passing_a_gate_secret_through_is_refused(make_handler: MakeHandler) -> None:
    with pytest.raises(HandlerError, match="GITHUB_TOKEN"):
        make_handler((sys.executable, ECHO), env=("GITHUB_TOKEN",))


# --- no process left behind ---------------------------------------------------------------


def test_close_leaves_no_process(make_handler: MakeHandler) -> None:
    with make_handler(poster_argv()) as handler:
        pid = pid_of(handler)
        handler.call(VALID)
    assert handler.worker_pid is None
    assert process_gone(pid)


@pytest.mark.slow
def test_timeout_kills_processes_the_command_started(
    make_handler: MakeHandler, tmp_path: Path
) -> None:
    handler = make_handler((sys.executable, ECHO), timeout_ms=1000)
    pidfile = tmp_path / "child.pid"
    outcome = handler.call({"child_pidfile": str(pidfile), "sleep": 600})
    assert outcome.kind is OutcomeKind.TIMEOUT
    assert process_gone(int(pidfile.read_text()))


_INTERRUPTED_GATE = """
import os, signal, sys, threading
from toolfuzz_gate.edges.handlers.command import CommandHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
handler = CommandHandler(HandlerConfig(
    "command", argv=(sys.executable, sys.argv[1], "--fault", "hang"), timeout_ms=60_000
))
print(handler.worker_pid, flush=True)
if sys.argv[2] == "idle":
    raise KeyboardInterrupt  # between calls: only the exit hook can kill the process
signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with it ignored
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
handler.call({"title": "T", "format": "png", "width": 65, "height": 64, "palette": ["#fff"]})
"""


@pytest.mark.parametrize("when", ["idle", "mid-call"])
def test_keyboard_interrupt_in_the_gate_leaves_no_process(when: str) -> None:
    gate = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_GATE, POSTER, when],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "KeyboardInterrupt" in gate.stderr
    # No grace period: the gate must have killed the process before it exited itself.
    assert not alive(int(gate.stdout.split()[0]))


# --- through the engine -------------------------------------------------------------------


def _fuzz(fault: str) -> list[tuple[str, str]]:
    tool = ToolSpec(
        poster.TOOL_NAME,
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
    )
    config = HandlerConfig("command", argv=poster_argv(fault))
    with CommandHandler(config) as handler:
        result = fuzz(
            poster.SCHEMA,
            handler,
            tool,
            FuzzConfig(seed=41, runs=24),
            handler_label=config.label(),
            replay_command="x",
        )
    return [
        (example.finding.failure.value, example.finding.path) for example in result.counterexamples
    ]


def test_engine_finds_nothing_in_the_correct_tool() -> None:
    assert _fuzz("correct") == []


def test_engine_finds_the_lax_width() -> None:
    assert ("hostile-accepted", "/width") in _fuzz("lax")


def test_engine_finds_the_commit_before_validation() -> None:
    assert "mutation-on-rejection" in {failure for failure, _ in _fuzz("commit-first")}
