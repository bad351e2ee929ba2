"""The gate's own input readers against hostile files (issue 12): whatever a schema, tools
file, policy, receipt, `pr.json` or event payload holds, the gate exits 0, 1 or 2 with a
message, never 3 (`internal error`). Hypothesis writes the files; the CLI runs in process."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli_helpers import FAULTS, POSTER_CONTRACT
from tests.profiles import examples
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
SETTINGS = settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])


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
    schema.write_text('{"type": "object", "properties": {"\\u0080\\ud800": {"type": "integer"}}}')
    # lint reports the schema error (exit 2); fuzz refuses the tool in its receipt and
    # exits by the verdict, which a new refusal fails (issue 18)
    for argv, expected in (
        (["lint", str(schema)], 2),
        (
            [
                "fuzz",
                "--schema",
                str(schema),
                "--runs",
                "1",
                "--handler",
                "python:json:dumps",
                "--out",
                str(tmp_path / "out"),
            ],
            1,
        ),
    ):
        code, text = _invoke(argv)
        assert code == expected, text
        assert "schema.lone-surrogate" in text and "/properties/" in text, text


def test_a_policy_holding_a_character_yaml_refuses_is_a_policy_error(tmp_path: Path) -> None:
    """Found by `test_policy_files`: YAML's reader refused a NUL before the parse began."""
    policy = tmp_path / "toolfuzz.yml"
    policy.write_bytes(b"version: 1\ntools: []\n\x00")
    code, text = _invoke(["run", "--policy", str(policy), "--out", str(tmp_path / "out")])
    assert code == 2, text
    assert f"{policy}:3: (document): not valid YAML: character #x0000" in text, text


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


@pytest.fixture(scope="module")
def receipt(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A receipt the engine wrote, so that `mode: report` reads on to `pr.json`."""
    out = tmp_path_factory.mktemp("receipt")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(FAULTS)
        code, text = _invoke(
            [
                "fuzz",
                "--schema",
                str(FAULTS / "poster_schema.json"),
                "--tool",
                "renderPoster",
                "--handler",
                "python:correct:render_poster",
                *POSTER_CONTRACT,
                "--runs",
                "4",
                "--out",
                str(out),
            ]
        )
    assert code == 0, text
    return (out / "renderPoster.json").read_bytes()


@SETTINGS
@given(
    event=FILES,
    pr_file=FILES,
    name=st.sampled_from(["pull_request", "push", "workflow_dispatch", "workflow_run"]),
)
def test_event_payloads_and_pr_files(
    receipt: bytes, event: bytes, pr_file: bytes, name: str
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "event.json").write_bytes(event)
        (root / "results").mkdir()
        (root / "results" / "renderPoster.json").write_bytes(receipt)
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


@SETTINGS
@given(pr_file=FILES)
def test_pr_files(receipt: bytes, pr_file: bytes) -> None:
    """A genuine workflow_run event without pull requests: the number comes from pr.json."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        run = {"head_sha": "a" * 40, "conclusion": "failure", "pull_requests": []}
        (root / "event.json").write_text(json.dumps({"workflow_run": run}))
        (root / "results").mkdir()
        (root / "results" / "renderPoster.json").write_bytes(receipt)
        (root / "results" / "pr.json").write_bytes(pr_file)
        environ = {
            "GITHUB_EVENT_NAME": "workflow_run",
            "GITHUB_EVENT_PATH": str(root / "event.json"),
            "GITHUB_WORKSPACE": str(root),
            "GITHUB_REPOSITORY": "octo/tools",
            "INPUT_MODE": "report",
            "INPUT_RESULTS-DIR": "results",
        }
        code, text = _invoke(["action"], environ)
        _assert_handled(code, text)
        assert code in (0, 2), text
