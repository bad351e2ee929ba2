"""The action's inputs: defaults, every accepted form, and a clear refusal for the rest."""

from __future__ import annotations

import pytest

from toolfuzz_gate.core.github.action_inputs import INPUTS, environment_name, read_inputs
from toolfuzz_gate.errors import UsageError


def test_defaults_when_the_runner_sets_nothing() -> None:
    inputs = read_inputs({})
    assert inputs.policy == "toolfuzz-gate.yml"
    assert inputs.token == ""
    assert (inputs.baseline, inputs.baseline_dir) == ("rerun", None)
    assert inputs.fail_on is None
    assert (inputs.comment, inputs.comment_key) == ("update", "default")
    assert inputs.output_dir == inputs.results_dir == "toolfuzz-gate-results"
    assert (inputs.seed, inputs.runs, inputs.mode) == (None, None, "run")
    assert inputs.jobs is None


def test_names_keep_their_hyphens() -> None:
    assert environment_name("github-token") == "INPUT_GITHUB-TOKEN"
    assert environment_name("comment-key") == "INPUT_COMMENT-KEY"
    names = [spec.name for spec in INPUTS]
    assert all(name == name.lower() and "_" not in name for name in names)
    assert len(set(names)) == len(names)


def test_every_input_is_read() -> None:
    environ = {
        "INPUT_POLICY": " ci/gate.yml ",
        "INPUT_GITHUB-TOKEN": "tok-123",
        "INPUT_BASELINE": "dir:stored/receipts",
        "INPUT_FAIL-ON": "invariant, unsupported-keyword,invariant",
        "INPUT_COMMENT": "recreate",
        "INPUT_COMMENT-KEY": "mcp.server-2",
        "INPUT_OUTPUT-DIR": "out/gate",
        "INPUT_SEED": "-7",
        "INPUT_RUNS": "30",
        "INPUT_JOBS": "3",
        "INPUT_MODE": "report",
        "INPUT_RESULTS-DIR": "downloaded",
    }
    inputs = read_inputs(environ)
    assert inputs.policy == "ci/gate.yml"
    assert inputs.token == "tok-123"
    assert (inputs.baseline, inputs.baseline_dir) == ("dir", "stored/receipts")
    assert inputs.fail_on == ("invariant", "unsupported-keyword")
    assert (inputs.comment, inputs.comment_key) == ("recreate", "mcp.server-2")
    assert (inputs.output_dir, inputs.results_dir) == ("out/gate", "downloaded")
    assert (inputs.seed, inputs.runs, inputs.mode) == (-7, 30, "report")
    assert inputs.jobs == 3


def test_baseline_none() -> None:
    assert read_inputs({"INPUT_BASELINE": "none"}).baseline == "none"


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("INPUT_BASELINE", "rebase", "rerun, dir:PATH or none"),
        ("INPUT_BASELINE", "dir:../elsewhere", "inside the workspace"),
        ("INPUT_POLICY", "/etc/passwd", "inside the workspace"),
        ("INPUT_OUTPUT-DIR", "a/../../b", "inside the workspace"),
        ("INPUT_FAIL-ON", "invariants", "comma-separated list of"),
        ("INPUT_FAIL-ON", " , ", "names nothing"),
        ("INPUT_COMMENT", "always", "update, recreate, off"),
        ("INPUT_COMMENT-KEY", "a b", "comment-key"),
        ("INPUT_COMMENT-KEY", "-->", "comment-key"),
        ("INPUT_SEED", "2147483648", "integer from -2147483648"),
        ("INPUT_SEED", "1e3", "integer from -2147483648"),
        ("INPUT_RUNS", "1001", "integer from 1 to 1000"),
        ("INPUT_RUNS", "0", "integer from 1"),
        ("INPUT_JOBS", "0", "integer from 1 to 64"),
        ("INPUT_JOBS", "65", "integer from 1 to 64"),
        ("INPUT_MODE", "gate", "run, report"),
        ("INPUT_POLICY", "x" * 5000, "longer than"),
    ],
)
def test_bad_values_name_the_input(name: str, value: str, words: str) -> None:
    with pytest.raises(UsageError) as raised:
        read_inputs({name: value})
    assert words in raised.value.message


def test_the_token_is_taken_verbatim_and_never_echoed() -> None:
    inputs = read_inputs({"INPUT_GITHUB-TOKEN": " spaced-token "})
    assert inputs.token == " spaced-token "
    with pytest.raises(UsageError) as raised:
        read_inputs({"INPUT_GITHUB-TOKEN": "secret-value", "INPUT_MODE": "x"})
    assert "secret-value" not in raised.value.render()
