"""Installed dependencies git does not track are lent to the base's worktree (issue 11)."""

from __future__ import annotations

from pathlib import Path

from toolfuzz_gate.edges.dependencies import lend_dependencies


def test_untracked_dependency_directories_are_linked_where_the_base_lacks_them(
    tmp_path: Path,
) -> None:
    head, base = tmp_path / "head", tmp_path / "base"
    for directory in (
        "node_modules/sdk",
        "packages/server/node_modules/zod",
        "packages/gone/node_modules/x",
        "own/node_modules",
        ".git/node_modules",
        "node_modules/inner/node_modules",
        "src/deep/er/still/node_modules",
    ):
        (head / directory).mkdir(parents=True)
    for directory in ("packages/server", "own/node_modules", "src/deep/er/still"):
        (base / directory).mkdir(parents=True)
    lent = lend_dependencies(head, base)
    assert lent == ["node_modules", "packages/server/node_modules"]
    assert (base / "node_modules").resolve() == (head / "node_modules").resolve()
    assert (base / "node_modules" / "sdk").is_dir()
    assert not (base / "own" / "node_modules").is_symlink()  # the base has its own
    assert not (base / "packages" / "gone").exists()  # the base has no such package
    assert lend_dependencies(head, base) == []  # once is enough
