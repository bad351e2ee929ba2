"""How a schema is read: its draft and whether `format` asserts (pure data).

The draft comes from the document's own `$schema` when it names one; otherwise
from `SchemaOptions.default_draft` (2020-12 unless the user says otherwise). The
compiler, the generator and both oracles read a schema under the same options,
so the engine and its independent validators never disagree by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolfuzz_gate.core.jsonutil.canonical import JSON

DRAFT_2020_12 = "2020-12"
DRAFT_07 = "draft-07"
DRAFTS = (DRAFT_2020_12, DRAFT_07)

_DRAFT_URIS = {
    "json-schema.org/draft/2020-12/schema": DRAFT_2020_12,
    "json-schema.org/draft-07/schema": DRAFT_07,
}
_KNOWN_UNSUPPORTED = {
    "json-schema.org/draft/2019-09/schema": "2019-09",
    "json-schema.org/draft-06/schema": "draft-06",
    "json-schema.org/draft-04/schema": "draft-04",
    "json-schema.org/draft-03/schema": "draft-03",
}


@dataclass(frozen=True)
class SchemaOptions:
    """`default_draft` applies to documents without `$schema`; `format_assertion` makes
    `format` a constraint (the 2020-12 default is an annotation)."""

    default_draft: str = DRAFT_2020_12
    format_assertion: bool = False


DEFAULT_OPTIONS = SchemaOptions()


def _normal_uri(uri: str) -> str:
    bare = uri.strip().removesuffix("#")
    for scheme in ("https://", "http://"):
        bare = bare.removeprefix(scheme)
    return bare


def declared_draft(document: JSON) -> tuple[str | None, str | None]:
    """(draft, None) for a supported `$schema`, (None, name) for a known unsupported
    one, (None, None) when the document names none (or one nobody knows)."""
    if not isinstance(document, dict):
        return None, None
    uri = document.get("$schema")
    if not isinstance(uri, str):
        return None, None
    bare = _normal_uri(uri)
    if bare in _DRAFT_URIS:
        return _DRAFT_URIS[bare], None
    return None, _KNOWN_UNSUPPORTED.get(bare, uri[:80])
