"""Shard outputs on disk: the policy digest, manifests read bounded, receipts read exactly."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from toolfuzz_gate.edges.files import load_json_bytes, write_document
from toolfuzz_gate.edges.policy_file import MAX_POLICY_BYTES
from toolfuzz_gate.edges.shard_files import MAX_MANIFEST_BYTES, load_shard, policy_digest
from toolfuzz_gate.errors import InputFileError, PolicyError, ShardError


def test_policy_digest_is_the_sha256_of_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "policy.yml"
    path.write_bytes(b"version: 1\r\ntools: []\n")
    assert policy_digest(path) == hashlib.sha256(b"version: 1\r\ntools: []\n").hexdigest()
    path.write_bytes(b"version: 1\ntools: []\n")
    assert policy_digest(path) != hashlib.sha256(b"version: 1\r\ntools: []\n").hexdigest()


def test_policy_digest_refuses_a_missing_or_huge_policy(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read the policy"):
        policy_digest(tmp_path / "absent.yml")
    huge = tmp_path / "huge.yml"
    huge.write_bytes(b"#" * (MAX_POLICY_BYTES + 1))
    with pytest.raises(PolicyError, match="larger than"):
        policy_digest(huge)


def test_a_manifest_that_is_not_json_or_too_large_is_a_shard_error(tmp_path: Path) -> None:
    (tmp_path / "shard.json").write_text("{", encoding="utf-8")
    with pytest.raises(ShardError, match="is not JSON"):
        load_shard(tmp_path)
    (tmp_path / "shard.json").write_bytes(b" " * (MAX_MANIFEST_BYTES + 1))
    with pytest.raises(ShardError, match="larger than"):
        load_shard(tmp_path)
    (tmp_path / "shard.json").write_text('{"format": "toolfuzz-shard/1"}', encoding="utf-8")
    with pytest.raises(ShardError, match="members differ"):
        load_shard(tmp_path)


def test_load_json_bytes_reads_back_what_write_document_wrote(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    document: dict[str, Any] = {"input": "lone \ud800 surrogate", "title": "é"}
    write_document(path, document)
    read, raw = load_json_bytes(path, what="receipt")
    assert read == document
    assert raw == path.read_bytes()


def test_load_json_bytes_stays_strict(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b'{"a": 1, "a": 2}')
    with pytest.raises(InputFileError, match="duplicate key"):
        load_json_bytes(path)
    path.write_bytes(b'{"a": NaN}')
    with pytest.raises(InputFileError, match="not acceptable JSON"):
        load_json_bytes(path)
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputFileError, match="not UTF-8"):
        load_json_bytes(path)
