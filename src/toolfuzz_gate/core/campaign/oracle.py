"""The independent validators the engine trusts instead of its own reading (pure).

Two backends behind one Protocol: `jsonschema-rs` (compiled, ~1 us per
poster-sized instance: the hot loop's default when installed) and the
`jsonschema` library (pure Python, ~130 us: the reference every reported
finding is re-confirmed with). Both report errors as (keyword, instance
pointer) pairs so a mutant can be checked to fail at exactly its keyword and path. Each
library is imported when its first question is asked: a campaign whose reference is never
consulted (nothing to confirm) never loads `jsonschema`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import metadata
from typing import Any, Protocol

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.options import (
    DEFAULT_OPTIONS,
    DRAFT_07,
    SchemaOptions,
    declared_draft,
)

ErrorSite = tuple[str, str]
"""(keyword, instance JSON Pointer) of one validation error."""


class Oracle(Protocol):
    name: str
    version: str

    def is_valid(self, instance: JSON) -> bool: ...

    def errors(self, instance: JSON) -> list[ErrorSite]: ...


@cache
def installed_version(distribution: str) -> str:
    """The installed version of a validator, read once: reading it parses the package's
    metadata (about half a millisecond), and every fuzzed tool builds an oracle."""
    return metadata.version(distribution)


def draft_of(document: JSON, options: SchemaOptions) -> str:
    """The draft both oracles read `document` under: the compiler's own rule."""
    declared, _ = declared_draft(document)
    return declared or options.default_draft


def reference_validator(document: JSON, options: SchemaOptions) -> Any:
    """The `jsonschema` library's validator for `document` under its draft, checking
    formats when `options` assert them (the lint judges `default` and `examples` by it)."""
    import jsonschema

    cls: Any = (
        jsonschema.Draft7Validator
        if draft_of(document, options) == DRAFT_07
        else jsonschema.Draft202012Validator
    )
    checker = cls.FORMAT_CHECKER if options.format_assertion else None
    return cls(document, format_checker=checker)


class JsonschemaOracle:
    """The `jsonschema` library's validator for the document's draft."""

    name = "jsonschema"

    def __init__(self, document: JSON, options: SchemaOptions = DEFAULT_OPTIONS) -> None:
        self.version = installed_version("jsonschema")
        self._document = document
        self._options = options
        self._built: Any = None

    @property
    def _validator(self) -> Any:
        """Built at the first question: the library's import and the schema's check cost
        more than a campaign that confirms nothing needs."""
        if self._built is None:
            self._built = reference_validator(self._document, self._options)
        return self._built

    def is_valid(self, instance: JSON) -> bool:
        return bool(self._validator.is_valid(instance))

    def errors(self, instance: JSON) -> list[ErrorSite]:
        return [
            (str(error.validator), jp.from_parts(error.absolute_path))
            for error in self._validator.iter_errors(instance)
        ]


class JsonschemaRsOracle:
    """jsonschema-rs's validator for the document's draft: the same questions, ~100x faster."""

    name = "jsonschema-rs"

    def __init__(self, document: JSON, options: SchemaOptions = DEFAULT_OPTIONS) -> None:
        import jsonschema_rs

        self.version = installed_version("jsonschema-rs")
        cls: Any = (
            jsonschema_rs.Draft7Validator
            if draft_of(document, options) == DRAFT_07
            else jsonschema_rs.Draft202012Validator
        )
        self._validator: Any = cls(document, validate_formats=options.format_assertion)

    def is_valid(self, instance: JSON) -> bool:
        return bool(self._validator.is_valid(instance))

    def errors(self, instance: JSON) -> list[ErrorSite]:
        return [
            (str(error.schema_path[-1]), jp.from_parts(error.instance_path))
            for error in self._validator.iter_errors(instance)
        ]


def _rs_available() -> bool:
    try:
        import jsonschema_rs  # noqa: F401
    except ImportError:
        return False
    return True


ORACLES: dict[str, Callable[[JSON, SchemaOptions], Oracle]] = {
    "jsonschema": JsonschemaOracle,
    "jsonschema-rs": JsonschemaRsOracle,
}


def build_oracle(
    document: JSON, name: str = "auto", options: SchemaOptions = DEFAULT_OPTIONS
) -> Oracle:
    """`auto` takes jsonschema-rs when it is importable, else jsonschema."""
    if name == "auto":
        name = "jsonschema-rs" if _rs_available() else "jsonschema"
    return ORACLES[name](document, options)


def fails_exactly_at(errors: list[ErrorSite], keyword: str, path: str) -> bool:
    """One axis: the named keyword fails at `path`, and nothing fails anywhere else."""
    return (keyword, path) in errors and all(at == path for _, at in errors)
