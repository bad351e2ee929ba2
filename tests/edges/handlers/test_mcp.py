"""The mcp adapter against real MCP servers over stdio: one built with the SDK, one by hand.

`poster_mcp.py` (SDK, mcp 2.x) serves renderPoster in its correct and faulty versions, with
the SDK's low-level `Server` (the schema published exactly, the tool validating) or, with
`--typed`, its `MCPServer` decorator (the SDK deriving the schema and validating first);
`paged_mcp.py` (stdlib) misbehaves at the protocol level and asks the client questions.
Starting an SDK server costs one to two seconds (importing the SDK), so servers whose state
does not matter are shared per module.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.documents import doc
from tests.processes import HAS_PROC, alive, process_gone
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest
from toolfuzz_gate.edges.handlers import mcp_client
from toolfuzz_gate.edges.handlers.mcp import (
    READ_FACTOR,
    RESPONSE_SLACK_BYTES,
    McpHandler,
    list_tools,
)
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
from toolfuzz_gate.errors import HandlerError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mcp_tool"
REPO = FIXTURES.parents[2]
PAGED_TOOLS = ["echo", "text", "error", "reject", "sleep", "big", "exit", "ask", "where"]
GOOD: JSONObject = {
    "title": "Kay",
    "format": "png",
    "width": 100,
    "height": 100,
    "palette": ["#fff0"],
}

MakeHandler = Callable[..., McpHandler]


def sdk_server(*flags: str) -> tuple[str, ...]:
    return (sys.executable, str(FIXTURES / "poster_mcp.py"), *flags)


def paged_server(*flags: str) -> tuple[str, ...]:
    return (sys.executable, str(FIXTURES / "paged_mcp.py"), *flags)


def config(argv: tuple[str, ...], tool: str = "", **options: Any) -> HandlerConfig:
    return HandlerConfig("mcp", target=tool, argv=argv, **options)


def server_pid(handler: McpHandler) -> int:
    pid = handler.server_pid
    assert pid is not None
    return pid


@pytest.fixture
def make_handler() -> Iterator[MakeHandler]:
    made: list[McpHandler] = []

    def make(argv: tuple[str, ...], tool: str, **options: Any) -> McpHandler:
        handler = McpHandler(config(argv, tool, **options))
        made.append(handler)
        return handler

    yield make
    for handler in made:
        handler.close()


@pytest.fixture(scope="module")
def probe() -> Iterator[McpHandler]:
    with McpHandler(config(sdk_server("--typed", "--probes"), "probe")) as handler:
        yield handler


@pytest.fixture(scope="module")
def typed() -> Iterator[McpHandler]:
    with McpHandler(config(sdk_server("--typed"), "render_poster")) as handler:
        yield handler


@pytest.fixture(scope="module")
def correct() -> Iterator[McpHandler]:
    with McpHandler(config(sdk_server(), "render_poster", effects="state")) as handler:
        yield handler


# --- listing and starting -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("page_size", ["0", "1"])
def test_list_tools_follows_the_sdk_servers_pagination(page_size: str) -> None:
    tools = list_tools(config(sdk_server("--page-size", page_size)))
    assert [tool["name"] for tool in tools] == ["render_poster", "echo_text", "state"]
    assert tools[0]["description"] == poster.SCHEMA["description"]
    assert tools[0]["inputSchema"] == poster.SCHEMA


def _without_titles_and_defaults(schema: Any) -> Any:
    """`schema` less the annotations pydantic adds: `title` and `default` keywords."""
    if not isinstance(schema, dict):
        return schema
    kept = {k: v for k, v in schema.items() if k not in ("title", "default", "properties")}
    if "items" in kept:
        kept["items"] = _without_titles_and_defaults(kept["items"])
    if "properties" in schema:
        properties = schema["properties"].items()
        kept["properties"] = {name: _without_titles_and_defaults(s) for name, s in properties}
    return kept


def test_the_typed_sdk_server_publishes_the_contract_less_additional_properties(
    typed: McpHandler,
) -> None:
    published = doc(typed.input_schema)
    contract = poster.SCHEMA
    # pydantic adds titles and the default of dryRun; it cannot say additionalProperties:
    # false (the SDK's argument models ignore unknown keys), nor keep $schema and description.
    assert _without_titles_and_defaults(published)["properties"] == contract["properties"]
    assert published["required"] == contract["required"]
    assert "additionalProperties" not in published
    assert published["properties"]["dryRun"]["default"] is False


def test_list_tools_follows_pagination_of_a_hand_written_server() -> None:
    tools = list_tools(config(paged_server("--page-size", "2")))
    assert [tool["name"] for tool in tools] == PAGED_TOOLS
    assert tools[0] == {
        "name": "echo",
        "description": "the echo tool",
        "inputSchema": {"type": "object", "properties": {"value": {"type": "integer"}}},
        "annotations": {},
    }


def test_pagination_that_never_ends_is_a_handler_error() -> None:
    with pytest.raises(HandlerError, match=f"after {mcp_client.MAX_LIST_PAGES} pages"):
        list_tools(config(paged_server("--endless")))


def test_a_tool_the_server_does_not_list_is_a_handler_error() -> None:
    with pytest.raises(HandlerError, match="lists no tool 'render'") as raised:
        McpHandler(config(paged_server("--page-size", "4"), "render"))
    assert "echo, error" in raised.value.hint


def test_a_server_exiting_on_start_is_a_handler_error() -> None:
    with pytest.raises(HandlerError, match="exit code 3") as raised:
        McpHandler(config(paged_server("--exit-on-start"), "echo"))
    assert "cannot open the database" in raised.value.message


def test_a_server_that_never_answers_initialize_is_a_handler_error(tmp_path: Path) -> None:
    argv = paged_server("--silent", "--grandchild")
    started = time.monotonic()
    with pytest.raises(HandlerError, match="did not answer initialize"):
        McpHandler(config(argv, "echo", cwd=str(tmp_path)), startup_timeout_s=0.5)
    assert time.monotonic() - started < 10
    assert process_gone(int((tmp_path / "grandchild.pid").read_text()))


def test_a_server_that_exits_is_a_crash_at_once_and_its_escaped_helper_ends(
    tmp_path: Path,
) -> None:
    argv = paged_server("--grandchild", "--escaped")
    with McpHandler(config(argv, "exit", cwd=str(tmp_path), timeout_ms=30_000)) as handler:
        helper = int((tmp_path / "grandchild.pid").read_text())
        started = time.monotonic()
        outcome = handler.call({})
        waited = time.monotonic() - started
        assert outcome.kind is OutcomeKind.CRASH and "exited" in outcome.message
        assert waited < 15  # not the 30 s timeout: the helper holds the server's stdout
        assert process_gone(helper)


def test_a_command_that_cannot_run_is_a_handler_error() -> None:
    with pytest.raises(HandlerError, match="cannot start the MCP server"):
        McpHandler(config(("/nonexistent/mcp-server",), "echo"))
    with pytest.raises(HandlerError, match="argv"):
        McpHandler(config((), "echo"))
    with pytest.raises(HandlerError, match="tool name"):
        McpHandler(config(paged_server(), ""))


# --- result mapping -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "outcome", "code"),
    [
        ("structured-code", OutcomeKind.REJECTED, "policy-quota"),
        ("text-code", OutcomeKind.REJECTED, "quota"),
        ("sentence", OutcomeKind.REJECTED, "tool-error"),
        ("invalid-params", OutcomeKind.REJECTED, "invalid-params"),
        ("internal", OutcomeKind.CRASH, None),
        ("other-error", OutcomeKind.CRASH, None),
        ("crash", OutcomeKind.CRASH, None),
        ("text", OutcomeKind.ACCEPTED, None),
    ],
)
def test_results_and_errors_map_to_outcomes(
    probe: McpHandler, kind: str, outcome: OutcomeKind, code: str | None
) -> None:
    pid = server_pid(probe)
    result = probe.call({"kind": kind})
    assert (result.kind, result.error_code) == (outcome, code)
    assert probe.server_pid == pid, "an answered call, even an error, keeps the server"


def test_structured_rejection_carries_its_path(probe: McpHandler) -> None:
    assert probe.call({"kind": "structured-code"}).error_path == "/kind"


def test_crash_messages_say_what_failed(probe: McpHandler) -> None:
    assert probe.call({"kind": "internal"}).message == "JSON-RPC error -32603: database unavailable"
    assert probe.call({"kind": "other-error"}).message.startswith("JSON-RPC error -32000")
    assert "unexpected exception" in probe.call({"kind": "crash"}).message


def test_arguments_the_typed_sdk_refuses_are_a_tool_error_rejection(typed: McpHandler) -> None:
    outcome = typed.call({**GOOD, "width": 401})
    assert (outcome.kind, outcome.error_code) == (OutcomeKind.REJECTED, "tool-error")
    assert "validation error" in outcome.message


def test_the_typed_sdk_server_ignores_unknown_arguments(typed: McpHandler) -> None:
    assert typed.call({**GOOD, "unexpected": 1}).kind is OutcomeKind.ACCEPTED


def test_without_structured_content_the_content_list_is_the_output(probe: McpHandler) -> None:
    outcome = probe.call({"kind": "text"})
    assert outcome.output_digest == digest([{"text": "plain text output", "type": "text"}])


def test_structured_content_is_the_output(correct: McpHandler) -> None:
    outcome = correct.call(GOOD)
    assert outcome.kind is OutcomeKind.ACCEPTED
    expected = poster.PosterService().render_poster(**GOOD)
    assert outcome.output_digest == digest(expected)
    before = outcome.effects_before
    assert outcome.effects_observed and isinstance(before, dict)
    assert outcome.effects_after == {"committed": doc(before)["committed"] + 1}


def test_contract_rejections_keep_their_code_and_commit_nothing(correct: McpHandler) -> None:
    outcome = correct.call({**GOOD, "width": 400, "height": 400})
    assert (outcome.kind, outcome.error_code) == (OutcomeKind.REJECTED, "policy-pixel-budget")
    assert outcome.effects_observed and not outcome.committed_change


# --- faults of the SDK server -------------------------------------------------------------


@pytest.mark.slow
def test_a_crash_in_a_low_level_tool_is_the_sdks_json_rpc_error(make_handler: MakeHandler) -> None:
    handler = make_handler(sdk_server("--fault", "crash"), "render_poster")
    pid = server_pid(handler)
    outcome = handler.call({**GOOD, "title": "K"})
    assert outcome.kind is OutcomeKind.CRASH
    assert outcome.message == "JSON-RPC error 0: string index out of range"
    assert handler.call(GOOD).kind is OutcomeKind.ACCEPTED
    assert handler.server_pid == pid


@pytest.mark.slow
def test_a_crash_in_a_typed_tool_is_the_sdks_crash_result(make_handler: MakeHandler) -> None:
    handler = make_handler(sdk_server("--typed", "--fault", "crash"), "render_poster")
    outcome = handler.call({**GOOD, "title": "K"})
    assert outcome.kind is OutcomeKind.CRASH
    assert "unexpected exception" in outcome.message
    assert handler.call(GOOD).kind is OutcomeKind.ACCEPTED


@pytest.mark.slow
def test_hang_fault_times_out_and_the_next_call_gets_a_fresh_server(
    make_handler: MakeHandler,
) -> None:
    handler = make_handler(sdk_server("--fault", "hang"), "render_poster", timeout_ms=500)
    pid = server_pid(handler)
    started = time.monotonic()
    assert handler.call({**GOOD, "width": 65}).kind is OutcomeKind.TIMEOUT
    assert time.monotonic() - started < 5
    assert handler.server_pid is None
    assert process_gone(pid)
    assert handler.call(GOOD).kind is OutcomeKind.ACCEPTED
    assert server_pid(handler) != pid


@pytest.mark.slow
def test_lax_fault_accepts_what_the_correct_server_refuses(
    make_handler: MakeHandler, correct: McpHandler
) -> None:
    lax = make_handler(sdk_server("--fault", "lax"), "render_poster")
    assert lax.call({**GOOD, "width": 401}).kind is OutcomeKind.ACCEPTED
    assert correct.call({**GOOD, "width": 401}).error_code == "schema-range"


@pytest.mark.slow
def test_commit_first_fault_is_seen_through_the_effects_tool(make_handler: MakeHandler) -> None:
    argv = sdk_server("--fault", "commit-first")
    handler = make_handler(argv, "render_poster", effects="state")
    outcome = handler.call({**GOOD, "width": 400, "height": 400})
    assert outcome.kind is OutcomeKind.REJECTED
    assert (outcome.effects_before, outcome.effects_after) == ({"committed": 0}, {"committed": 1})
    assert outcome.committed_change


@pytest.mark.slow
@pytest.mark.parametrize("trigger", [{"width": 66}, {"height": 65}])
def test_flood_fault_is_capped_and_the_server_restarts(
    make_handler: MakeHandler, trigger: JSONObject
) -> None:
    handler = make_handler(sdk_server("--fault", "flood"), "render_poster", max_output_bytes=1000)
    pid = server_pid(handler)
    outcome = handler.call({**GOOD, **trigger})
    assert (outcome.kind, outcome.output_capped) == (OutcomeKind.ACCEPTED, True)
    assert outcome.output_bytes == READ_FACTOR * 1000 + RESPONSE_SLACK_BYTES + 1
    assert process_gone(pid)
    assert handler.call(GOOD).kind is OutcomeKind.ACCEPTED


@pytest.mark.slow
@pytest.mark.parametrize("trigger", [{"width": 67}, {"title": "T" * 80}])
def test_garbage_fault_is_skipped_and_counted(
    make_handler: MakeHandler, trigger: JSONObject
) -> None:
    handler = make_handler(sdk_server("--fault", "garbage"), "render_poster")
    assert handler.stdout_noise == 0
    assert handler.call({**GOOD, **trigger}).kind is OutcomeKind.ACCEPTED
    assert handler.stdout_noise == 1
    assert handler.noise.sample == "this line is not JSON-RPC"


@pytest.mark.parametrize(
    "trigger", [{"width": 68}, {"palette": ["#aaa0", "#bbb0", "#ccc0", "#ddd0", "#eee0"]}]
)
@pytest.mark.slow
def test_exit_fault_is_a_crash_and_the_next_call_restarts(
    make_handler: MakeHandler, trigger: JSONObject
) -> None:
    handler = make_handler(sdk_server("--fault", "exit"), "render_poster")
    pid = server_pid(handler)
    outcome = handler.call({**GOOD, **trigger})
    assert outcome.kind is OutcomeKind.CRASH
    assert "exited (exit code 3)" in outcome.message
    assert process_gone(pid)
    assert handler.call(GOOD).kind is OutcomeKind.ACCEPTED


@pytest.mark.slow
def test_the_typed_sdk_coerces_strings_unless_the_tool_declares_strict_types(
    make_handler: MakeHandler, typed: McpHandler
) -> None:
    lenient = make_handler(sdk_server("--typed", "--fault", "coerce"), "render_poster")
    assert lenient.call({**GOOD, "width": "100"}).kind is OutcomeKind.ACCEPTED
    assert typed.call({**GOOD, "width": "100"}).error_code == "tool-error"


@pytest.mark.slow
def test_log_lines_on_stdout_are_tolerated_and_counted(make_handler: MakeHandler) -> None:
    handler = make_handler(sdk_server("--log-stdout"), "render_poster")
    assert handler.stdout_noise == 1  # the startup line
    assert [handler.call(GOOD).kind for _ in range(3)] == [OutcomeKind.ACCEPTED] * 3
    assert handler.stdout_noise == 4


# --- protocol behaviour (hand-written server) ---------------------------------------------


def test_server_requests_are_answered_and_do_not_hang_the_call(make_handler: MakeHandler) -> None:
    handler = make_handler(paged_server("--ask"), "ask")
    outcome = handler.call({})
    refused = {
        method: {"code": -32601, "message": f"toolfuzz-gate does not offer {method}"}
        for method in ("roots/list", "sampling/createMessage")
    }
    assert outcome.output_digest == digest({"ping": {}, **refused})


def test_notifications_and_noise_lines_are_skipped(make_handler: MakeHandler) -> None:
    handler = make_handler(paged_server("--notify", "--noise", "4"), "echo")
    before = handler.stdout_noise
    assert before == 8  # initialize and tools/list, four lines each
    outcome = handler.call({"value": 3})
    assert outcome.output_digest == digest({"value": 3})
    assert handler.stdout_noise == before + 4, "a JSON log line is noise too"


def test_noise_past_the_bound_breaks_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_client, "MAX_NOISE_LINES", 3)
    with pytest.raises(HandlerError, match="over 3 non-JSON-RPC lines"):
        McpHandler(config(paged_server("--noise", "4"), "echo"))


def test_a_response_with_the_wrong_id_is_a_crash(make_handler: MakeHandler) -> None:
    handler = make_handler(paged_server("--wrong-id"), "echo")
    pid = server_pid(handler)
    outcome = handler.call({})
    assert outcome.kind is OutcomeKind.CRASH
    assert "broke the protocol" in outcome.message
    assert process_gone(pid)


def test_timeout_kills_the_server_and_what_it_started(
    make_handler: MakeHandler, tmp_path: Path
) -> None:
    argv = paged_server("--grandchild")
    handler = make_handler(argv, "sleep", cwd=str(tmp_path), timeout_ms=300)
    pid = server_pid(handler)
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    assert handler.call({"seconds": 600}).kind is OutcomeKind.TIMEOUT
    assert process_gone(pid) and process_gone(grandchild)


def test_close_leaves_no_process(make_handler: MakeHandler, tmp_path: Path) -> None:
    handler = make_handler(paged_server("--grandchild"), "echo", cwd=str(tmp_path))
    pid = server_pid(handler)
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    handler.close()
    assert handler.server_pid is None
    assert process_gone(pid) and process_gone(grandchild)


@pytest.mark.skipif(not HAS_PROC, reason="reads /proc")
def test_server_runs_in_a_temporary_directory_with_a_scrubbed_environment(
    make_handler: MakeHandler, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_for_handlers")
    monkeypatch.setenv("TOOLFUZZ_PASSED", "yes")
    handler = make_handler(paged_server(), "echo", env=("TOOLFUZZ_PASSED",))
    pid = server_pid(handler)
    cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    names = {entry.split(b"=", 1)[0] for entry in environ}
    assert cwd.name.startswith("toolfuzz-mcp-") and cwd.is_dir()
    assert b"TOOLFUZZ_PASSED" in names and b"GITHUB_TOKEN" not in names
    handler.close()
    assert not cwd.exists()


@pytest.mark.parametrize(
    ("directory", "argv"),
    [
        (FIXTURES, (sys.executable, "paged_mcp.py")),
        (REPO, (sys.executable, "-m", "tests.fixtures.mcp_tool.paged_mcp")),
    ],
)
def test_relative_commands_resolve_from_where_the_gate_runs(
    monkeypatch: pytest.MonkeyPatch, directory: Path, argv: tuple[str, ...]
) -> None:
    monkeypatch.chdir(directory)
    assert [tool["name"] for tool in list_tools(config(argv))] == PAGED_TOOLS


_INTERRUPTED_GATE = """
import os, signal, sys, threading
from toolfuzz_gate.edges.handlers.mcp import McpHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig
config = HandlerConfig("mcp", target="sleep", argv=tuple(sys.argv[1:]), timeout_ms=60_000)
handler = McpHandler(config)
print(handler.server_pid, flush=True)
signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with it ignored
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
handler.call({"seconds": 600})
"""


def test_keyboard_interrupt_in_the_gate_leaves_no_server() -> None:
    gate = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_GATE, *paged_server()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "KeyboardInterrupt" in gate.stderr
    assert not alive(int(gate.stdout.split()[0]))
    assert gate.returncode != 0 and gate.returncode != -signal.SIGKILL


# --- end to end through the engine --------------------------------------------------------


def _fuzz(handler: McpHandler, error_codes: str = poster.ERROR_CODES) -> set[tuple[str, str]]:
    tool = ToolSpec(
        "render_poster",
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=error_codes,
        dry_run=poster.DRY_RUN,
    )
    result = fuzz(
        handler.input_schema,
        handler,
        tool,
        FuzzConfig(seed=41, runs=24),
        handler_label=handler.config.label(),
        replay_command="x",
    )
    assert result.counts["hostile"] > 0
    return {(c.finding.failure.value, c.finding.path) for c in result.counterexamples}


@pytest.mark.slow
def test_fuzzing_the_correct_sdk_server_finds_nothing(make_handler: MakeHandler) -> None:
    handler = make_handler(sdk_server(), "render_poster", effects="state")
    assert _fuzz(handler) == set()


@pytest.mark.slow
def test_fuzzing_the_typed_sdk_server_finds_nothing_but_its_own_vocabulary(
    make_handler: MakeHandler,
) -> None:
    handler = make_handler(sdk_server("--typed"), "render_poster", effects="state")
    assert _fuzz(handler, "^(schema|policy|tool)-") == set()
    # Its refusals are the SDK's, coded tool-error, outside the contract's vocabulary.
    assert {failure for failure, _ in _fuzz(handler)} == {"error-vocabulary"}


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--fault", "crash"), ("crash", "/title")),
        (("--fault", "lax"), ("hostile-accepted", "/width")),
        (("--fault", "commit-first"), ("mutation-on-rejection", "")),
        (("--typed", "--fault", "coerce"), ("hostile-accepted", "/width")),
    ],
)
@pytest.mark.slow
def test_fuzzing_a_faulty_sdk_server_finds_the_fault(
    make_handler: MakeHandler, flags: tuple[str, ...], expected: tuple[str, str]
) -> None:
    handler = make_handler(sdk_server(*flags), "render_poster", effects="state")
    assert expected in _fuzz(handler, "^(schema|policy|tool)-")
