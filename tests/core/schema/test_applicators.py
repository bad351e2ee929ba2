"""The applicator facts in the keyword table agree with what each keyword's `parse` compiles,
and the passes that walk documents, merge nodes and find `$ref` cycles follow them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords import (
    BRANCHING,
    COMPOSED,
    IN_PLACE,
    INVALID,
    KEYWORDS,
    MERGED,
)
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, Limits
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions
from toolfuzz_gate.core.schema.subschemas import REFUSED, iter_schema_objects
from toolfuzz_gate.errors import SchemaError

SAMPLES: tuple[JSON, ...] = ({"type": "string"}, [{"type": "string"}], {"a": {"type": "string"}})
"""One argument of each written form: a schema, a list of schemas, a map of schemas."""
NOT_WALKED = {"dependencies"}
"""Applicators the document walk does not enter yet (walking them changes what dialect
rewriting and lint report: a behaviour change of its own)."""


@dataclass
class _Recording:
    """A `ParseContext` that records where `parse` compiles a subschema."""

    draft: str
    pointer: str = ""
    limits: Limits = DEFAULT_LIMITS
    options: SchemaOptions = DEFAULT_OPTIONS
    compiled: list[str] = field(default_factory=list)

    def problem(self, code: str, keyword: str, message: str, *tokens: str | int) -> None:
        pass

    def subschema(self, document: JSON, *tokens: str | int) -> Node:
        if isinstance(document, dict):  # the walk yields schema objects (the rest is refused)
            self.compiled.append(jp.join(self.pointer, *tokens))
        return Node(jp.join(self.pointer, *tokens))

    def reference(self, target: str) -> Any:
        return INVALID

    def type_hint(self, name: object) -> str:
        return ""


@pytest.mark.parametrize("name", sorted(KEYWORDS))
def test_the_walk_visits_exactly_what_parse_compiles(name: str) -> None:
    """A keyword that compiles subschemas declares where (`Keyword.subschemas`), so the
    passes that read documents without compiling them (dialects, lint) see inside it."""
    keyword = KEYWORDS[name]
    for sample in SAMPLES:
        compiled: list[str] = []  # in any draft: the walk reads documents of every draft
        for draft in sorted(keyword.drafts):
            ctx = _Recording(draft)
            keyword.parse(sample, ctx)
            compiled.extend(where for where in ctx.compiled if where not in compiled)
        walked = [where for where, _ in iter_schema_objects({name: sample})][1:]
        if name in NOT_WALKED:
            assert keyword.subschemas is None
            continue
        assert walked == compiled, (name, sample)


def test_refused_applicators_are_walked_but_not_in_the_table() -> None:
    assert not set(REFUSED) & set(KEYWORDS)
    walked = [where for where, _ in iter_schema_objects({"unevaluatedItems": {"type": "x"}})]
    assert walked == ["", "/unevaluatedItems"]


def test_the_derived_sets() -> None:
    """What the standard applicators are (a new applicator may join any of these sets)."""
    assert {"allOf", "$ref"} <= MERGED
    assert not {"anyOf", "oneOf", "not", "if", "properties"} & MERGED
    assert {"anyOf", "oneOf"} <= set(BRANCHING)
    assert {"not", "patternProperties", "propertyNames"} | MERGED | set(BRANCHING) <= COMPOSED
    assert not {"if", "dependentSchemas", "properties", "items", "contains"} & COMPOSED
    assert {"allOf", "anyOf", "oneOf", "$ref", "not", "if", "dependentSchemas"} <= IN_PLACE
    assert not {"then", "else", "properties", "items", "contains"} & IN_PLACE


@pytest.mark.parametrize(
    "applied",
    [
        {"allOf": [{"$ref": "#/$defs/a"}]},
        {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]},
        {"not": {"$ref": "#/$defs/a"}},
        {"if": {"$ref": "#/$defs/a"}, "then": {"type": "object"}},
        {"if": {"type": "object"}, "then": {"$ref": "#/$defs/a"}},
        {"dependentSchemas": {"x": {"$ref": "#/$defs/a"}}},
    ],
)
def test_an_in_place_cycle_is_refused(applied: dict[str, Any]) -> None:
    """Every `in_place` keyword is an edge of a cycle that never descends into the value."""
    with pytest.raises(SchemaError) as raised:
        compile_schema({"$ref": "#/$defs/a", "$defs": {"a": applied}})
    assert "schema.ref-cycle" in {problem.code for problem in raised.value.problems}


@pytest.mark.parametrize("applied", [{"then": {"$ref": "#/$defs/a"}}, {"items": {"$ref": "#"}}])
def test_a_schema_not_applied_in_place_is_no_cycle(applied: dict[str, Any]) -> None:
    """`then` without `if` applies nothing; `items` descends into the value."""
    compile_schema({"$ref": "#/$defs/a", "$defs": {"a": applied}})
