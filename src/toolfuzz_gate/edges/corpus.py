"""The regression corpus on disk: write promoted cases, read them back bounded (edge).

Layout: `CORPUS/<tool>/<fingerprint>.json`, one canonical `toolfuzz-case/1` file per case
(`core.gate.regression.case_location` makes the names safe). Reading refuses, naming the file,
anything that is not a sound case file, and a case whose location disagrees with its
content (a file copied under another tool's directory would replay against the wrong tool).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from toolfuzz_gate.core.gate.regression import RegressionCase, case_location, parse_case
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_document
from toolfuzz_gate.edges.files import load_json, parse_json_bytes, refuse_symlinks, write_atomic
from toolfuzz_gate.errors import CorpusError, InputFileError

MAX_CASES = 10_000
MAX_CASE_BYTES = 1024 * 1024
MAX_ENTRIES = 20_000
"""Directory entries looked at, of any kind, over the whole corpus."""


@dataclass(frozen=True)
class StoredCase:
    case: RegressionCase
    file: str
    """Relative to the corpus directory (`tool/fingerprint.json`)."""


def write_case(corpus: Path, case: JSONObject) -> tuple[str, bool]:
    """Store `case`; its relative file name and whether the bytes on disk changed."""
    directory, name = case_location(str(case["tool"]), str(case["fingerprint"]))
    refuse_symlinks(corpus, "the corpus", CorpusError)
    path = corpus / directory / name
    data = canonical_document(case)
    try:
        if path.is_file() and path.read_bytes() == data:
            return f"{directory}/{name}", False
    except OSError as error:
        raise CorpusError(f"cannot read the corpus case {path}: {error.strerror}") from None
    try:
        write_atomic(path, data)
    except OSError as error:
        raise CorpusError(f"cannot write the corpus case {path}: {error.strerror}") from None
    return f"{directory}/{name}", True


def load_corpus(corpus: Path, base: Mapping[str, bytes] | None = None) -> list[StoredCase]:
    """Every case under `corpus`, sorted by file; none when the directory does not exist.
    `base`: the base commit's case files (`tool/fingerprint.json` to bytes), which the pull
    request may not drop or rewrite: each is replayed as the base has it."""
    refuse_symlinks(corpus, "the corpus", CorpusError)  # the pull request's files, read as root
    files = []
    if corpus.exists():
        if not corpus.is_dir():
            raise CorpusError(f"the corpus {corpus} is not a directory")
        files = _case_files(corpus)
    if len(files) + len(base or {}) > MAX_CASES:
        raise CorpusError(f"the corpus {corpus} holds more than {MAX_CASES} case files")
    cases = {stored.file: stored for stored in (_load_one(corpus, path) for path in files)}
    for relative, data in sorted((base or {}).items()):
        where = f"{relative} (the base's corpus)"
        try:
            document = parse_json_bytes(data, where, max_bytes=MAX_CASE_BYTES, what="corpus case")
        except InputFileError as error:
            raise CorpusError(error.message) from None
        cases[relative] = _checked(document, relative, where)
    return [cases[name] for name in sorted(cases)]


def changed_by_head(corpus: Path, base: Mapping[str, bytes]) -> list[str]:
    """What the pull request did to the base's case files, a line each (deleted or
    rewritten; the base's replay all the same)."""
    said = []
    for relative, data in sorted(base.items()):
        path = corpus / relative
        try:
            now = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        except OSError:
            now = None
        if now != data:
            done = "deleted" if now is None else "rewritten"
            said.append(f"corpus case {relative} {done}: the base's is replayed")
    return said


def _case_files(corpus: Path) -> list[Path]:
    found: list[Path] = []
    seen = 0
    try:
        for directory in sorted(corpus.iterdir()):
            seen += 1
            if directory.is_dir() and not directory.is_symlink():
                for path in sorted(directory.iterdir()):
                    seen += 1
                    if path.suffix == ".json" and path.is_file():
                        found.append(path)
            if seen > MAX_ENTRIES:
                raise CorpusError(f"the corpus {corpus} has more than {MAX_ENTRIES} entries")
    except OSError as error:
        raise CorpusError(f"cannot list the corpus {corpus}: {error.strerror}") from None
    return found


def _load_one(corpus: Path, path: Path) -> StoredCase:
    relative = f"{path.parent.name}/{path.name}"
    try:
        document = load_json(path, max_bytes=MAX_CASE_BYTES, what="corpus case")
    except InputFileError as error:
        raise CorpusError(error.message, hint=_HINT) from None
    return _checked(document, relative, str(path))


_HINT = "re-create it with `toolfuzz-gate promote RECEIPT`, or delete it"


def _checked(document: JSON, relative: str, where: str) -> StoredCase:
    """The case `document` holds, stored at `relative` (`tool/fingerprint.json`)."""
    try:
        case = parse_case(document)
    except ValueError as error:
        raise CorpusError(f"corpus case {where} is not a case file: {error}", hint=_HINT) from None
    directory, name = case_location(case.tool, case.fingerprint)
    if f"{directory}/{name}" != relative:
        raise CorpusError(
            f"corpus case {where} is for tool {case.tool!r}, fingerprint {case.fingerprint}: "
            f"it belongs at {directory}/{name}",
            hint="move it there, or promote it again",
        )
    return StoredCase(case, relative)
