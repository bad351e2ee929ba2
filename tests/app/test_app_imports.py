"""The application layer's boundaries, read from the source (`cli -> app -> edges -> core ->
errors`): `argparse` and the command line are imported only in `cli/`, and `edges/` and
`core/` never import `app/`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "toolfuzz_gate"
CLI = PACKAGE / "cli"


def _imported(source: str, package: str) -> set[str]:
    """Every module `source` (a module of `package`) imports, at any depth, relative
    imports resolved, `from M import N` counted as both `M` and `M.N`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).parent.parts)


def _below_cli() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("*.py")
        if not path.is_relative_to(CLI) and path.name != "__main__.py"  # the command line's door
    )


@pytest.mark.parametrize("path", _below_cli(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_command_line_parses_arguments(path: Path) -> None:
    imported = _imported(path.read_text(encoding="utf-8"), _package_of(path))
    offending = sorted(
        name
        for name in imported
        if name in ("argparse", "toolfuzz_gate.cli") or name.startswith("toolfuzz_gate.cli.")
    )
    assert not offending, offending


def test_the_scan_sees_late_and_relative_imports() -> None:
    source = "def f():\n    import argparse\n    from ..cli import parser\n"
    found = _imported(source, "toolfuzz_gate.app")
    assert {"argparse", "toolfuzz_gate.cli", "toolfuzz_gate.cli.parser"} <= found


def _under(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("path", _under("core", "edges"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_edges_and_core_never_reach_up_into_the_application_layer(path: Path) -> None:
    imported = _imported(path.read_text(encoding="utf-8"), _package_of(path))
    offending = sorted(name for name in imported if name.split(".")[:2] == ["toolfuzz_gate", "app"])
    assert not offending, offending
