"""The regression corpus end to end through `cli.run`: `promote` a failing run's counterexample,
`run --policy` replays it first (failing the gate whatever the seeds, passing once the handler
is fixed), and `replay RECEIPT` re-runs a receipt's counterexamples.

Each test builds a small repository in a temp directory (a `.git` directory marks its root)
holding copies of the poster fixtures, so `python:` handlers import from the root.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke, poster_repository

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
REJECTS = '["toolfuzz_gate.contract.poster:ToolError"]'
POLICY = """\
version: 1
defaults: {{runs: 16}}
gate: {{fail_on: [{fail_on}]}}
corpus: .toolfuzz/corpus
tools:
  - name: poster
    schema: schemas/poster.json
    handler: {{python: "{module}:render_poster", rejects: {rejects}}}
    expected_rejections: [policy-pixel-budget, policy-duplicate-semantic-intent]
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
"""


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return poster_repository(tmp_path)


def write_policy(repo: Path, module: str, fail_on: str = "invariant") -> Path:
    path = repo / "policy.yml"
    path.write_text(POLICY.format(module=module, fail_on=fail_on, rejects=REJECTS), "utf-8")
    return path


def failing_receipt(repo: Path) -> tuple[Path, Path]:
    """A `run --policy` with the lax handler: (its receipt, the policy)."""
    policy = write_policy(repo, "lax_width")
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(repo / "first"))
    assert code == 1, err
    return repo / "first" / "poster.json", policy


def promoted(repo: Path) -> tuple[Path, Path, str]:
    """Promote the lax run's one counterexample: (receipt, policy, case file)."""
    receipt, policy = failing_receipt(repo)
    [example] = read(receipt)["counterexamples"]
    code, out, err = invoke("promote", str(receipt), "--policy", str(policy))
    assert code == 0, err
    case = repo / ".toolfuzz" / "corpus" / "poster" / f"{example['fingerprint']}.json"
    assert out == f"wrote: {case}\n"
    return receipt, policy, str(case)


def test_promote_writes_one_small_case_file_and_is_idempotent(repo: Path) -> None:
    receipt, _, case_file = promoted(repo)
    case = read(Path(case_file))
    [example] = read(receipt)["counterexamples"]
    assert case["format"] == "toolfuzz-case/1" and case["tool"] == "poster"
    assert (case["failure"], case["path"]) == ("hostile-accepted", "/width")
    assert case["inputKind"] == "hostile"
    assert case["input"] == example["input"] and case["input"]["width"] == 401
    assert case["expected"] == {
        "outcome": "rejected",
        "inputValid": False,
        "invariant": "hostile-rejected",
    }
    assert case["provenance"]["receiptHash"] == read(receipt)["receiptHash"]
    assert case["provenance"]["seed"] == 41 and case["provenance"]["stream"] == "hostile"
    first = Path(case_file).read_bytes()
    code, out, err = invoke(
        "promote", str(receipt), "--corpus", str(repo / ".toolfuzz" / "corpus"),
        "--fingerprint", example["fingerprint"],
    )  # fmt: skip
    assert code == 0, err
    assert out == f"unchanged: {case_file}\n"
    assert Path(case_file).read_bytes() == first


def test_promote_usage_errors(repo: Path) -> None:
    receipt, policy = failing_receipt(repo)
    [example] = read(receipt)["counterexamples"]
    code, _, err = invoke("promote", str(receipt), "--policy", str(policy), "--fingerprint", "nope")
    assert code == 2
    assert "no counterexample with fingerprint 'nope'" in err and example["fingerprint"] in err
    code, _, err = invoke("promote", str(receipt))
    assert code == 2 and "--policy FILE" in err and "--corpus DIR" in err
    code, _, err = invoke("promote", str(receipt), "--policy", str(policy), "--corpus", "x")
    assert code == 2 and "conflict" in err
    no_corpus = repo / "plain.yml"
    no_corpus.write_text(policy.read_text("utf-8").replace("corpus: .toolfuzz/corpus\n", ""))
    code, _, err = invoke("promote", str(receipt), "--policy", str(no_corpus))
    assert code == 2 and "names no corpus directory" in err
    summary = repo / "first" / "summary.json"
    code, _, err = invoke("promote", str(summary), "--corpus", str(repo / "c"))
    assert code == 2 and f"{summary} is not a receipt" in err
    assert not (repo / "c").exists()


def test_the_corpus_fails_the_gate_whatever_the_seeds_until_the_handler_is_fixed(
    repo: Path,
) -> None:
    _, _, case_file = promoted(repo)
    fingerprint = Path(case_file).stem
    # the policy counts no fuzzing finding: only the corpus can fail this gate
    policy = write_policy(repo, "lax_width", fail_on="unsupported-keyword")
    out_dir = repo / "again"
    code, out, err = invoke(
        "run", "--policy", str(policy), "--out", str(out_dir), "--seed", "7", "--runs", "1"
    )
    assert code == 1, err
    assert out.startswith("corpus: 1 case(s) in ")
    assert f"still-failing: poster hostile-accepted at /width ({fingerprint}" in out
    summary = read(out_dir / "summary.json")
    assert summary["verdict"] == "failed"
    assert summary["reasons"][0] == (
        "regression: 1 corpus case(s) fail again: poster hostile-accepted at /width (still-failing)"
    )
    assert summary["regressions"] == [
        {
            "file": f"poster/{fingerprint}.json",
            "tool": "poster",
            "fingerprint": fingerprint,
            "outcome": "still-failing",
        }
    ]
    assert read(out_dir / "poster.json")["seed"] == 7

    fixed = write_policy(repo, "correct")
    code, out, err = invoke("run", "--policy", str(fixed), "--out", str(out_dir))
    assert code == 0, err
    assert f"fixed: poster hostile-accepted at /width ({fingerprint}" in out
    summary = read(out_dir / "summary.json")
    assert summary["verdict"] == "passed" and summary["reasons"] == []
    assert [entry["outcome"] for entry in summary["regressions"]] == ["fixed"]


def test_a_case_whose_input_the_schema_now_allows_is_stale(repo: Path) -> None:
    _, _, case_file = promoted(repo)
    schema = read(repo / "schemas" / "poster.json")
    schema["properties"]["width"]["maximum"] = 500
    (repo / "schemas" / "poster.json").write_text(json.dumps(schema), encoding="utf-8")
    policy = write_policy(repo, "lax_width", fail_on="unsupported-keyword")
    code, out, err = invoke("run", "--policy", str(policy), "--out", str(repo / "o"))
    assert code == 0, err
    assert f"stale: poster hostile-accepted at /width ({Path(case_file).stem}" in out
    assert "schema-valid now: re-promote or delete the case" in out
    assert [e["outcome"] for e in read(repo / "o" / "summary.json")["regressions"]] == ["stale"]
    code, out, err = invoke("replay", str(repo / "first" / "poster.json"), "--policy", str(policy))
    assert code == 0, err
    assert "stale: poster" in out


def test_cases_of_tools_the_policy_lost_are_reported_and_ignored(repo: Path) -> None:
    _, _, case_file = promoted(repo)
    moved = repo / ".toolfuzz" / "corpus" / "gone" / Path(case_file).name
    moved.parent.mkdir()
    case = read(Path(case_file))
    moved.write_text(json.dumps({**case, "tool": "gone"}), encoding="utf-8")
    Path(case_file).unlink()
    policy = write_policy(repo, "correct")
    code, out, err = invoke("run", "--policy", str(policy), "--out", str(repo / "o"))
    assert code == 0, err
    assert f"ignored: gone/{moved.name} is for tool 'gone', not in the policy" in out
    assert [e["outcome"] for e in read(repo / "o" / "summary.json")["regressions"]] == ["ignored"]


def test_cases_of_a_tool_whose_handler_cannot_start_are_not_run_and_the_run_goes_on(
    repo: Path,
) -> None:
    _, _, case_file = promoted(repo)
    policy = write_policy(repo, "no_such_module_xyz")
    code, out, err = invoke("run", "--policy", str(policy), "--out", str(repo / "o"))
    assert code == 1, err  # the tool is refused: a new refusal fails the gate
    assert "not run: 1 case(s) of tool 'poster': " in out and "no_such_module_xyz" in out
    summary = read(repo / "o" / "summary.json")
    assert [e["outcome"] for e in summary["regressions"]] == ["not-run"]
    assert summary["regressions"][0]["file"] == f"poster/{Path(case_file).name}"
    [reason] = read(repo / "o" / "poster.json")["refused"]["reasons"]
    assert reason["code"] == "handler.unusable"


def test_a_malformed_case_file_stops_the_run_naming_the_file(repo: Path) -> None:
    _, policy, case_file = promoted(repo)
    Path(case_file).write_text('{"format": "toolfuzz-case/1", "tool": 3}', encoding="utf-8")
    code, _, err = invoke("run", "--policy", str(policy), "--out", str(repo / "o"))
    assert code == 2
    assert f"error[corpus.invalid]: corpus case {case_file} is not a case file" in err
    assert "member 'tool' is missing or not a string" in err and "Traceback" not in err


def test_replay_with_the_policy_exits_1_while_failing_and_0_once_fixed(repo: Path) -> None:
    receipt, policy = failing_receipt(repo)
    code, out, err = invoke("replay", str(receipt), "--policy", str(policy))
    assert code == 1, err
    assert "still-failing: poster hostile-accepted at /width" in out
    assert out.endswith("replay: 1 of 1 still fail\n")
    fixed = write_policy(repo, "correct")
    code, out, err = invoke("replay", str(receipt), "--policy", str(fixed))
    assert code == 0, err
    assert "fixed: poster hostile-accepted at /width" in out
    assert out.endswith("replay: 0 of 1 still fail\n")


def test_replay_of_a_policy_receipt_without_the_policy_says_to_give_it(repo: Path) -> None:
    receipt, _ = failing_receipt(repo)
    code, out, err = invoke("replay", str(receipt))
    assert code == 2 and out == ""
    assert "comes from `run --policy" in err and "give --policy FILE" in err


def test_replay_of_a_fuzz_receipt_rebuilds_the_handler_from_the_receipt(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    receipt = repo / "fuzzed.json"
    code, _, err = invoke(
        "fuzz", "--schema", "schemas/poster.json", "--tool", "poster",
        "--handler", "python:lax_width:render_poster",
        "--rejects", "toolfuzz_gate.contract.poster:ToolError",
        "--expected-rejection", "policy-pixel-budget",
        "--expected-rejection", "policy-duplicate-semantic-intent",
        "--runs", "8", "--receipt", str(receipt),
    )  # fmt: skip
    assert code == 1, err
    code, out, err = invoke("replay", str(receipt))
    assert code == 1, err
    assert "still-failing: poster hostile-accepted at /width" in out
    shutil.copy(repo / "correct.py", repo / "lax_width.py")  # the bug fixed in place
    code, out, err = invoke("replay", str(receipt))
    assert code == 0, err
    assert "fixed: poster hostile-accepted at /width" in out


def test_replay_refuses_unusable_receipts(repo: Path) -> None:
    receipt, _ = failing_receipt(repo)
    edited = read(receipt)
    edited["counterexamples"][0]["input"]["width"] = 400
    tampered = repo / "tampered.json"
    tampered.write_text(json.dumps(edited), encoding="utf-8")
    code, _, err = invoke("replay", str(tampered))
    assert code == 2 and "receiptHash does not match" in err
    code, _, err = invoke("replay", str(receipt), "--fingerprint", "0" * 24)
    assert code == 2 and "no counterexample with fingerprint" in err
