"""`edges.policy_file`: the repository root, resolved paths, and the line map."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.errors import PolicyError

POLICY = """\
version: 1
corpus: .toolfuzz/corpus
tools:
  - name: t
    schema: schemas/t.json
    handler:
      command: [python, t.py]
      effects_directory: state
"""


def make_repo(root: Path) -> Path:
    (root / "schemas").mkdir(parents=True)
    (root / "state").mkdir()
    (root / "schemas" / "t.json").write_text('{"type": "object"}', encoding="utf-8")
    (root / "config").mkdir()
    policy = root / "config" / "policy.yml"
    policy.write_text(POLICY, encoding="utf-8")
    return policy


def test_paths_resolve_against_the_git_top_level(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    policy_file = make_repo(root)
    (root / ".git").mkdir()
    loaded = load_policy(policy_file)
    assert loaded.root == root.resolve()
    tool = loaded.policy.tools[0]
    assert tool.schema == str((root / "schemas" / "t.json").resolve())
    assert tool.handler.effects_directory == str((root / "state").resolve())
    assert tool.handler.cwd == str(root.resolve())
    assert loaded.policy.corpus == str((root / ".toolfuzz" / "corpus").resolve())
    assert loaded.lines["/tools/0/handler/effects_directory"] == 8
    assert loaded.lines["/tools/0/handler/command/1"] == 7


def test_without_git_the_root_is_the_policy_directory(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    policy_file = make_repo(root)
    with pytest.raises(PolicyError) as caught:
        load_policy(policy_file)
    assert (caught.value.line, caught.value.key) == (5, "tools/0/schema")
    loaded = load_policy(policy_file, root)
    assert loaded.root == root.resolve()


def test_a_corpus_outside_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    policy_file = make_repo(root)
    policy_file.write_text(POLICY.replace(".toolfuzz/corpus", "/tmp/corpus"), encoding="utf-8")
    with pytest.raises(PolicyError, match="escapes the repository root") as caught:
        load_policy(policy_file, root)
    assert (caught.value.line, caught.value.key) == (2, "corpus")


def test_a_root_that_is_not_a_directory(tmp_path: Path) -> None:
    policy_file = make_repo(tmp_path / "repo")
    with pytest.raises(PolicyError, match="is not a directory"):
        load_policy(policy_file, tmp_path / "missing")


def test_anchors_and_merge_keys_within_bounds_are_fine(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    policy_file = make_repo(root)
    policy_file.write_text(
        "version: 1\n"
        "defaults: {runs: 5}\n"
        "tools:\n"
        "  - name: a\n"
        "    schema: schemas/t.json\n"
        "    handler: &h {command: [python, t.py]}\n"
        "  - name: b\n"
        "    schema: schemas/t.json\n"
        "    handler:\n"
        "      <<: *h\n"
        "      env: [HOME]\n",
        encoding="utf-8",
    )
    loaded = load_policy(policy_file, root)
    assert [t.handler.argv for t in loaded.policy.tools] == [("python", "t.py")] * 2
    assert loaded.policy.tools[1].handler.env == ("HOME",)
    assert loaded.policy.tools[0].options.runs == 5
