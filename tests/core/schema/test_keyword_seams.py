"""The keyword table reaches the operations that read it only through what it is handed
(`Recurse`, `Merge`, `RecipeContext`): no keyword module imports them, at any depth."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolfuzz_gate.core.schema.keywords as keywords_package

KEYWORDS_DIR = Path(keywords_package.__file__).parent
BEHIND_THE_TABLE = (
    "toolfuzz_gate.core.schema.conjoin",
    "toolfuzz_gate.core.schema.validate",
    "toolfuzz_gate.core.schema.object_keys",
    "toolfuzz_gate.core.schema.recipe_context",
    "toolfuzz_gate.core.engine",
)


def _imported(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("path", sorted(KEYWORDS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_a_keyword_module_imports_nothing_behind_the_table(path: Path) -> None:
    reached = [
        name
        for name in _imported(path)
        if any(name == seam or name.startswith(seam + ".") for seam in BEHIND_THE_TABLE)
    ]
    assert reached == []


def test_the_keyword_modules_are_found() -> None:
    assert {"keyword.py", "keys.py", "compose.py"} <= {p.name for p in KEYWORDS_DIR.glob("*.py")}
