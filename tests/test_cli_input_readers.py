"""The gate's own input readers against hostile files (issue 12): whatever a schema, tools
file, policy, receipt, `pr.json` or event payload holds, the gate exits 0, 1 or 2 with a
message, never 3 (`internal error`). Hypothesis writes the files; the CLI runs in process."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolfuzz_gate.cli import run

# Text with what breaks readers: lone surrogates, NULs, format characters, huge numbers.
_TEXT = st.one_of(
    st.text(
        st.one_of(
            st.characters(codec=None),
            st.sampled_from(["\ud800", "\udfff", "\x00", "\u200b", "\ufeff"]),
        ),
        max_size=8,
    ),
    st.sampled_from(["$ref", "#/", "#/properties", "http://x/"]),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    _TEXT,
    st.sampled_from(["object", "string", "integer", "array", 1, 0, -1]),
)
_KEYS = st.one_of(
    _TEXT,
    st.sampled_from(
        [
            "type",
            "properties",
            "required",
            "items",
            "enum",
            "const",
            "pattern",
            "minLength",
            "maximum",
            "$ref",
            "$schema",
            "tools",
            "name",
            "schema",
            "handler",
            "version",
            "format",
            "receipt",
            "counterexamples",
            "number",
            "pull_request",
            "workflow_run",
            "head_sha",
            "before",
            "inputSchema",
            "parameters",
        ]
    ),
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=20,
)
FILES = st.one_of(
    JSON_VALUES.map(lambda value: json.dumps(value).encode("ascii")),  # surrogates as escapes
    st.binary(max_size=64),
)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _invoke(argv: list[str], environ: dict[str, str] | None = None) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out, err, environ)
    return code, out.getvalue() + err.getvalue()


def _assert_handled(code: int, text: str) -> None:
    assert code in (0, 1, 2), text
    assert "internal error" not in text, text
    assert text.strip(), "an exit without a message"


def test_a_schema_key_with_a_lone_surrogate_is_a_schema_error(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "properties": {"\\ud800": {"type": "integer"}}}')
    for argv in (
        ["lint", str(schema)],
        ["fuzz", "--schema", str(schema), "--runs", "1", "--handler", "python:json:dumps"],
    ):
        code, text = _invoke(argv)
        assert code == 2, text
        assert "schema.lone-surrogate" in text and "/properties/" in text, text


@SETTINGS
@given(FILES, st.sampled_from(["schema.json", "tools.json"]))
def test_schema_and_tools_files(data: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(data)
        _assert_handled(*_invoke(["lint", str(path)]))


@SETTINGS
@given(st.one_of(FILES, JSON_VALUES.map(lambda v: ("version: 1\n" + json.dumps(v)).encode())))
def test_policy_files(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "toolfuzz.yml"
        path.write_bytes(data)
        argv = ["run", "--policy", str(path), "--out", str(Path(directory) / "out")]
        _assert_handled(*_invoke(argv))


@SETTINGS
@given(FILES, FILES)
def test_receipts(base: bytes, head: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        for side, data in (("base", base), ("head", head)):
            (Path(directory) / side).mkdir()
            (Path(directory) / side / "tool.json").write_bytes(data)
        _assert_handled(*_invoke(["diff", f"{directory}/base", f"{directory}/head"]))


@SETTINGS
@given(
    FILES,
    FILES,
    st.sampled_from(["pull_request", "push", "workflow_dispatch", "workflow_run"]),
)
def test_event_payloads_and_pr_files(event: bytes, pr_file: bytes, name: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "event.json").write_bytes(event)
        (root / "results").mkdir()
        (root / "results" / "pr.json").write_bytes(pr_file)
        environ: dict[str, Any] = {
            "GITHUB_EVENT_NAME": name,
            "GITHUB_EVENT_PATH": str(root / "event.json"),
            "GITHUB_WORKSPACE": str(root),
            "GITHUB_REPOSITORY": "octo/tools",
            "INPUT_MODE": "report" if name == "workflow_run" else "run",
            "INPUT_RESULTS-DIR": "results",
            "INPUT_BASELINE": "none",
        }
        _assert_handled(*_invoke(["action"], environ))
