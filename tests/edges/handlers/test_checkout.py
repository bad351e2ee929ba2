"""`Checkout`: one resolution of what a side of the gate starts (issue 11)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolfuzz_gate.edges.handlers.checkout import Checkout


def test_relative_paths_are_read_from_the_root_then_the_cwd(tmp_path: Path) -> None:
    root, cwd = tmp_path / "root", tmp_path / "root" / "sub"
    cwd.mkdir(parents=True)
    (root / "server.py").touch()
    (cwd / "main.py").touch()
    (root / "bin").mkdir()
    checkout = Checkout.at(str(root))
    argv = checkout.argv(["python", "server.py", "main.py", "--flag", "-m", "x"], str(cwd))
    assert argv == ["python", str(root / "server.py"), str(cwd / "main.py"), "--flag", "-m", "x"]
    # a relative executable that is missing is named where it was looked for
    assert checkout.argv(["./missing", "nothing.txt"]) == [str(root / "missing"), "nothing.txt"]


def test_the_head_checkout_is_mirrored_into_the_base(tmp_path: Path) -> None:
    head, base = tmp_path / "head", tmp_path / "base"
    checkout = Checkout.at(str(base), mirrors=str(head))
    assert checkout.path(str(head / "src" / "tool.py")) == str(base / "src" / "tool.py")
    assert checkout.path(str(head)) == str(base)
    assert checkout.path(str(tmp_path / "elsewhere")) == str(tmp_path / "elsewhere")
    assert checkout.path(str(tmp_path / "head-other")) == str(tmp_path / "head-other")
    assert checkout.argv([str(head / "run.sh")]) == [str(base / "run.sh")]


def test_the_environment_reads_pythonpath_and_named_paths_in_the_checkout(
    tmp_path: Path,
) -> None:
    head, base = tmp_path / "head", tmp_path / "base"
    source = {
        "PATH": "/usr/bin",
        "PYTHONPATH": os.pathsep.join([str(head / "src"), "lib", "/opt/site"]),
        "DATA_DIR": str(head / "data"),
        "DSN": "sqlite:///" + str(head / "db.sqlite"),
        "GITHUB_TOKEN": "secret",
    }
    env = Checkout.at(str(base), mirrors=str(head)).environment(["DATA_DIR", "DSN"], source=source)
    assert env["PYTHONPATH"].split(os.pathsep) == [
        str(base),
        str(base / "src"),
        str(base / "lib"),
        "/opt/site",
    ]
    assert env["DATA_DIR"] == str(base / "data")
    assert env["DSN"] == source["DSN"]  # not a path: passed as it is
    assert "GITHUB_TOKEN" not in env


def test_without_a_root_the_gate_directory_is_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Checkout.at(None).root == str(tmp_path)
