"""`toolfuzz-gate diff` end to end, through `cli.run`: receipts the engine really wrote
(`fuzz` on the poster fixtures, python handlers in worker subprocesses), a refused tool's
receipt sealed by hand, and the acceptance run in a real temporary git repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import POSTER_CONTRACT, invoke
from tests.receipts import sealed
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.edges.git import Git, git_environment, temporary_worktree

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
POSTER_FLAGS = (*POSTER_CONTRACT, "--runs", "24")
ECHO_SCHEMA: JSONObject = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 8}},
    "required": ["name"],
    "additionalProperties": False,
}
ECHO_HANDLER = '''"""A correct handler for echo_schema.json: it checks its arguments itself."""

import json
import pathlib

import jsonschema

SCHEMA = json.loads((pathlib.Path(__file__).parent / "echo_schema.json").read_text())


def echo(**arguments):
    try:
        jsonschema.validate(arguments, SCHEMA)
    except jsonschema.ValidationError as error:
        raise ValueError(error.message) from None
    return {"greeting": "hello " + arguments["name"]}
'''


def fuzz_poster(module: str, out: Path, schema: Path = FAULTS / "poster_schema.json") -> int:
    code, _, err = invoke(
        "fuzz",
        "--schema",
        str(schema),
        "--tool",
        "renderPoster",
        "--handler",
        f"python:{module}:render_poster",
        *POSTER_FLAGS,
        "--out",
        str(out),
    )
    assert code in (0, 1), err
    return code


def refused_receipt(tool: str, schema: JSONObject, unsupported: list[JSONObject]) -> JSONObject:
    """What a refused tool's receipt looks like (the policy slice writes these for real)."""
    return sealed(
        {
            "tool": tool,
            "seed": 41,
            "runs": 24,
            "schemaDigest": digest(schema),
            "handler": {"spec": f"python:{tool}:{tool}"},
            "engine": {"name": "toolfuzz-gate", "version": "0.6.0"},
            "limits": {},
            "coverage": {},
            "mutationCounts": {},
            "invariants": {},
            "unsupported": list[Any](unsupported),
            "counterexamples": [],
            "replayCommand": f"toolfuzz-gate fuzz --schema {tool}_schema.json",
        }
    )


@pytest.fixture(scope="module")
def poster_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """`correct` and `lax_width` receipts, each beside the refused tool's receipt
    (refused at base with `if`, at head with `if` and `not`)."""
    root = tmp_path_factory.mktemp("poster")
    base, head = root / "base", root / "head"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(FAULTS)
        assert fuzz_poster("correct", base) == 0
        assert fuzz_poster("lax_width", head) == 1
    write_document(
        base / "refused.json",
        refused_receipt("refused", {"if": {}}, [{"keyword": "if", "path": "/if"}]),
    )
    write_document(
        head / "refused.json",
        refused_receipt(
            "refused",
            {"if": {}, "not": {}},
            [{"keyword": "if", "path": "/if"}, {"keyword": "not", "path": "/not"}],
        ),
    )
    write_document(head / "summary.json", {"format": "toolfuzz-summary/1", "tools": []})
    return base, head


def _diff(base: Path, head: Path) -> tuple[int, Any]:
    code, out, err = invoke("diff", str(base), str(head))
    assert err == ""
    return code, json.loads(out)


def test_a_new_counterexample_and_unsupported_keyword_fail(poster_dirs: tuple[Path, Path]) -> None:
    base, head = poster_dirs
    code, document = _diff(base, head)
    assert code == 1
    assert document["format"] == "toolfuzz-diff/1"
    tools = {entry["tool"]: entry for entry in document["tools"]}
    assert list(tools) == ["refused", "renderPoster"]
    poster = tools["renderPoster"]
    assert poster["status"] == "changed" and poster["schemaDigestChanged"] is False
    [new] = poster["counterexamples"]["new"]
    head_receipt = json.loads((head / "renderPoster.json").read_text(encoding="utf-8"))
    grouping = ("group", "change", "class")  # its root cause (`core.gate.causes`)
    assert {k: v for k, v in new.items() if k not in grouping} == {
        **head_receipt["counterexamples"][0],
        "tool": "renderPoster",
    }
    assert new["change"] == "maximum:above-maximum"
    assert (new["failure"], new["path"], new["mutation"]) == (
        "hostile-accepted",
        "/width",
        "bounds",
    )
    assert poster["invariants"] == [{"name": "hostile-rejected", "base": True, "head": False}]
    assert poster["receipt"] == {"base": "renderPoster.json", "head": "renderPoster.json"}
    refused = tools["refused"]
    assert refused["unsupported"] == {
        "added": [{"keyword": "not", "path": "/not"}],
        "removed": [],
        "still": [{"keyword": "if", "path": "/if"}],
    }
    assert refused["schemaDigestChanged"] is True
    totals = document["totals"]
    assert (totals["new"], totals["fixed"], totals["unsupportedAdded"]) == (1, 0, 1)


def test_the_reverse_diff_reports_them_fixed_and_passes(poster_dirs: tuple[Path, Path]) -> None:
    base, head = poster_dirs
    code, document = _diff(head, base)
    assert code == 0
    totals = document["totals"]
    assert (totals["new"], totals["fixed"]) == (0, 1)
    assert (totals["unsupportedAdded"], totals["unsupportedRemoved"]) == (0, 1)


def test_a_directory_against_itself_is_empty(poster_dirs: tuple[Path, Path]) -> None:
    base, _ = poster_dirs
    code, document = _diff(base, base)
    assert code == 0
    assert set(document["totals"].values()) == {0}
    assert {entry["status"] for entry in document["tools"]} == {"unchanged"}


def test_markdown_is_the_comment_body(poster_dirs: tuple[Path, Path]) -> None:
    base, head = poster_dirs
    code, out, _ = invoke("diff", str(base), str(head), "--format", "markdown")
    assert code == 1
    assert out.startswith("<!-- toolfuzz-gate:default -->\n")
    assert "**seed** 41" in out
    assert "| 1 | hostile-accepted | renderPoster | 1 | accepted the number 401" in out
    assert (
        "| refused | schema.unsupported-keyword | keyword not is not supported "
        "| refused.schema.json:1 | /not | new |"
    ) in out


def test_unreadable_directories_and_receipts_exit_2(
    poster_dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    base, _ = poster_dirs
    code, out, err = invoke("diff", str(base), str(tmp_path / "absent"))
    assert (code, out) == (2, "")
    assert "error[input.unreadable]" in err and "absent" in err
    broken = tmp_path / "broken"
    shutil.copytree(base, broken)
    receipt = json.loads((broken / "renderPoster.json").read_text(encoding="utf-8"))
    receipt["seed"] = 42
    write_document(broken / "renderPoster.json", receipt)
    code, out, err = invoke("diff", str(base), str(broken))
    assert (code, out) == (2, "")
    assert "error[receipt.invalid]" in err and str(broken / "renderPoster.json") in err


def test_diff_flags_are_checked(poster_dirs: tuple[Path, Path]) -> None:
    base, head = poster_dirs
    for argv in (
        ("diff", str(base)),
        ("diff", str(base), str(head), "--format", "html"),
        ("diff", str(base), str(head), "--format", "json", "--format", "json"),
    ):
        code, out, err = invoke(*argv)
        assert (code, out) == (2, ""), argv
        assert "error[usage.invalid]" in err


# The acceptance run: base commit with two correct tools; head commit with a handler bug
# (renderPoster's width check off by one) and a new unsupported keyword (echo's schema).


def sh(repo: Path, *args: str) -> str:
    environment = git_environment({"PATH": "/usr/bin:/bin", "HOME": str(repo.parent)})
    return subprocess.run(
        ["git", *args], cwd=repo, env=environment, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    repo = tmp_path_factory.mktemp("project") / "repo"
    tools = repo / "tools"
    tools.mkdir(parents=True)
    sh(repo, "init", "-q", "-b", "main")
    sh(repo, "config", "user.name", "Test")
    sh(repo, "config", "user.email", "test@example.invalid")
    shutil.copy(FAULTS / "poster_schema.json", tools / "poster_schema.json")
    shutil.copy(FAULTS / "correct.py", tools / "poster.py")
    (tools / "echo.py").write_text(ECHO_HANDLER, encoding="utf-8")
    write_document(tools / "echo_schema.json", ECHO_SCHEMA)
    sh(repo, "add", ".")
    sh(repo, "commit", "-q", "-m", "two correct tools")
    base = sh(repo, "rev-parse", "HEAD")
    shutil.copy(FAULTS / "lax_width.py", tools / "poster.py")
    write_document(tools / "echo_schema.json", {**ECHO_SCHEMA, "unevaluatedItems": False})
    sh(repo, "commit", "-q", "-am", "a width bug and an unsupported keyword")
    return repo, base, sh(repo, "rev-parse", "HEAD")


def receipts_at(repo: Path, sha: str, out: Path) -> Path:
    """Fuzz both tools as checked in at `sha` (inside a temporary worktree) into `out`;
    a tool whose schema is refused gets a refused receipt naming what was unsupported."""
    with temporary_worktree(Git(repo), sha) as root, pytest.MonkeyPatch.context() as patch:
        tools = root / "tools"
        patch.chdir(tools)
        fuzz_poster("poster", out, tools / "poster_schema.json")
        code, out_text, err = invoke(
            "fuzz",
            "--schema",
            str(tools / "echo_schema.json"),
            "--tool",
            "echo",
            "--handler",
            "python:echo:echo",
            "--runs",
            "24",
            "--out",
            str(out),
        )
        if code == 1:  # refused: `fuzz` writes the receipt that says why
            assert "schema.unsupported-keyword at /unevaluatedItems" in out_text, err
            assert "refused" in json.loads((out / "echo.json").read_text(encoding="utf-8"))
        else:
            assert code == 0, err
    return out


def test_acceptance_in_a_real_git_repository(
    project: tuple[Path, str, str], tmp_path: Path
) -> None:
    repo, base_sha, head_sha = project
    base = receipts_at(repo, base_sha, tmp_path / "base")
    head = receipts_at(repo, head_sha, tmp_path / "head")
    assert sorted(p.name for p in base.iterdir()) == [
        "annotations.txt",  # `fuzz` writes the reports a policy run writes
        "comment.md",
        "echo.json",
        "junit.xml",
        "renderPoster.json",
        "results.sarif",
        "summary.json",
    ]
    assert sh(repo, "worktree", "list", "--porcelain").count("worktree ") == 1

    code, forward = _diff(base, head)
    assert code == 1
    totals = forward["totals"]
    assert (totals["new"], totals["unsupportedAdded"]) == (1, 1)
    assert (totals["fixed"], totals["unsupportedRemoved"], totals["stillFailing"]) == (0, 0, 0)
    tools = {entry["tool"]: entry for entry in forward["tools"]}
    [new] = tools["renderPoster"]["counterexamples"]["new"]
    assert (new["failure"], new["path"]) == ("hostile-accepted", "/width")
    assert tools["echo"]["unsupported"]["added"] == [
        {"keyword": "unevaluatedItems", "path": "/unevaluatedItems"}
    ]

    code, backward = _diff(head, base)
    assert code == 0
    totals = backward["totals"]
    assert (totals["new"], totals["fixed"]) == (0, 1)
    assert (totals["unsupportedAdded"], totals["unsupportedRemoved"]) == (0, 1)

    again = receipts_at(repo, base_sha, tmp_path / "again")
    code, same = _diff(base, again)
    assert code == 0
    assert set(same["totals"].values()) == {0}
    assert all(entry["status"] == "unchanged" for entry in same["tools"])
    assert all(
        not entry[group][key]
        for entry in same["tools"]
        for group, key in (("counterexamples", "new"), ("counterexamples", "fixed"))
    )
