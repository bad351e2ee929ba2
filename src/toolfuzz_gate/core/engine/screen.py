"""Refusals over the raw schema document, before any keyword is read (pure): names a
JavaScript handler may take for a prototype, anywhere, and names and strings no UTF-8 can carry.

`core.engine.compile` reports them with every other problem (the surrogates alone,
first: nothing else about such a document can be printed).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.schema.limits import UNSAFE_NAMES
from toolfuzz_gate.errors import SchemaProblem


def iter_unsafe_names(document: Any, where: str) -> Iterator[SchemaProblem]:
    """Prototype-pollution names are refused anywhere, including inside values."""
    if isinstance(document, dict):
        for key, value in document.items():
            here = jp.join(where, key)
            if key in UNSAFE_NAMES:
                yield SchemaProblem(
                    "schema.unsafe-key", here, f"the name {key!r} is not allowed", key
                )
            if key == "required" and isinstance(value, list):
                for index, name in enumerate(value):
                    if isinstance(name, str) and name in UNSAFE_NAMES:
                        yield SchemaProblem(
                            "schema.unsafe-key",
                            jp.join(here, index),
                            f"the name {name!r} is not allowed",
                            name,
                        )
            yield from iter_unsafe_names(value, here)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from iter_unsafe_names(value, jp.join(where, index))


def iter_lone_surrogates(document: Any, where: str) -> Iterator[SchemaProblem]:
    """Names and strings holding a lone surrogate, anywhere: JSON can spell one, UTF-8
    cannot carry it (no handler could receive the argument, validators refuse a schema
    holding one, no receipt or report could print it), so they are refused before anything
    else is read. A string counts as much as a name: a `required` entry, an `enum` member, a
    `$ref` or a `description` with one stops the reference validator as surely."""
    if isinstance(document, dict):
        for key, value in document.items():
            here = jp.join(where, key)
            if _has_lone_surrogate(key):
                yield SchemaProblem(
                    "schema.lone-surrogate",
                    _printable(here),
                    f"the name {key!r} holds a lone surrogate, which UTF-8 cannot carry",
                )
            else:
                yield from iter_lone_surrogates(value, here)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from iter_lone_surrogates(value, jp.join(where, index))
    elif isinstance(document, str) and _has_lone_surrogate(document):
        shown = repr(document[:40]) + ("..." if len(document) > 40 else "")
        yield SchemaProblem(
            "schema.lone-surrogate",
            _printable(where),
            f"the string {shown} holds a lone surrogate, which UTF-8 cannot carry",
        )


def _printable(pointer: str) -> str:
    """`pointer` with any lone surrogate spelled as its escape (`\\ud800`)."""
    return pointer.encode("utf-8", "backslashreplace").decode("utf-8")


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
