"""Read the tools a file declares, with the file's pointer-to-line map (edge)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.schema.discover import ToolDeclaration, discover
from toolfuzz_gate.edges.files import load_json_text
from toolfuzz_gate.errors import ToolsError


@dataclass(frozen=True)
class DeclaredTools:
    file: str
    tools: list[ToolDeclaration]
    lines: dict[str, int]
    """Line of each JSON Pointer in the file, for messages."""


def load_declarations(path: Path) -> DeclaredTools:
    """Every tool in `path` (a tools file or one bare schema, named after the file).

    Raises `InputFileError` (unreadable, not JSON) or `ToolsError` naming the file,
    the JSON Pointer and its line.
    """
    document, text = load_json_text(path, what="tools file")
    lines = line_index(text)
    try:
        tools = discover(document, path.stem)
    except ToolsError as error:
        raise error.located(str(path), lines.get(error.pointer or "")) from None
    return DeclaredTools(str(path), tools, lines)
