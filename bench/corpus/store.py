"""Write collected tool schemas into the corpus, prose removed (run by hand; file I/O).

Every collector in this folder hands its schemas to `store_source`, which
replaces each `description`, `title` and `$comment` at a *schema* position by
`PLACEHOLDER` (a property that happens to be named "title" keeps its name and
its subschema), does the same to strings under such keys inside `examples` (sample
documents), keeps every other keyword exactly, writes one JSON file per
tool under `tests/data/corpus/<source>/<package>/` and rewrites that source's rows of
`tests/data/corpus/MANIFEST.json`. Other projects' prose never reaches the
repository; their structure and constraints do.

A stored schema named in `PENDING` is kept, but its row goes to
`tests/data/corpus/pending.json`, with the reason, instead of the manifest: a real schema
that shows an engine bug still being fixed stays on record without failing the corpus
properties every build checks. When the bug is fixed, delete its line from `PENDING` and
run this file (`python3 bench/corpus/store.py`): it moves the rows between the two files
as `PENDING` says, without collecting anything again.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "corpus"
MANIFEST = CORPUS / "MANIFEST.json"
PENDING_FILE = CORPUS / "pending.json"
PLACEHOLDER = "(prose removed)"
PROSE = ("description", "title", "$comment")

# Keywords whose value is one subschema, a list of them, or a name -> subschema map.
ONE = (
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
)
LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

DRAFTS = {
    "json-schema.org/draft/2020-12/schema": "2020-12",
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft-07/schema": "draft-07",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-04/schema": "draft-04",
}


PENDING: dict[str, str] = {}
"""Corpus files kept out of the manifest, each with the reason (see the module's text)."""


@dataclass(frozen=True)
class Collected:
    """One tool's input schema as found, before scrubbing."""

    tool: str
    schema: Any
    package: str
    version: str
    kind: str = "standard"
    dialect: str | None = None
    """The `--dialect` that reads a "dialect" schema, when one does."""


def scrub(schema: Any) -> Any:
    """A copy of `schema` with the prose at every schema position replaced."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in PROSE:
            out[key] = PLACEHOLDER
        elif key in ONE:
            out[key] = scrub(value)
        elif key in LIST and isinstance(value, list):
            out[key] = [scrub(item) for item in value]
        elif key in MAP and isinstance(value, dict):
            out[key] = {name: scrub(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = [scrub(i) for i in value] if isinstance(value, list) else scrub(value)
        elif key == "examples":
            out[key] = _scrub_instance(value)
        elif key == "dependencies" and isinstance(value, dict):
            out[key] = {n: v if isinstance(v, list) else scrub(v) for n, v in value.items()}
        else:
            out[key] = value
    return out


def _scrub_instance(value: Any) -> Any:
    """A copy of the instance data `value` (an `examples` list) whose strings under a key named
    like prose are replaced: sample documents carry titles and descriptions of their own.
    Only strings are replaced, so an example keeps its shape."""
    if isinstance(value, list):
        return [_scrub_instance(item) for item in value]
    if isinstance(value, dict):
        return {
            key: PLACEHOLDER if key in PROSE and isinstance(item, str) else _scrub_instance(item)
            for key, item in value.items()
        }
    return value


def declared_draft(schema: Any) -> str | None:
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if not isinstance(uri, str):
        return None
    bare = uri.strip().removesuffix("#").removeprefix("https://").removeprefix("http://")
    return DRAFTS.get(bare, uri)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._-") or "tool"


def _file_name(package: str, tool: str, taken: set[str]) -> str:
    folder = _slug(package.replace("/", "-").removeprefix("@"))
    stem = _slug(tool)
    name, n = f"{folder}/{stem}.json", 2
    while name in taken:
        name, n = f"{folder}/{stem}-{n}.json", n + 1
    taken.add(name)
    return name


def store_source(source: str, collected: list[Collected]) -> None:
    """Replace everything stored for `source` by `collected`."""
    folder = CORPUS / source
    if folder.exists():
        shutil.rmtree(folder)
    rows = [row for row in _all_rows() if row["source"] != source]
    taken: set[str] = set()
    for item in collected:
        name = _file_name(item.package, item.tool, taken)
        document = scrub(item.schema)
        text = json.dumps(document, indent=1, sort_keys=False, ensure_ascii=False)
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text + "\n")
        rows.append(
            {
                "file": f"{source}/{name}",
                "source": source,
                "package": item.package,
                "version": item.version,
                "tool": item.tool,
                "kind": item.kind,
                "dialect": item.dialect,
                "draft": declared_draft(item.schema),
            }
        )
    _write_rows(rows)
    print(f"{source}: stored {len(collected)} schemas")


def _all_rows() -> list[dict[str, Any]]:
    """Every stored row, the manifest's and the pending ones (without their reasons)."""
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"schemas": []}
    pending = json.loads(PENDING_FILE.read_text()) if PENDING_FILE.exists() else {"schemas": []}
    held = [{k: v for k, v in row.items() if k != "reason"} for row in pending["schemas"]]
    return [*manifest["schemas"], *held]


def _write_rows(rows: list[dict[str, Any]]) -> None:
    """The manifest and pending.json, split as `PENDING` says."""
    rows = sorted(rows, key=lambda row: row["file"])
    listed = [row for row in rows if row["file"] not in PENDING]
    held = [{**row, "reason": PENDING[row["file"]]} for row in rows if row["file"] in PENDING]
    manifest = {"placeholder": PLACEHOLDER, "schemas": listed}
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    if held:
        PENDING_FILE.write_text(json.dumps({"schemas": held}, indent=1) + "\n")
    elif PENDING_FILE.exists():
        PENDING_FILE.unlink()
    for row in held:
        print(f"pending, not in the manifest: {row['file']}")


if __name__ == "__main__":
    _write_rows(_all_rows())
