"""Files: bounded, strict JSON reading and atomic writing (edge)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON, canonical_document
from toolfuzz_gate.errors import InputFileError, ToolfuzzError, UsageError

MAX_JSON_FILE_BYTES = 8 * 1024 * 1024


MAX_SYMLINK_WALK = 100_000
"""Entries looked at when a directory is checked for symlinks; past it, the check refuses."""


def refuse_symlinks(directory: Path, what: str, error: type[ToolfuzzError] = UsageError) -> None:
    """`directory`, one the gate writes into or reads results from (an output directory
    and its `base/` and `agent/`, a shard's, a corpus, a downloaded results directory), is
    no symlink and holds none at any depth: a pull request can commit one there, and the
    gate, maybe root, would write or read through it, out of the workspace. Nothing to
    check when it does not exist. Raises `error` naming the symlink."""
    hint = "remove the symlink (and do not commit the gate's directories)"
    if directory.is_symlink():
        raise error(
            f"{what}: {directory} is a symlink; the gate uses only real directories", hint=hint
        )
    seen = 0
    for top, directories, files in os.walk(directory):
        for entry in [*directories, *files]:
            seen += 1
            path = Path(top) / entry
            if path.is_symlink():
                shown = path.relative_to(directory.parent)
                raise error(
                    f"{what}: {shown} is a symlink; the gate uses only real directories",
                    hint=hint,
                )
        if seen > MAX_SYMLINK_WALK:
            raise error(f"{what}: {directory} holds more than {MAX_SYMLINK_WALK} entries")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def load_json(path: Path, *, max_bytes: int = MAX_JSON_FILE_BYTES, what: str = "file") -> JSON:
    """Strict JSON: no NaN or Infinity, no duplicate keys, bounded size."""
    return load_json_text(path, max_bytes=max_bytes, what=what)[0]


def load_json_text(
    path: Path, *, max_bytes: int = MAX_JSON_FILE_BYTES, what: str = "file"
) -> tuple[JSON, str]:
    """`load_json`, and the text it was read from (to locate lines in)."""
    raw = _read_bounded(path, max_bytes, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputFileError(f"{what} {path} is not UTF-8") from None
    return _parse(text, path, what), text


def load_json_bytes(
    path: Path, *, max_bytes: int = MAX_JSON_FILE_BYTES, what: str = "file"
) -> tuple[JSON, bytes]:
    """`load_json`, and the exact bytes read (to copy the file unchanged). Lone surrogates,
    which `write_document` writes through (`surrogatepass`), are read back the same way."""
    raw = _read_bounded(path, max_bytes, what)
    try:
        text = raw.decode("utf-8", errors="surrogatepass")
    except UnicodeDecodeError:
        raise InputFileError(f"{what} {path} is not UTF-8") from None
    return _parse(text, path, what), raw


def parse_json_bytes(
    raw: bytes, where: str, *, max_bytes: int = MAX_JSON_FILE_BYTES, what: str = "file"
) -> JSON:
    """`load_json` over bytes read elsewhere (a file at a commit), named `where`."""
    if len(raw) > max_bytes:
        raise InputFileError(f"{what} {where} is larger than {max_bytes} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputFileError(f"{what} {where} is not UTF-8") from None
    return _parse(text, Path(where), what)


def _read_bounded(path: Path, max_bytes: int, what: str) -> bytes:
    try:
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as error:
        raise InputFileError(f"cannot read {what} {path}: {error.strerror}") from None
    if len(raw) > max_bytes:
        raise InputFileError(
            f"{what} {path} is larger than {max_bytes} bytes",
            hint="toolfuzz-gate bounds every input it reads",
        )
    return raw


def _parse(text: str, path: Path, what: str) -> JSON:
    try:
        document: JSON = json.loads(
            text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates
        )
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{what} {path} is not JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except (ValueError, RecursionError) as error:
        raise InputFileError(f"{what} {path} is not acceptable JSON: {error}") from None
    return document


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_document(path: Path, document: JSON) -> None:
    write_atomic(path, canonical_document(document))


class JsonLinesWriter:
    """The `--cases` audit log: one compact JSON object per line."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = path.open("w", encoding="utf-8", errors="surrogatepass")

    def __call__(self, record: dict[str, JSON]) -> None:
        self._stream.write(json.dumps(record, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self._stream.close()
