from __future__ import annotations

import pytest

from toolfuzz_gate.edges.handlers.environment import scrubbed_environment
from toolfuzz_gate.errors import HandlerError

SOURCE = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONPATH": "/src",
    "TMPDIR": "/tmp",
    "GITHUB_TOKEN": "ghs_secret",
    "INPUT_GITHUB-TOKEN": "ghs_secret",
    "ACTIONS_RUNTIME_TOKEN": "secret",
    "AWS_SECRET_ACCESS_KEY": "secret",
    "POSTER_DPI": "300",
}


def test_keeps_only_the_allowlist() -> None:
    assert scrubbed_environment(SOURCE) == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": "/src",
        "TMPDIR": "/tmp",
    }


def test_passthrough_adds_named_variables_only() -> None:
    env = scrubbed_environment(SOURCE, passthrough=["POSTER_DPI", "NOT_SET"])
    assert env["POSTER_DPI"] == "300"
    assert "NOT_SET" not in env
    assert "AWS_SECRET_ACCESS_KEY" not in env


@pytest.mark.parametrize(
    "name", ["GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN", "github_token"]
)
def test_passthrough_of_a_gate_secret_is_refused(name: str) -> None:
    with pytest.raises(HandlerError, match=name):
        scrubbed_environment(SOURCE, passthrough=[name])
