"""Receipt directories: every sound receipt a directory holds, by tool name (edge).

A `*.json` file whose `format` is not `toolfuzz-receipt/1` (`summary.json`, a cases log)
is skipped, and so is anything else; a file that claims to be a receipt but is not sound
(edited, truncated, missing members) is an error naming it.
"""

from __future__ import annotations

from pathlib import Path

from toolfuzz_gate.core.campaign.receipt import FORMAT, Receipt
from toolfuzz_gate.core.campaign.receipt_read import problems, read_receipt
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, receipt_keys
from toolfuzz_gate.edges.files import MAX_JSON_FILE_BYTES, load_json
from toolfuzz_gate.errors import InputFileError, ReceiptError, ReceiptShapeError

MAX_ENTRIES = 10_000
"""Directory entries looked at, of any kind: a bound on the listing itself."""
MAX_RECEIPTS = 1_000
MAX_TOTAL_BYTES = 256 * 1024 * 1024
SKIPPED_NAMES = frozenset({"summary.json"})


def load_receipts(directory: Path) -> ReceiptSet:
    """The receipts in `directory` (not its subdirectories), by tool name."""
    if not directory.is_dir():
        raise InputFileError(
            f"receipts directory {directory} does not exist or is not a directory",
            hint="name the directory `fuzz --out` or `run --out` wrote",
        )
    try:
        entries = []
        for count, entry in enumerate(directory.iterdir()):
            if count >= MAX_ENTRIES:
                raise InputFileError(
                    f"receipts directory {directory} has more than {MAX_ENTRIES} entries"
                )
            entries.append(entry)
    except OSError as error:
        raise InputFileError(f"cannot list receipts directory {directory}: {error}") from None
    found: list[tuple[Receipt, str]] = []
    total = 0
    for path in sorted(entries):
        if path.suffix != ".json" or path.name in SKIPPED_NAMES or not path.is_file():
            continue
        try:
            total += path.stat().st_size
        except OSError as error:
            raise ReceiptError(f"cannot read receipt {path}: {error.strerror}") from None
        if total > MAX_TOTAL_BYTES:
            raise InputFileError(f"receipts in {directory} exceed {MAX_TOTAL_BYTES} bytes")
        receipt = _load_one(path)
        if receipt is None:
            continue
        if len(found) >= MAX_RECEIPTS:
            raise InputFileError(f"receipts directory {directory} holds over {MAX_RECEIPTS}")
        found.append((receipt, path.name))
    receipts: dict[str, Receipt] = {}
    files: dict[str, str] = {}
    for key, (receipt, name) in zip(receipt_keys([r for r, _ in found]), found, strict=True):
        if key in receipts:
            raise ReceiptError(
                f"receipts {directory / files[key]} and {directory / name} are both for "
                f"tool {receipt.tool!r} with seed {receipt.seed}",
                hint="keep one receipt per tool and seed in a directory",
            )
        receipts[key] = receipt
        files[key] = name
    return ReceiptSet(receipts, files)


def _load_one(path: Path) -> Receipt | None:
    """The receipt in `path`; None when the file is JSON but not a receipt."""
    try:
        document = load_json(path, max_bytes=MAX_JSON_FILE_BYTES, what="receipt")
    except InputFileError as error:
        raise ReceiptError(
            error.message, hint="a corrupted receipt: regenerate it with toolfuzz-gate"
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return None
    found = problems(document)
    if found:
        raise ReceiptError(
            f"receipt {path} is not sound: {'; '.join(found)}",
            hint="regenerate it with toolfuzz-gate; receipts are not edited by hand",
        )
    try:
        return read_receipt(document)
    except ReceiptShapeError as error:
        raise ReceiptShapeError(f"{path}: {error.message}", hint=error.hint) from None


def load_receipt(path: Path) -> Receipt:
    """The one sound receipt in `path`; `ReceiptError` for anything else."""
    receipt = _load_one(path)
    if receipt is None:
        raise ReceiptError(
            f"{path} is not a receipt (its format is not {FORMAT!r})",
            hint="name a receipt written by `toolfuzz-gate fuzz` or `run`",
        )
    return receipt
