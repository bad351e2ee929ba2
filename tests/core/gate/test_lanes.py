"""Which tools may be fuzzed at the same time (`core.gate.lanes`)."""

from __future__ import annotations

from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.lanes import exclusive, lane_key, side_by_side, stages

MCP = HandlerSettings("mcp", argv=("python", "server.py"))
PYTHON = HandlerSettings("python", "tools:one")
COMMAND = HandlerSettings("command", argv=("python", "tool.py"))
RESET = HandlerSettings("mcp", argv=("python", "server.py"), reset_tool="reset")
PROBED = HandlerSettings("command", argv=("tool",), effects_directory="state")
IN_REPO = HandlerSettings("command", argv=("tool",), cwd="data")
HTTP_A = HandlerSettings("http", "http://user@LOCALHOST:8080/a?x=1")
HTTP_B = HandlerSettings("http", "http://localhost:8080/b", argv=("serve",))
HTTP_OTHER = HandlerSettings("http", "http://localhost:9090/a")


def test_handlers_in_their_own_temporary_directories_are_lanes_of_their_own() -> None:
    # each MCP tool starts its own server process, so tools of one server are independent
    assert stages([MCP, MCP, PYTHON, COMMAND]) == [((0,), (1,), (2,), (3,))]


def test_a_declared_state_runs_alone_between_the_others() -> None:
    assert [exclusive(item) for item in (MCP, RESET, PROBED)] == [False, True, True]
    assert exclusive(HandlerSettings("command", argv=("t",), reset_command=("reset",)))
    assert exclusive(HandlerSettings("command", argv=("t",), effects_command=("state",)))
    assert stages([MCP, PYTHON, RESET, COMMAND, PROBED, MCP]) == [
        ((0,), (1,)),
        ((2,),),
        ((3,),),
        ((4,),),
        ((5,),),
    ]


def test_a_shared_directory_or_server_is_one_lane_in_plan_order() -> None:
    assert lane_key(HTTP_A) == lane_key(HTTP_B) == "http:localhost:8080"
    assert lane_key(HTTP_OTHER) == "http:localhost:9090"
    assert lane_key(IN_REPO) == "cwd:data" and lane_key(MCP) is None
    assert stages([HTTP_A, IN_REPO, HTTP_OTHER, HTTP_B, MCP, IN_REPO]) == [
        ((0, 3), (1, 5), (2,), (4,))
    ]


def test_tools_sharing_one_server_process_are_one_lane_in_plan_order() -> None:
    shared = ["s", None, "s", "t", None]
    assert stages([MCP, MCP, MCP, MCP, PYTHON], shared) == [((0, 2), (1,), (3,), (4,))]
    # a shared directory's lane already runs its tools one after another
    assert stages([IN_REPO, IN_REPO, MCP], ["s", None, "s"]) == [((0, 1), (2,))]


def test_the_base_runs_beside_the_head_only_without_declared_state_or_servers() -> None:
    assert side_by_side([MCP, PYTHON, COMMAND, IN_REPO])
    assert not side_by_side([MCP, RESET])
    assert not side_by_side([PYTHON, HTTP_OTHER])
    assert side_by_side([])
