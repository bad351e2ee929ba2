"""`run --policy --shard I/N` and `merge` end to end through `cli.run`: shards merged are the
unsharded run byte for byte; shards that do not fit together exit 2 naming why.

The shards are built once per module in a small repository (a `.git` directory marks its
root) with the poster fixtures: four entries (one correct, one lax, one whose schema the
engine refuses, and a tools-file entry that expands to two) under two seeds each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import invoke
from toolfuzz_gate.app.reports import REPORTS

FAULTS = Path(__file__).parents[1] / "fixtures" / "poster_faults"
HANDLER = (
    '{{python: "{module}:render_poster", rejects: ["toolfuzz_gate.contract.poster:ToolError"]}}'
)
POLICY = """\
version: 1
defaults: {{runs: 8, seeds: [5, 6]}}
gate: {{fail_on: [invariant, unsupported-keyword], min_coverage: {{bounds: tested}}}}
tools:
  - name: correct
    schema: schemas/poster.json
    handler: {correct}
    expected_rejections: [policy-pixel-budget, policy-duplicate-semantic-intent]
    error_codes: "^(schema|policy)-"
    dry_run: dryRun
  - name: lax
    schema: schemas/poster.json
    handler: {lax}
  - name: refused
    schema: schemas/refused.json
    handler: {correct}
  - name: declared
    tools: tools.json
    handler: {lax}
"""


def files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def write_policy(path: Path, **extra: str) -> Path:
    text = POLICY.format(
        correct=HANDLER.format(module="correct"), lax=HANDLER.format(module="lax_width")
    )
    path.write_text(text + "".join(extra.values()), encoding="utf-8")
    return path


class Built:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.policy = root / "policy.yml"
        self.unsharded = root / "unsharded"

    def shard(self, spec: str, policy: Path | None = None) -> Path:
        out = self.root / f"shard-{spec.replace('/', '-of-')}-{(policy or self.policy).stem}"
        if not out.exists():
            code, text, err = invoke(
                "run", "--policy", str(policy or self.policy), "--shard", spec, "--out", str(out)
            )
            assert code == 0, err
            assert f"shard {spec}: " in text and "not the gate's verdict" in text
        return out

    def merge(
        self,
        *dirs: Path,
        policy: Path | None = None,
        extra: tuple[str, ...] = (),
        into: Path | None = None,
    ) -> Any:
        """Merge into `into` (default `merged/`): the run to compare with must have written
        to the same place, since the replay commands in the reports name the directory."""
        out = into or self.root / "merged"
        shutil.rmtree(out, ignore_errors=True)
        given = ("--policy", str(policy or self.policy), *extra)
        code, text, err = invoke("merge", *map(str, dirs), "--out", str(out), *given)
        return code, text, err, out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("shards") / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "schemas").mkdir()
    for name in ("correct.py", "lax_width.py"):
        shutil.copy(FAULTS / name, root / name)
    shutil.copy(FAULTS / "poster_schema.json", root / "schemas" / "poster.json")
    schema = json.loads((root / "schemas" / "poster.json").read_text(encoding="utf-8"))
    schema["properties"]["title"]["contentSchema"] = {"const": "forbidden"}
    (root / "schemas" / "refused.json").write_text(json.dumps(schema), encoding="utf-8")
    del schema["properties"]["title"]["contentSchema"]
    declared = [
        {"type": "function", "function": {"name": name, "parameters": schema}}
        for name in ("first", "second")
    ]
    (root / "tools.json").write_text(json.dumps(declared), encoding="utf-8")
    result = Built(root)
    write_policy(result.policy)
    code, _, err = invoke("run", "--policy", str(result.policy), "--out", str(result.unsharded))
    assert code == 1, err
    return result


@pytest.mark.slow
def test_three_shards_merged_are_the_unsharded_run_byte_for_byte(built: Built) -> None:
    unsharded = files(built.unsharded)
    reports = {report.file for report in REPORTS}  # the reports' own count is theirs
    assert {"summary.json", *reports} <= set(unsharded)
    written = set(unsharded) - reports - {"summary.json"}
    assert len(written) == 10 and "second.seed-6.json" in written  # 5 tools' receipts, 2 seeds
    shards = [built.shard(f"{index}/3") for index in (1, 2, 3)]
    for shard, receipts in zip(shards, (4, 3, 3), strict=True):
        names = set(files(shard))
        assert "summary.json" not in names and "comment.md" not in names
        assert "shard.json" in names and len(names) == receipts + 1
    code, text, err, out = built.merge(shards[2], shards[0], shards[1], into=built.unsharded)
    assert code == 1, err
    assert files(out) == unsharded
    summary = json.loads(unsharded["summary.json"])
    assert summary["verdict"] == "failed" and summary["counts"]["refused"] == 2
    assert any(reason.startswith("min_coverage:") for reason in summary["reasons"])
    assert text.endswith("gate: FAILED\n")


@pytest.mark.slow
def test_more_shards_than_units_merge_too(built: Built) -> None:
    shards = [built.shard(f"{index}/8") for index in range(1, 9)]
    assert len(files(shards[7])) == 2
    unsharded = files(built.unsharded)
    code, _, err, out = built.merge(*shards, into=built.unsharded)
    assert code == 1, err
    assert files(out) == unsharded


@pytest.mark.slow
def test_one_shard_of_one_is_the_whole_run(built: Built) -> None:
    unsharded = files(built.unsharded)
    code, _, err, out = built.merge(built.shard("1/1"), into=built.unsharded)
    assert code == 1, err
    assert files(out) == unsharded


@pytest.mark.slow
def test_a_missing_shard_exits_2(built: Built) -> None:
    code, _, err, out = built.merge(built.shard("1/3"), built.shard("3/3"))
    assert code == 2
    assert "error[shard.invalid]: shard(s) 2 of 3 missing" in err
    assert not out.exists()


def test_a_duplicate_shard_exits_2(built: Built) -> None:
    copy = built.root / "copy-of-2"
    if not copy.exists():
        shutil.copytree(built.shard("2/3"), copy)
    code, _, err, _ = built.merge(built.shard("1/3"), built.shard("2/3"), copy, built.shard("3/3"))
    assert code == 2
    assert f"shard 2/3 is given twice: {built.shard('2/3')} and {copy}" in err


def test_shards_of_different_policies_exit_2(built: Built) -> None:
    other = write_policy(built.root / "other.yml", runs="    runs: 4\n")
    code, _, err, _ = built.merge(
        built.shard("1/3"), built.shard("2/3", policy=other), built.shard("3/3")
    )
    assert code == 2
    assert "are shards of different runs: the policy differ" in err


def test_mixed_n_exits_2(built: Built) -> None:
    code, _, err, _ = built.merge(built.shard("1/3"), built.shard("2/2"), built.shard("3/3"))
    assert code == 2
    assert "are shards of different runs: N differ (3 vs 2)" in err


def test_merge_with_another_policy_file_exits_2(built: Built) -> None:
    other = write_policy(built.root / "other.yml", runs="    runs: 4\n")
    shards = [built.shard(f"{index}/3") for index in (1, 2, 3)]
    code, _, err, _ = built.merge(*shards, policy=other)
    assert code == 2
    assert f"the shards ran another policy than {other}" in err


def test_an_edited_or_swapped_receipt_exits_2(built: Built) -> None:
    edited = built.root / "edited"
    shutil.rmtree(edited, ignore_errors=True)
    shutil.copytree(built.shard("1/3"), edited)
    others = [built.shard("2/3"), built.shard("3/3")]
    receipt = edited / "correct.seed-5.json"
    document = json.loads(receipt.read_text(encoding="utf-8"))
    document["runs"] = 9
    receipt.write_text(json.dumps(document), encoding="utf-8")
    code, _, err, _ = built.merge(edited, *others)
    assert code == 2 and f"receipt {receipt} is not sound" in err
    shutil.copy(edited / "lax.seed-6.json", receipt)
    code, _, err, _ = built.merge(edited, *others)
    assert code == 2 and f"receipt {receipt} is not the one its shard ran" in err
    receipt.unlink()
    code, _, err, _ = built.merge(edited, *others)
    assert code == 2 and f"cannot read receipt {receipt}" in err


@pytest.mark.slow
def test_a_directory_without_a_manifest_exits_2(built: Built) -> None:
    code, _, err, _ = built.merge(built.unsharded)
    assert code == 2 and f"{built.unsharded} holds no shard.json" in err
    code, _, err = invoke("merge", "--out", str(built.root / "nowhere"))
    assert code == 2 and "error[usage.invalid]" in err
    code, _, err = invoke("merge", str(built.shard("1/1")), "--out", str(built.root / "nowhere"))
    assert code == 2 and "--policy" in err and not (built.root / "nowhere").exists()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("0/3", "--shard 0/3: I must be between 1 and N (3)"),
        ("4/3", "--shard 4/3: I must be between 1 and N (3)"),
        ("a/b", "--shard 'a/b' is not I/N"),
        ("1/300", "--shard 1/300: N must be between 1 and 256"),
    ],
)
def test_bad_shard_specs_are_usage_errors(built: Built, spec: str, message: str) -> None:
    out = built.root / "bad-spec"
    code, _, err = invoke("run", "--policy", str(built.policy), "--shard", spec, "--out", str(out))
    assert code == 2
    assert f"error[usage.invalid]: {message}" in err
    assert not out.exists()


def test_shard_goes_with_a_policy_and_without_a_baseline(built: Built) -> None:
    code, _, err = invoke("run", "--shard", "1/2", "--out", str(built.root / "x"))
    assert code == 2 and "--shard goes with --policy" in err
    code, _, err = invoke(
        "run", "--policy", str(built.policy), "--shard", "1/2", "--baseline-dir", str(built.root)
    )
    assert code == 2 and "--shard runs part of the tools, so it cannot diff" in err


@pytest.mark.slow
def test_merge_with_a_stored_baseline_is_the_unsharded_run_with_it(built: Built) -> None:
    single = built.root / "single.yml"
    single.write_text(
        built.policy.read_text(encoding="utf-8").replace("seeds: [5, 6]", "seeds: [5]"),
        encoding="utf-8",
    )
    base = built.root / "single-base"
    if not base.exists():
        code, _, err = invoke("run", "--policy", str(single), "--out", str(base))
        assert code == 1, err
    head = built.root / "single-head"
    shutil.rmtree(head, ignore_errors=True)
    code, _, err = invoke(
        "run", "--policy", str(single), "--baseline-dir", str(base), "--out", str(head)
    )
    assert code == 1, err
    shards = [built.shard(f"{index}/3", policy=single) for index in (1, 2, 3)]
    unsharded = files(head)
    merged_code, _, err, out = built.merge(
        *shards, policy=single, extra=("--baseline-dir", str(base)), into=head
    )
    assert merged_code == 1, err
    assert files(out) == unsharded
    diff = json.loads(files(out)["diff.json"])
    assert diff["totals"]["new"] == 0 and diff["totals"]["stillFailing"] > 0


@pytest.mark.slow
def test_shards_balanced_by_a_previous_runs_costs_merge_to_the_unsharded_run(
    built: Built,
) -> None:
    measured = built.root / "measured"
    code, _, err = invoke(
        "run", "--policy", str(built.policy), "--out", str(measured), "--diagnostics"
    )
    assert code == 1, err
    shards = []
    for index in (1, 2):
        out = built.root / f"costed-{index}"
        flags = ("--shard", f"{index}/2", "--out", str(out), "--shard-costs", str(measured))
        code, _, err = invoke("run", "--policy", str(built.policy), *flags)
        assert code == 0, err
        manifest = json.loads((out / "shard.json").read_text(encoding="utf-8"))
        took = [
            json.loads((measured / unit["receipt"]).read_text(encoding="utf-8")).get("diagnostics")
            for unit in manifest["plan"]
        ]
        known = [round(t["profile"]["wallSeconds"] * 1000) for t in took if t is not None]
        typical = sorted(known)[len(known) // 2]  # a refused tool ran nothing to measure
        assert len(known) == 8
        assert manifest["costs"] == [
            typical if t is None else round(t["profile"]["wallSeconds"] * 1000) for t in took
        ]
        shards.append(out)
    code, _, err, out = built.merge(*shards, into=built.unsharded)
    assert code == 1, err
    assert files(out) == files(built.unsharded)
    code, _, err = invoke(
        "run", "--policy", str(built.policy), "--shard-costs", str(measured), "--out", "x"
    )
    assert code == 2 and "--shard-costs goes with --shard" in err


@pytest.mark.slow
@pytest.mark.parametrize("attack", [False, True])
def test_a_shard_directory_holding_a_symlink_is_refused(
    built: Built, tmp_path: Path, attack: bool
) -> None:
    """Issue 26: a pull request can commit the directory a shard job writes into, or
    the artifact a merge job reads, with a symlink out of the checkout in it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    out = built.root / f"shard-linked-{attack}"
    out.mkdir()
    if attack:
        (out / "base").symlink_to(outside)
    code, _, err = invoke("run", "--policy", str(built.policy), "--shard", "1/3", "--out", str(out))
    assert list(outside.iterdir()) == []
    if attack:
        assert code == 2
        assert f"the output directory: {out.name}/base is a symlink" in err
    else:
        assert code == 0, err
    read = built.root / f"shard-read-{attack}"
    shutil.copytree(built.shard("1/1"), read)
    if attack:  # a receipt of the artifact replaced by a link to a file out of it
        receipt = next(read.glob("*.json"))
        receipt.unlink()
        receipt.symlink_to(built.shard("1/1") / receipt.name)
    code, _, err, merged = built.merge(read)
    if attack:
        assert code == 2
        assert "error[shard.invalid]: a shard directory:" in err and "is a symlink" in err
        assert not merged.exists()
    else:
        assert code == 1, err
