"""Shard outputs on disk: the policy's digest, `shard.json`, and receipts read for `merge` (edge).

Receipts are read with their exact bytes, so `merge` copies them unchanged; each must be
sound (`core.campaign.receipt_read.problems`) and be the one its manifest names (tool, seed, hash).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from toolfuzz_gate.core.campaign.receipt import FORMAT as RECEIPT_FORMAT
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_read import problems, read_receipt
from toolfuzz_gate.core.gate.shard_manifest import FILE_NAME, Located, ShardManifest, read_manifest
from toolfuzz_gate.edges.files import MAX_JSON_FILE_BYTES, load_json, load_json_bytes
from toolfuzz_gate.edges.policy_file import MAX_POLICY_BYTES
from toolfuzz_gate.errors import InputFileError, PolicyError, ReceiptShapeError, ShardError

MAX_MANIFEST_BYTES = 4 * 1024 * 1024


def policy_digest(path: Path) -> str:
    """sha256 (hex) of the policy file's bytes."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_POLICY_BYTES + 1)
    except OSError as error:
        raise PolicyError(
            f"cannot read the policy: {error.strerror}", file=str(path), line=1, key="(document)"
        ) from None
    if len(raw) > MAX_POLICY_BYTES:
        raise PolicyError(
            f"the policy is larger than {MAX_POLICY_BYTES} bytes",
            file=str(path),
            line=1,
            key="(document)",
        )
    return hashlib.sha256(raw).hexdigest()


def load_shard(directory: Path) -> ShardManifest:
    """The manifest of the shard output in `directory`."""
    path = directory / FILE_NAME
    if not path.is_file():
        raise ShardError(
            f"{directory} holds no {FILE_NAME}",
            hint="name the --out directories of `run --policy FILE --shard I/N`",
        )
    try:
        document = load_json(path, max_bytes=MAX_MANIFEST_BYTES, what="shard manifest")
    except InputFileError as error:
        raise ShardError(error.message, hint=error.hint) from None
    return read_manifest(document, str(path))


def load_shard_receipt(directory: Path, located: Located) -> tuple[Receipt, bytes]:
    """The receipt `located` names in `directory`, and its bytes; `ShardError` unless it is
    sound and is the receipt the manifest recorded."""
    unit = located.unit
    path = directory / unit.receipt
    try:
        document, raw = load_json_bytes(path, max_bytes=MAX_JSON_FILE_BYTES, what="receipt")
    except InputFileError as error:
        raise ShardError(error.message, hint="download the shard's whole artifact") from None
    if not isinstance(document, dict) or document.get("format") != RECEIPT_FORMAT:
        raise ShardError(f"{path} is not a {RECEIPT_FORMAT} receipt")
    found = problems(document)
    if found:
        raise ShardError(f"receipt {path} is not sound: {'; '.join(found[:5])}")
    try:
        receipt = read_receipt(document)
    except ReceiptShapeError as error:
        raise ShardError(f"receipt {path}: {error.message}", hint=error.hint) from None
    if (receipt.tool, receipt.seed, receipt.receipt_hash) != (
        unit.tool,
        unit.seed,
        located.receipt_hash,
    ):
        raise ShardError(
            f"receipt {path} is not the one its shard ran (tool {unit.tool!r}, seed "
            f"{unit.seed}, receiptHash {located.receipt_hash[:12]}...)",
            hint="receipts are not edited or swapped between shards",
        )
    return receipt, raw
