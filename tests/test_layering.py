"""The layering rule, read from the source: `cli -> edges -> core -> errors`, and a core that
does no I/O (no process, network, file, clock, global randomness or printing)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "toolfuzz_gate"
CORE = PACKAGE / "core"
EDGES = PACKAGE / "edges"

IO_MODULES = frozenset(
    {"subprocess", "socket", "requests", "urllib", "os", "time", "random", "http", "shutil"}
)
ALLOWED_FROM_IMPORTS = {("random", "Random")}
"""A seeded `Random` passed in as a parameter is how the core gets randomness."""
FORBIDDEN_CALLS = frozenset({"open", "print", "input", "exec", "eval", "breakpoint"})


def _modules(root: Path) -> list[Path]:
    found = sorted(root.rglob("*.py"))
    assert found, f"no modules under {root}"
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> Iterator[tuple[str, str | None, int]]:
    """(absolute module, imported name or None, line) for every import, at any depth."""
    return _imports_in(path.read_text(encoding="utf-8"), _module_name(path), path.name)


def _imports_in(source: str, name: str, filename: str) -> Iterator[tuple[str, str | None, int]]:
    package = name if filename == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            for alias in node.names:
                yield module, alias.name, node.lineno


def _is_within(module: str, target: str) -> bool:
    return module == target or module.startswith(target + ".")


def _targets(module: str, name: str | None) -> list[str]:
    """Modules an import may bind: `from toolfuzz_gate import cli` binds `toolfuzz_gate.cli`."""
    return [module] if name is None else [module, f"{module}.{name}"]


@pytest.mark.parametrize("path", _modules(CORE), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_imports_no_io_modules(path: Path) -> None:
    offending = []
    for module, name, line in _imports(path):
        top = module.split(".")[0]
        if top in IO_MODULES and (module, name) not in ALLOWED_FROM_IMPORTS:
            offending.append(f"line {line}: {module}{'.' + name if name else ''}")
    assert not offending, offending


@pytest.mark.parametrize("path", _modules(CORE), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_imports_neither_edges_nor_cli(path: Path) -> None:
    offending = [
        f"line {line}: {target}"
        for module, name, line in _imports(path)
        for target in _targets(module, name)
        if any(
            _is_within(target, layer)
            for layer in ("toolfuzz_gate.edges", "toolfuzz_gate.cli", "toolfuzz_gate.__main__")
        )
    ]
    assert not offending, offending


@pytest.mark.parametrize("path", _modules(EDGES), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_edges_never_import_the_cli(path: Path) -> None:
    offending = [
        f"line {line}: {target}"
        for module, name, line in _imports(path)
        for target in _targets(module, name)
        if _is_within(target, "toolfuzz_gate.cli") or _is_within(target, "toolfuzz_gate.__main__")
    ]
    assert not offending, offending


@pytest.mark.parametrize("path", _modules(CORE), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_calls_no_io_builtins(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    offending = [
        f"line {node.lineno}: {node.func.id}("
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FORBIDDEN_CALLS
    ]
    assert not offending, offending


def test_the_scanner_sees_every_spelling_of_an_import() -> None:
    """The checks above are only worth something if the scanner resolves each form."""
    source = (
        "import os.path\n"
        "from random import Random, randint\n"
        "def f():\n"
        "    import subprocess\n"
        "    from ..edges import files\n"
        "    from .. import cli\n"
        "    from .canonical import digest\n"
    )
    found = {(m, n) for m, n, _ in _imports_in(source, "toolfuzz_gate.core.sample", "sample.py")}
    assert found == {
        ("os.path", None),
        ("random", "Random"),
        ("random", "randint"),
        ("subprocess", None),
        ("toolfuzz_gate.edges", "files"),
        ("toolfuzz_gate", "cli"),
        ("toolfuzz_gate.core.canonical", "digest"),
    }
    assert "toolfuzz_gate.cli" in _targets("toolfuzz_gate", "cli")
