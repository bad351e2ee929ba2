"""The independent validators the engine trusts instead of its own reading (pure).

Two backends behind one Protocol: `jsonschema-rs` (compiled, ~1 us per
poster-sized instance: the hot loop's default when installed) and the
`jsonschema` library (pure Python, ~130 us: the reference every reported
finding is re-confirmed with). Both report errors as (keyword, instance
pointer) pairs so a mutant can be checked to fail at exactly its keyword and path.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any, Protocol

import jsonschema

from toolfuzz_gate.core import pointer as jp
from toolfuzz_gate.core.canonical import JSON

ErrorSite = tuple[str, str]
"""(keyword, instance JSON Pointer) of one validation error."""


class Oracle(Protocol):
    name: str
    version: str

    def is_valid(self, instance: JSON) -> bool: ...

    def errors(self, instance: JSON) -> list[ErrorSite]: ...


class JsonschemaOracle:
    """The `jsonschema` library's Draft 2020-12 validator."""

    name = "jsonschema"

    def __init__(self, document: JSON) -> None:
        self.version = metadata.version("jsonschema")
        self._validator = jsonschema.Draft202012Validator(document)  # type: ignore[arg-type]

    def is_valid(self, instance: JSON) -> bool:
        return bool(self._validator.is_valid(instance))

    def errors(self, instance: JSON) -> list[ErrorSite]:
        return [
            (str(error.validator), jp.from_parts(error.absolute_path))
            for error in self._validator.iter_errors(instance)
        ]


class JsonschemaRsOracle:
    """jsonschema-rs's Draft 2020-12 validator: the same questions, ~100x faster."""

    name = "jsonschema-rs"

    def __init__(self, document: JSON) -> None:
        import jsonschema_rs

        self.version = metadata.version("jsonschema-rs")
        self._validator: Any = jsonschema_rs.Draft202012Validator(document)  # type: ignore[arg-type]

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


ORACLES: dict[str, Callable[[JSON], Oracle]] = {
    "jsonschema": JsonschemaOracle,
    "jsonschema-rs": JsonschemaRsOracle,
}


def build_oracle(document: JSON, name: str = "auto") -> Oracle:
    """`auto` takes jsonschema-rs when it is importable, else jsonschema."""
    if name == "auto":
        name = "jsonschema-rs" if _rs_available() else "jsonschema"
    return ORACLES[name](document)


def fails_exactly_at(errors: list[ErrorSite], keyword: str, path: str) -> bool:
    """One axis: the named keyword fails at `path`, and nothing fails anywhere else."""
    return (keyword, path) in errors and all(at == path for _, at in errors)
