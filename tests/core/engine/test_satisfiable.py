"""`core.engine.satisfiable.root_problem`: a root is fuzzed as a tool's arguments only when an
object satisfies it (issue 15: other values reached the handler seam as an `AssertionError`)."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.satisfiable import root_problem
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS


def _problem(schema: Any) -> tuple[str, str] | None:
    found = root_problem(compile_schema(schema).root, DEFAULT_LIMITS)
    return None if found is None else (found.code, found.pointer)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},
        {"$ref": "#/$defs/S", "$defs": {"S": {"type": "string"}}},
        {"enum": [1, "a"]},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    ],
)
def test_a_root_no_object_satisfies_is_refused(schema: Any) -> None:
    assert _problem(schema) == ("schema.root-not-object", "")


def test_a_root_whose_objects_cannot_be_built_is_refused_without_a_false_claim() -> None:
    # No object holds "a" within maxProperties 0, but the engine only saw its trials fail
    # (a built object broke a part): it says it could not build one, not that none exists.
    schema = {"type": ["null", "object"], "required": ["a"], "maxProperties": 0}
    assert _problem(schema) == ("schema.unbuildable", "")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {"properties": {"a": {"type": "integer"}}},
        {"type": ["object", "null"]},
        {"anyOf": [{"type": "object"}, {"type": "string"}]},
        {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object"}}},
    ],
)
def test_a_root_that_admits_objects_is_fuzzed(schema: Any) -> None:
    assert _problem(schema) is None
