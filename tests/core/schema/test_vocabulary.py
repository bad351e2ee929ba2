"""`core.schema.vocabulary`: the keywords JSON Schema defines, read from the metaschemas
themselves, and the did-you-mean for names it does not define."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from toolfuzz_gate.core.schema.keywords import KEYWORDS
from toolfuzz_gate.core.schema.vocabulary import DEFINED_KEYWORDS, is_defined, nearest_keyword

METASCHEMA_DRAFTS = ("draft4", "draft6", "draft7", "draft201909", "draft202012")


def _metaschema_keywords() -> set[str]:
    """The `properties` of every metaschema and vocabulary `jsonschema-specifications` ships
    for draft-04 to 2020-12."""
    found: set[str] = set()
    root = files("jsonschema_specifications") / "schemas"
    for draft in METASCHEMA_DRAFTS:
        stack = [root / draft]
        while stack:
            entry = stack.pop()
            if entry.is_dir():
                stack.extend(entry.iterdir())
            else:
                found |= set(json.loads(entry.read_text(encoding="utf-8")).get("properties", {}))
    return found


def test_the_defined_keywords_are_exactly_those_of_the_metaschemas() -> None:
    assert set(DEFINED_KEYWORDS) == _metaschema_keywords()


def test_every_supported_keyword_is_defined() -> None:
    assert set(KEYWORDS) <= DEFINED_KEYWORDS


@pytest.mark.parametrize(
    "name", ["unevaluatedProperties", "unevaluatedItems", "contentSchema", "id"]
)
def test_validation_keywords_the_engine_lacks_are_defined(name: str) -> None:
    assert is_defined(name) and name not in KEYWORDS


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("types", "type"),
        ("example", "examples"),
        ("minLenght", "minLength"),
        ("maxlength", "maxLength"),
        ("requried", "required"),
        ("additionalproperties", "additionalProperties"),
        ("optional", None),
        ("example_value", None),
        ("strict", None),
        ("nullable", None),
        ("x-order", None),
        ("type", None),  # a defined keyword misspells nothing
    ],
)
def test_nearest_keyword(name: str, meant: str | None) -> None:
    assert nearest_keyword(name) == meant
