"""Find the tools declared in an already-loaded JSON document, whatever its form (pure).

The forms, detected from their shape (one file holds one form):

* `openai-chat`: `{"type": "function", "function": {"name", "description", "parameters"}}`;
* `openai-responses`: the Responses API's flat `{"type": "function", "name", "parameters"}`;
* `functions`: a bare function declaration `{"name", "description", "parameters"}` (the
  legacy OpenAI `functions` list; BFCL's function documents);
* `anthropic`: `{"name", "description", "input_schema"}`;
* `mcp`: `{"name", "description", "inputSchema"}`;
* `schema`: anything else is one bare JSON Schema, named by the caller.

Each may be one declaration or a list of them, or a list under `tools` (an MCP `tools/list`
result, an OpenAI request body), `functions`, or a JSON-RPC response's `result.tools`. A file
that mixes forms, names one tool twice, or holds something that is not a declaration where
declarations belong is an error with the JSON Pointer of the offending member.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.errors import ToolsError

MAX_TOOLS = 512
MAX_NAME_LENGTH = 256
NO_ARGUMENTS: JSON = {"type": "object", "properties": {}}
"""What a function declared without `parameters` takes (OpenAI's reading)."""

_SCHEMA_MEMBER = {
    "openai-chat": "parameters",
    "openai-responses": "parameters",
    "functions": "parameters",
    "anthropic": "input_schema",
    "mcp": "inputSchema",
}
_OPTIONAL_SCHEMA = frozenset({"openai-chat", "openai-responses", "functions"})
_LIST_HOLDERS = (("tools",), ("functions",), ("result", "tools"))


@dataclass(frozen=True)
class ToolDeclaration:
    """One declared tool: its name, its argument schema and where that schema sits."""

    name: str
    schema: JSON
    pointer: str
    """The JSON Pointer of the schema in the file ("" for a bare schema)."""
    form: str
    description: str = ""


def _form_of(item: Any, where: str) -> str | None:
    """The declaration form of `item`, None when it is not a declaration."""
    if not isinstance(item, dict):
        return None
    if item.get("type") == "function":
        if isinstance(item.get("function"), dict):
            return "openai-chat"
        if "name" in item:
            return "openai-responses"
        raise ToolsError("a function tool needs a `function` object or a `name`", pointer=where)
    markers = [name for name in ("input_schema", "inputSchema", "parameters") if name in item]
    if len(markers) > 1:
        raise ToolsError(
            f"ambiguous declaration: it has both {markers[0]!r} and {markers[1]!r}",
            pointer=where,
            hint="keep the one member your tool format defines",
        )
    if not markers or "name" not in item:
        return None
    return {"input_schema": "anthropic", "inputSchema": "mcp", "parameters": "functions"}[
        markers[0]
    ]


def _declaration(item: dict[str, Any], form: str, where: str) -> ToolDeclaration:
    body, body_at = (
        (item["function"], jp.join(where, "function"))
        if form == "openai-chat"
        else (
            item,
            where,
        )
    )
    name = body.get("name")
    if not isinstance(name, str) or not name or len(name) > MAX_NAME_LENGTH:
        raise ToolsError(
            f"a tool name must be a string of 1..{MAX_NAME_LENGTH} characters",
            pointer=jp.join(body_at, "name"),
        )
    if not _utf8(name):  # a lone surrogate: no report, receipt or MCP call can carry it
        raise ToolsError(
            f"the tool name {name!r} holds a lone surrogate, which UTF-8 cannot carry",
            pointer=jp.join(body_at, "name"),
        )
    member = _SCHEMA_MEMBER[form]
    schema_at = jp.join(body_at, member)
    if member not in body or (body[member] is None and form in _OPTIONAL_SCHEMA):
        if form not in _OPTIONAL_SCHEMA:
            raise ToolsError(f"tool {name!r} has no {member!r}", pointer=body_at)
        schema: JSON = NO_ARGUMENTS
    else:
        schema = body[member]
    if not isinstance(schema, dict | bool):
        raise ToolsError(
            f"the schema of tool {name!r} must be an object or a boolean", pointer=schema_at
        )
    description = body.get("description")
    return ToolDeclaration(
        name, schema, schema_at, form, description if isinstance(description, str) else ""
    )


def _declarations(items: list[Any], where: str) -> list[ToolDeclaration]:
    if not items:
        raise ToolsError("the list declares no tools", pointer=where)
    if len(items) > MAX_TOOLS:
        raise ToolsError(f"{len(items)} tools; at most {MAX_TOOLS} are read", pointer=where)
    found: list[ToolDeclaration] = []
    first_form: str | None = None
    names: set[str] = set()
    for index, item in enumerate(items):
        at = jp.join(where, index)
        form = _form_of(item, at)
        if form is None:
            raise ToolsError(
                "not a tool declaration (expected OpenAI, Anthropic, MCP or function form)",
                pointer=at,
            )
        if first_form is not None and form != first_form:
            raise ToolsError(
                f"this declaration is in {form} form but the first one is {first_form}",
                pointer=at,
                hint="one file holds one form of tool declarations",
            )
        first_form = form
        declared = _declaration(item, form, at)
        if declared.name in names:
            raise ToolsError(f"tool {declared.name!r} is declared twice", pointer=at)
        names.add(declared.name)
        found.append(declared)
    return found


def _held_list(document: dict[str, Any]) -> tuple[list[Any], str] | None:
    for path in _LIST_HOLDERS:
        value: Any = document
        for token in path:
            value = value.get(token) if isinstance(value, dict) else None
        if isinstance(value, list):
            return value, jp.from_parts(path)
    return None


def discover(document: JSON, default_name: str) -> list[ToolDeclaration]:
    """Every tool `document` declares; a bare schema is one tool named `default_name`.

    Raises `ToolsError` (with the pointer, not the file: the caller adds it).
    """
    if isinstance(document, list):
        return _declarations(document, "")
    if isinstance(document, dict):
        form = _form_of(document, "")
        if form is not None:
            return [_declaration(document, form, "")]
        held = _held_list(document)
        if held is not None:
            return _declarations(*held)
        if "tools" in document or "jsonrpc" in document:
            raise ToolsError(
                "a tools list or JSON-RPC response without a list of tools", pointer=""
            )
    if not isinstance(document, dict | bool):
        raise ToolsError("neither a schema nor tool declarations", pointer="")
    return [ToolDeclaration(default_name, document, "", "schema")]


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
