"""The simulated runner of `tests/composite_runner.py` does what the runner does with a
composite action's expressions and files (the composite action test relies on it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.composite_runner import Job, evaluate, read_pairs, run_composite

CONTEXT = {
    "inputs": {"name": "value", "empty": ""},
    "steps": {"first": {"outputs": {"python-path": "/opt/py"}}},
}


def test_expressions_of_the_subset_action_yml_uses() -> None:
    assert evaluate("inputs.name", CONTEXT) == "value"
    assert evaluate("inputs.missing", CONTEXT) == ""
    assert evaluate("inputs.empty || steps.first.outputs.python-path", CONTEXT) == "/opt/py"
    assert evaluate("steps.first.outputs.python-path == ''", CONTEXT) == ""
    assert evaluate("inputs.empty == ''", CONTEXT) == "true"
    assert evaluate("inputs.name != 'value'", CONTEXT) == ""
    with pytest.raises(AssertionError, match="does not evaluate"):
        evaluate("format('{0}', inputs.name)", CONTEXT)


def test_output_files_are_read_in_both_forms() -> None:
    text = "a=1\nb<<EOF_x\nline one\nline=two\nEOF_x\nc=x=y\n"
    assert read_pairs(text) == {"a": "1", "b": "line one\nline=two", "c": "x=y"}


ACTION = """\
name: probe
description: probe
inputs:
  greeting: {description: d, default: hello}
outputs:
  said: {description: d, value: "${{ steps.second.outputs.said }}"}
runs:
  using: composite
  steps:
    - id: first
      shell: bash
      env:
        GREETING: ${{ inputs.greeting }}
      run: |
        echo "word=$GREETING" >> "$GITHUB_OUTPUT"
        echo "LATER=from-env-file" >> "$GITHUB_ENV"
        mkdir -p "$RUNNER_TEMP/tools"
        printf '#!/bin/sh\\necho tool\\n' > "$RUNNER_TEMP/tools/probe-tool"
        chmod +x "$RUNNER_TEMP/tools/probe-tool"
        echo "$RUNNER_TEMP/tools" >> "$GITHUB_PATH"
    - id: second
      if: steps.first.outputs.word != ''
      shell: bash
      env:
        WORD: ${{ steps.first.outputs.word }}
      run: |
        echo "said=$WORD $LATER $(probe-tool) $(basename "$GITHUB_ACTION_PATH")" >> "$GITHUB_OUTPUT"
        exit 3
    - id: third
      shell: bash
      run: echo never
"""


def test_steps_see_earlier_outputs_env_and_path_and_a_failure_ends_the_action(
    tmp_path: Path,
) -> None:
    action = tmp_path / "the-action"
    action.mkdir()
    (action / "action.yml").write_text(ACTION)
    temp = tmp_path / "temp"
    temp.mkdir()
    environ = {"PATH": os.environ["PATH"], "RUNNER_TEMP": str(temp), "HOME": str(temp)}
    job = Job(action, tmp_path, temp, environ, "token", tmp_path / "store")
    done = run_composite(job, {"greeting": "hi"})
    assert done.code == 3
    assert done.outputs == {"said": "hi from-env-file tool the-action"}
    assert [step.kind for step in done.steps] == ["run", "run", "skipped"]
