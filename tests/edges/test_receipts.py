"""`edges.receipts`: a directory's sound receipts by tool; other files skipped; a corrupted
receipt, a second receipt for one tool or a missing directory is an error naming the file."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.core.campaign.test_receipt import run_fuzz
from tests.receipts import sealed
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_document
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.edges.handlers.builtin import BuiltinPosterHandler
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.errors import InputFileError, ReceiptError


@pytest.fixture(scope="module")
def poster_receipt() -> JSONObject:
    return run_fuzz(BuiltinPosterHandler(), 41).receipt.document()


def test_receipts_are_read_by_tool_and_everything_else_is_skipped(
    tmp_path: Path, poster_receipt: JSONObject
) -> None:
    write_document(tmp_path / "renderPoster.json", poster_receipt)
    write_document(tmp_path / "summary.json", {"format": "toolfuzz-summary/1", "tools": []})
    write_document(tmp_path / "lint.json", {"format": "toolfuzz-lint/1"})
    write_document(tmp_path / "list.json", [1, 2])
    (tmp_path / "cases.jsonl").write_text("not json\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    (tmp_path / "nested.json").mkdir()
    loaded = load_receipts(tmp_path)
    assert {k: r.document() for k, r in loaded.receipts.items()} == {"renderPoster": poster_receipt}
    assert dict(loaded.files) == {"renderPoster": "renderPoster.json"}


def test_an_edited_receipt_is_an_error_naming_the_file(
    tmp_path: Path, poster_receipt: JSONObject
) -> None:
    edited: dict[str, Any] = copy.deepcopy(poster_receipt)
    edited["counterexamples"] = []
    edited["invariants"]["no-crash"] = False
    write_document(tmp_path / "renderPoster.json", edited)
    with pytest.raises(ReceiptError) as raised:
        load_receipts(tmp_path)
    assert str(tmp_path / "renderPoster.json") in raised.value.message
    assert "receiptHash does not match" in raised.value.message


def test_a_truncated_receipt_is_an_error_naming_the_file(
    tmp_path: Path, poster_receipt: JSONObject
) -> None:
    (tmp_path / "renderPoster.json").write_bytes(canonical_document(poster_receipt)[:500])
    with pytest.raises(ReceiptError) as raised:
        load_receipts(tmp_path)
    assert raised.value.code == "receipt.invalid"
    assert str(tmp_path / "renderPoster.json") in raised.value.message


def test_a_sound_receipt_of_no_known_shape_is_unreadable_naming_the_file(
    tmp_path: Path, poster_receipt: JSONObject
) -> None:
    body = {k: v for k, v in poster_receipt.items() if k != "receiptHash"}
    write_document(tmp_path / "t.json", sealed({**body, "coverage": {"type": 1}}))
    with pytest.raises(ReceiptError) as raised:
        load_receipts(tmp_path)
    assert raised.value.code == "receipt.unreadable"
    assert str(tmp_path / "t.json") in raised.value.message


def test_a_receipt_missing_members_is_an_error(tmp_path: Path) -> None:
    write_document(tmp_path / "t.json", {"format": "toolfuzz-receipt/1", "tool": "t"})
    with pytest.raises(ReceiptError, match="missing member 'seed'"):
        load_receipts(tmp_path)


def test_two_receipts_for_one_tool_are_an_error(tmp_path: Path, poster_receipt: JSONObject) -> None:
    write_document(tmp_path / "a.json", poster_receipt)
    write_document(tmp_path / "b.json", poster_receipt)
    with pytest.raises(ReceiptError, match="both for tool 'renderPoster'"):
        load_receipts(tmp_path)


def test_a_missing_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="does not exist"):
        load_receipts(tmp_path / "absent")
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(InputFileError, match="not a directory"):
        load_receipts(tmp_path / "file")


def test_an_empty_directory_has_no_receipts(tmp_path: Path) -> None:
    loaded = load_receipts(tmp_path)
    assert dict(loaded.receipts) == {} and dict(loaded.files) == {}
