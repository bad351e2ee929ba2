"""`core.schema.discover`: every declaration form, and the malformed files it refuses with a
pointer."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.schema.discover import NO_ARGUMENTS, discover
from toolfuzz_gate.errors import ToolsError

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
OTHER = {"type": "object", "properties": {"n": {"type": "integer"}}}


def found(document: Any) -> list[tuple[str, Any, str, str]]:
    return [(t.name, t.schema, t.pointer, t.form) for t in discover(document, "fallback")]


def refused(document: Any) -> tuple[str | None, str]:
    with pytest.raises(ToolsError) as caught:
        discover(document, "fallback")
    return caught.value.pointer, caught.value.detail


def test_openai_chat_tools_list() -> None:
    document: list[Any] = [
        {
            "type": "function",
            "function": {"name": "search", "description": "d", "parameters": SCHEMA},
        },
        {"type": "function", "function": {"name": "ping"}},
    ]
    assert found(document) == [
        ("search", SCHEMA, "/0/function/parameters", "openai-chat"),
        ("ping", NO_ARGUMENTS, "/1/function/parameters", "openai-chat"),
    ]
    assert discover(document, "x")[0].description == "d"


def test_openai_responses_flat_form_and_request_body() -> None:
    document = {
        "model": "m",
        "tools": [{"type": "function", "name": "search", "parameters": SCHEMA, "strict": True}],
    }
    assert found(document) == [("search", SCHEMA, "/tools/0/parameters", "openai-responses")]


def test_anthropic_tools() -> None:
    document = [{"name": "a", "input_schema": SCHEMA}, {"name": "b", "input_schema": OTHER}]
    assert found(document) == [
        ("a", SCHEMA, "/0/input_schema", "anthropic"),
        ("b", OTHER, "/1/input_schema", "anthropic"),
    ]
    assert found(document[0]) == [("a", SCHEMA, "/input_schema", "anthropic")]


def test_mcp_tools_list_result_and_json_rpc_response() -> None:
    tools = [{"name": "a", "inputSchema": SCHEMA}, {"name": "b", "inputSchema": OTHER}]
    assert found({"tools": tools, "nextCursor": None}) == [
        ("a", SCHEMA, "/tools/0/inputSchema", "mcp"),
        ("b", OTHER, "/tools/1/inputSchema", "mcp"),
    ]
    response = {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}
    assert [t[2] for t in found(response)] == [
        "/result/tools/0/inputSchema",
        "/result/tools/1/inputSchema",
    ]


def test_function_declarations_and_bare_schema() -> None:
    assert found([{"name": "f", "parameters": SCHEMA}]) == [
        ("f", SCHEMA, "/0/parameters", "functions")
    ]
    assert found({"functions": [{"name": "f", "parameters": SCHEMA}]})[0][2] == (
        "/functions/0/parameters"
    )
    assert found(SCHEMA) == [("fallback", SCHEMA, "", "schema")]
    only = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    assert found(only) == [("fallback", only, "", "schema")]
    assert found(True) == [("fallback", True, "", "schema")]


@pytest.mark.parametrize(
    ("document", "pointer", "words"),
    [
        ([], "", "no tools"),
        ({"tools": []}, "/tools", "no tools"),
        (
            [{"name": "a", "input_schema": SCHEMA}, {"name": "b", "inputSchema": SCHEMA}],
            "/1",
            "form",
        ),
        ([{"name": "a", "input_schema": SCHEMA}, 3], "/1", "not a tool declaration"),
        (
            [{"name": "a", "input_schema": SCHEMA}, {"name": "a", "input_schema": SCHEMA}],
            "/1",
            "twice",
        ),
        ([{"name": "a", "input_schema": SCHEMA, "parameters": SCHEMA}], "/0", "ambiguous"),
        ([{"type": "function"}], "/0", "needs"),
        ([{"type": "function", "function": {"name": ""}}], "/0/function/name", "tool name"),
        ([{"name": "a", "inputSchema": None}], "/0/inputSchema", "must be an object"),
        ({"name": "a", "input_schema": []}, "/input_schema", "must be an object"),
        ({"tools": {"a": 1}}, "", "without a list"),
        ({"jsonrpc": "2.0", "error": {"code": -1}}, "", "without a list"),
        ("text", "", "neither"),
    ],
)
def test_malformed_files_are_refused_with_a_pointer(
    document: Any, pointer: str, words: str
) -> None:
    at, message = refused(document)
    assert at == pointer
    assert words in message


def test_mcp_declaration_needs_its_schema() -> None:
    assert (
        refused([{"name": "a", "inputSchema": SCHEMA}, {"name": "b", "description": "x"}])[0]
        == "/1"
    )


def test_the_file_is_named_once_located() -> None:
    with pytest.raises(ToolsError) as caught:
        discover([], "x")
    located = caught.value.located("tools.json")
    assert located.message.startswith("tools.json: ") and "(root)" in located.message


def test_a_tool_name_with_a_lone_surrogate_is_refused() -> None:
    """Issue 15: the name reached the console and ended in exit 3."""
    with pytest.raises(ToolsError) as caught:
        discover([{"name": "t\ud800", "parameters": {"type": "object"}}], "file")
    assert caught.value.pointer == "/0/name"
    assert "lone surrogate" in str(caught.value)
