"""`edges.corpus`: case files written once (same bytes again), read back sorted, and every
malformed or misplaced file refused with its path in the message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.core.jsonutil.canonical import canonical_document
from toolfuzz_gate.edges.corpus import changed_by_head, load_corpus, write_case
from toolfuzz_gate.errors import CorpusError

FINGERPRINT = "8f57b61d8ce72698857063fc"


def case(tool: str = "renderPoster", fingerprint: str = FINGERPRINT) -> dict[str, Any]:
    return {
        "format": "toolfuzz-case/1",
        "tool": tool,
        "fingerprint": fingerprint,
        "failure": "hostile-accepted",
        "inputKind": "hostile",
        "path": "/width",
        "keyword": "maximum",
        "mutation": "bounds",
        "operator": "maximum:above-maximum@/width",
        "input": {"title": "a", "width": 401},
        "expected": {"outcome": "rejected", "inputValid": False, "invariant": "hostile-rejected"},
        "provenance": {"stream": "hostile", "case": 21, "seed": 41, "runs": 24},
    }


def test_write_is_idempotent_and_load_reads_it_back(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    assert write_case(corpus, case()) == (f"renderPoster/{FINGERPRINT}.json", True)
    path = corpus / "renderPoster" / f"{FINGERPRINT}.json"
    first = path.read_bytes()
    assert first == canonical_document(case())
    assert write_case(corpus, case()) == (f"renderPoster/{FINGERPRINT}.json", False)
    assert path.read_bytes() == first
    write_case(corpus, case("other", "0" * 24))
    loaded = load_corpus(corpus)
    assert [item.file for item in loaded] == [
        "other/000000000000000000000000.json",
        f"renderPoster/{FINGERPRINT}.json",
    ]
    assert loaded[1].case.input == {"title": "a", "width": 401}


def test_a_missing_corpus_is_empty(tmp_path: Path) -> None:
    assert load_corpus(tmp_path / "nowhere") == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ('{"format": "toolfuzz-case/1"}', "member 'tool' is missing or not a string"),
        (json.dumps({**case(), "input": [1]}), "member 'input' is missing or not an object"),
        (json.dumps({**case(), "failure": "meltdown"}), "unknown failure class"),
        (json.dumps(case("elsewhere")), "belongs at elsewhere/"),
    ],
)
def test_malformed_case_files_are_errors_naming_the_file(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "corpus" / "renderPoster" / f"{FINGERPRINT}.json"
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        load_corpus(tmp_path / "corpus")
    assert str(path) in caught.value.message and message in caught.value.message


@pytest.mark.parametrize("attack", [False, True])
def test_a_symlink_in_the_corpus_is_refused(tmp_path: Path, attack: bool) -> None:
    """Issue 26: the corpus is the pull request's directory, read (and, by `promote`,
    written) by the gate: a case file or a tool directory linked out of it is refused."""
    corpus, outside = tmp_path / "corpus", tmp_path / "outside"
    write_case(corpus, case())
    outside.mkdir()
    elsewhere = outside / "case.json"
    elsewhere.write_bytes(canonical_document(case(fingerprint="0" * 24)))
    if attack:
        (corpus / "renderPoster" / f"{'0' * 24}.json").symlink_to(elsewhere)
        with pytest.raises(CorpusError, match=f"renderPoster/{'0' * 24}.json is a symlink"):
            load_corpus(corpus)
        (corpus / "other").symlink_to(outside, target_is_directory=True)
        with pytest.raises(CorpusError, match="corpus/other is a symlink"):
            write_case(corpus, case(tool="other"))
        assert sorted(p.name for p in outside.iterdir()) == ["case.json"]
    else:
        assert [stored.file for stored in load_corpus(corpus)] == [
            f"renderPoster/{FINGERPRINT}.json"
        ]
        assert write_case(corpus, case(tool="other"))[1] is True


def test_the_base_s_cases_are_replayed_as_the_base_has_them(tmp_path: Path) -> None:
    """A pull request that deletes or rewrites a regression case does not drop it: the
    base's bytes win, the head's own new cases stay, and each change is said."""
    corpus = tmp_path / "corpus"
    kept, rewritten, deleted = case("kept", "1" * 24), case("rw", "2" * 24), case("del", "3" * 24)
    base = {}
    for item in (kept, rewritten, deleted):
        written, _ = write_case(corpus, item)
        base[written] = (corpus / written).read_bytes()
    benign = {**rewritten, "input": {"title": "a", "width": 1}}
    (corpus / f"rw/{'2' * 24}.json").write_bytes(canonical_document(benign))
    (corpus / f"del/{'3' * 24}.json").unlink()
    write_case(corpus, case("new", "4" * 24))  # the head's own: replayed too

    loaded = {item.file: item.case for item in load_corpus(corpus, base)}

    named = [("del", "3"), ("kept", "1"), ("new", "4"), ("rw", "2")]
    assert sorted(loaded) == [f"{tool}/{digit * 24}.json" for tool, digit in named]
    assert loaded[f"rw/{'2' * 24}.json"].input == {"title": "a", "width": 401}
    assert changed_by_head(corpus, base) == [
        f"corpus case del/{'3' * 24}.json deleted: the base's is replayed",
        f"corpus case rw/{'2' * 24}.json rewritten: the base's is replayed",
    ]
    assert [item.file for item in load_corpus(corpus)] == [  # the control: the head alone
        f"kept/{'1' * 24}.json", f"new/{'4' * 24}.json", f"rw/{'2' * 24}.json"
    ]  # fmt: skip


def test_a_base_case_in_the_wrong_place_is_refused_naming_it(tmp_path: Path) -> None:
    misplaced = {f"other/{FINGERPRINT}.json": canonical_document(case())}
    with pytest.raises(CorpusError, match=r"the base's corpus.*belongs at renderPoster/"):
        load_corpus(tmp_path / "corpus", misplaced)
