"""Rejection codes read from the text of a real SDK-built MCP server's answers (issue 14).

`notes_sdk_mcp.py` is built with the official Python SDK's `MCPServer` and rejects with
`ToolError` text only, so each code here is read from the SDK's "Error executing tool NAME:
..." answer through the real adapter over stdio (`core.campaign.rejection_code`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.documents import doc
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.campaign.rejection_code import recoding
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.edges.handlers.mcp import McpHandler
from toolfuzz_gate.edges.handlers.registry import HandlerConfig

SERVER = (
    sys.executable,
    str(Path(__file__).parents[2] / "fixtures" / "mcp_tool" / "notes_sdk_mcp.py"),
)
NOT_FOUND = r"^Error executing tool \w+: Entity with name (?s:.*) (?P<code>not found)$"


def _handler(tool: str) -> McpHandler:
    return McpHandler(HandlerConfig("mcp", target=tool, argv=SERVER))


@pytest.fixture(scope="module")
def get_note() -> Iterator[McpHandler]:
    with _handler("get_note") as handler:
        yield handler


@pytest.fixture(scope="module")
def find_entity() -> Iterator[McpHandler]:
    with _handler("find_entity") as handler:
        yield handler


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"id": 7}, "note-not-found"),  # ToolError("note-not-found: no note 7")
        ({"id": 95}, "tool-error"),  # ToolError("Could not read the note store")
        ({"id": "7"}, "tool-error"),  # the SDK's own validation message
    ],
)
def test_the_code_an_sdk_servers_text_names_is_the_rejections_code(
    get_note: McpHandler, arguments: JSONObject, code: str
) -> None:
    outcome = get_note.call(arguments)
    assert (outcome.kind, outcome.error_code, outcome.code_derived) == (
        OutcomeKind.REJECTED,
        code,
        True,
    )
    assert outcome.message.startswith("Error executing tool get_note: ")


def test_a_sentence_is_a_tool_error_unless_a_pattern_names_its_code(
    find_entity: McpHandler,
) -> None:
    outcome = find_entity.call({"name": "b"})
    assert (outcome.kind, outcome.error_code) == (OutcomeKind.REJECTED, "tool-error")
    assert outcome.message == "Error executing tool find_entity: Entity with name b not found"
    recoded = recoding(
        find_entity, ToolSpec("find_entity", rejection_code=NOT_FOUND).rejection_pattern
    )
    assert recoded.call({"name": "b"}).error_code == "not found"
    assert recoded.call({"name": "a"}).kind is OutcomeKind.ACCEPTED


def _fuzz(handler: McpHandler, expected: str, rejection_code: str | None = None) -> FuzzResult:
    tool = ToolSpec(
        handler.config.target,
        expected_rejections=(expected,),
        rejection_code=rejection_code,
        checks=resolve_checks(annotations=None, deterministic=None, strict=True),
    )
    return fuzz(
        handler.input_schema,
        handler,
        tool,
        FuzzConfig(seed=41, runs=24),
        handler_label=handler.config.label(),
        replay_command="x",
    )


def _found(result: FuzzResult) -> set[tuple[str, str, str]]:
    return {
        (c.finding.failure.value, c.finding.path, c.finding.cause) for c in result.counterexamples
    }


def test_one_declared_business_rejection_no_longer_silences_the_others(
    get_note: McpHandler,
) -> None:
    # Declaring note-not-found expected leaves the store failure (ids over 90) a finding.
    result = _fuzz(get_note, "note-not-found")
    assert _found(result) == {("valid-rejected", "/id", "tool-error could not read the note")}
    assert "rejectionCode" not in doc(result.receipt)["contract"]


@pytest.mark.slow
def test_a_policy_pattern_codes_a_sentence_and_the_receipt_records_it(
    find_entity: McpHandler,
) -> None:
    assert {f for f, _, _ in _found(_fuzz(find_entity, "not found"))} == {"valid-rejected"}
    result = _fuzz(find_entity, "not found", NOT_FOUND)
    assert _found(result) == set()
    assert doc(result.receipt)["contract"]["rejectionCode"] == NOT_FOUND
