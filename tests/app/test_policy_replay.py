"""Before "new" or "fixed", the other side is asked: replay of unmatched inputs (issue 11)."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.cli_helpers import commit, git, init_repository
from tests.receipts import sealed
from toolfuzz_gate.app.policy_gate import gate_policy, gate_policy_on_baseline
from toolfuzz_gate.app.policy_replay import reproduced_on
from toolfuzz_gate.app.requests import BaselineRequest, PolicyRunRequest
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, unmatched
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.receipts import load_receipts

PAGER = Path(__file__).parents[1] / "fixtures" / "pager"
POLICY = """\
version: 1
defaults: {runs: 12}
gate: {fail_on: [new-counterexample]}
tools:
  - name: list_items
    schema: limit.json
    handler: {python: "pager:list_items", rejects: ["pager:Rejected"]}
"""
OTHER_FINGERPRINT = "0123456789abcdef01234567"


def _repository(root: Path, limit: int) -> None:
    init_repository(root)
    shutil.copy(PAGER / "limit.json", root / "limit.json")
    logic = (PAGER / "pager.py").read_text().replace("LIMIT = 10", f"LIMIT = {limit}")
    (root / "pager.py").write_text(logic)
    (root / "toolfuzz.yml").write_text(POLICY)
    commit(root, f"limit {limit}")


def _gate(root: Path, out: Path, base: Path | None = None) -> tuple[int, str]:
    """A policy run, diffed against the receipts stored in `base` when given."""
    stdout = io.StringIO()
    policy = root / "toolfuzz.yml"
    argv = ("run", "--policy", str(policy), "--out", str(out))
    request = PolicyRunRequest(policy=policy, out=out, argv=argv)
    if base is None:
        return int(gate_policy(request, stdout)), stdout.getvalue()
    baseline = BaselineRequest(request, directory=base)
    return int(gate_policy_on_baseline(baseline, stdout)), stdout.getvalue()


def _moved(directory: Path) -> None:
    """The stored receipt as an older engine might have fingerprinted the same bug."""
    path = directory / "list_items.json"
    receipt: dict[str, Any] = json.loads(path.read_text())
    body = {key: value for key, value in receipt.items() if key != "receiptHash"}
    body["counterexamples"][0]["fingerprint"] = OTHER_FINGERPRINT
    path.write_text(json.dumps(sealed(body), indent=2) + "\n")


def test_only_a_side_that_fails_the_input_reproduces_it(tmp_path: Path) -> None:
    buggy, correct = tmp_path / "buggy", tmp_path / "correct"
    _repository(buggy, 11)
    _repository(correct, 10)
    assert _gate(buggy, tmp_path / "out")[0] == 1
    found = load_receipts(tmp_path / "out")
    (receipt,) = found.receipts.values()
    clean = ReceiptSet({"list_items": replace(receipt, counterexamples=())})
    wanted = unmatched(found, clean)
    assert [cx.path for cx in wanted["list_items"]] == ["/limit"]
    fingerprint = wanted["list_items"][0].fingerprint
    on_buggy = reproduced_on(load_policy(buggy / "toolfuzz.yml"), {}, found, wanted)
    on_correct = reproduced_on(load_policy(correct / "toolfuzz.yml"), {}, found, wanted)
    assert on_buggy == {("list_items", fingerprint)}
    assert on_correct == frozenset()
    assert unmatched(found, found) == {}


def test_a_stored_base_bug_the_head_still_has_is_not_fixed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _repository(root, 11)
    assert _gate(root, tmp_path / "base")[0] == 1
    _moved(tmp_path / "base")
    code, text = _gate(root, tmp_path / "head", tmp_path / "base")
    diff: dict[str, Any] = json.loads((tmp_path / "head" / "diff.json").read_text())
    (tool,) = diff["tools"]
    assert tool["counterexamples"]["fixed"] == [], text
    # the head's fingerprint is new by fingerprint alone, and the stored base cannot be
    # asked; but it is the same root cause (class, input change, words) as the base's, so it
    # is still failing, not new (issue 31)
    assert tool["counterexamples"]["new"] == []
    [known] = [cx for cx in tool["counterexamples"]["stillFailing"] if cx.get("knownGroup")]
    assert known["path"] == "/limit"
    assert code == 0, text  # nothing new, so new-counterexample holds


def test_a_base_bug_the_head_fixed_is_fixed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _repository(root, 11)
    assert _gate(root, tmp_path / "base")[0] == 1
    _moved(tmp_path / "base")
    logic = (root / "pager.py").read_text().replace("LIMIT = 11", "LIMIT = 10")
    (root / "pager.py").write_text(logic)
    git(root, "commit", "-qam", "the fix")
    code, text = _gate(root, tmp_path / "head", tmp_path / "base")
    diff: dict[str, Any] = json.loads((tmp_path / "head" / "diff.json").read_text())
    assert diff["totals"]["fixed"] == 1 and diff["totals"]["new"] == 0, text
    assert code == 0, text
