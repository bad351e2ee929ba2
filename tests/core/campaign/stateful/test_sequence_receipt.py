"""The names of a stateful campaign's receipt: the server's, from its command line, made
unique among the run's servers."""

from __future__ import annotations

import pytest

from toolfuzz_gate.core.campaign.stateful.sequence_receipt import (
    receipt_name,
    server_name,
    unique_name,
)


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["/usr/bin/python3", "-u", "servers/notes_mcp.py"], "notes_mcp"),
        (["npx", "-y", "@scope/server-memory"], "server-memory"),
        (["/opt/bin/my-server", "--port", "1"], "my-server"),
        (["node", "--inspect"], "node"),
        (["python3.12", "srv.py"], "srv"),
        (["dir/"], "server"),
        ([], "server"),
    ],
)
def test_a_server_is_named_by_its_program_or_the_script_a_runner_is_given(
    argv: list[str], name: str
) -> None:
    assert server_name(argv) == name


def test_two_servers_of_one_program_get_numbered_names() -> None:
    taken: set[str] = set()
    assert [unique_name("notes", taken) for _ in range(3)] == ["notes", "notes-2", "notes-3"]
    assert taken == {"notes", "notes-2", "notes-3"}
    assert receipt_name("notes-2") == "stateful:notes-2"
