"""`replay` without a policy: the handler is read back from the receipt's replayCommand
(with the command line's grammar, as `toolfuzz-gate replay` reads it) and checked against
the receipt's handler label."""

from __future__ import annotations

from typing import Any

import pytest

from tests.receipts import typed
from toolfuzz_gate.app.replay import handler_from_receipt
from toolfuzz_gate.cli.commands_run import read_command
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.edges.handlers.builtin import SPEC as BUILTIN_SPEC
from toolfuzz_gate.errors import ReceiptError


def test_the_handler_is_rebuilt_from_the_replay_command_and_checked_against_the_label() -> None:
    def receipt(command: str, label: dict[str, Any]) -> Receipt:
        return typed({"replayCommand": command, "handler": label})

    builtin = handler_from_receipt(
        receipt("toolfuzz-gate run --seed 3", {"spec": BUILTIN_SPEC}), read_command
    )
    assert builtin.spec == BUILTIN_SPEC
    command = "toolfuzz-gate fuzz --schema s.json --env TOKEN --timeout-ms 900 --command -- ./h -v"
    config = handler_from_receipt(receipt(command, {"command": ["./h", "-v"]}), read_command)
    assert (config.kind, config.argv, config.env, config.timeout_ms) == (
        "command",
        ("./h", "-v"),
        ("TOKEN",),
        900,
    )
    mcp = "toolfuzz-gate fuzz --mcp -- python server.py"
    label = {"mcp": {"command": ["python", "server.py"], "tool": "search"}}
    assert handler_from_receipt(receipt(mcp, label), read_command).target == "search"
    refused = [
        (receipt(command, {"command": ["./other"]}), "describe different handlers"),
        (receipt("rm -rf /", {"command": []}), "not a toolfuzz-gate command"),
        (receipt("toolfuzz-gate fuzz --bogus", {}), "cannot be read back"),
        (receipt("toolfuzz-gate diff a b", {}), "does not fuzz"),
    ]
    for document, message in refused:
        with pytest.raises(ReceiptError, match=message) as caught:
            handler_from_receipt(document, read_command)
        assert "give --policy FILE" in caught.value.hint
