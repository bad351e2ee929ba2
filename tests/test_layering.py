"""The layering rule, read from the source: `cli -> app -> edges -> core -> errors` with no import
cycles anywhere, the core's subpackages in one order, small modules, and a core that
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


CORE_ORDER = (
    "jsonutil",
    "schema",
    "engine",
    "campaign",
    "gate",
    "agent",
    "report",
    "lint",
    "github",
)
"""The core's subpackages, lowest first: each may import only itself and those before it."""
LAYERS = ("errors", "core", "contract", "edges", "app", "cli")
"""The package's layers, lowest first. `errors` stands for the leaves every layer may use: the
package's own `__init__` (its version), `errors` and `exitcodes`; `contract` is the built-in
renderPoster tool, a handler like any other that happens to ship in the package."""
MAX_MODULE_LINES = 500
"""A ceiling, not a target: a module is as long as its one concern (CONTRIBUTING.md, "Module
size"). At 400 it had modules pinned at 393-399 lines and fragments split off only to fit."""


def _all_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in _modules(PACKAGE)}


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package's own modules it imports, at any depth (inside functions too)."""
    modules = _all_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for module, imported, _ in _imports(path):
            for target in _targets(module, imported):
                if target in modules and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                child = pending.pop()
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _layer(module: str) -> str:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "errors"
    if top in {"exitcodes", "errors"}:
        return "errors"
    return "cli" if top == "__main__" else top


def test_layers_point_one_way() -> None:
    offending = [
        f"{name} -> {target}"
        for name, targets in _import_graph().items()
        for target in targets
        if LAYERS.index(_layer(target)) > LAYERS.index(_layer(name))
    ]
    assert offending == []


def _core_package(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "core" else None


def test_core_subpackages_point_one_way() -> None:
    offending = []
    for name, targets in _import_graph().items():
        own = _core_package(name)
        if own is None:
            continue
        for target in targets:
            other = _core_package(target)
            if other is not None and CORE_ORDER.index(other) > CORE_ORDER.index(own):
                offending.append(f"{name} -> {target}")
    assert offending == []


def test_every_core_module_sits_in_a_known_subpackage() -> None:
    loose = [
        name
        for name in _all_modules()
        if name.startswith("toolfuzz_gate.core.")
        and (_core_package(name) or name.split(".")[2]) not in CORE_ORDER
    ]
    assert loose == []


@pytest.mark.parametrize("path", _modules(PACKAGE), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines < MAX_MODULE_LINES, f"{lines} lines: split it by concern"


def test_no_file_name_repeats_across_folders() -> None:
    seen: dict[str, list[str]] = {}
    for path in _modules(PACKAGE):
        if path.name not in {"__init__.py", "__main__.py"}:
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
