"""The two laws every keyword entry answers to, checked on one schema (test helper).

Generated values are valid under the `jsonschema` library and `jsonschema-rs` (and the
engine's own `validate` agrees); a mutant either fails under both at exactly its keyword
and path, or is discarded by both. Keywords named in `must_confirm` must always be
confirmed: the test's schema construction leaves their near-miss nothing to collide with.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema

from toolfuzz_gate.core.campaign.oracle import (
    JsonschemaOracle,
    JsonschemaRsOracle,
    fails_exactly_at,
)
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate, generator_for
from toolfuzz_gate.core.engine.mutate import apply, iter_operators
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.validate import validate

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def reference_validator(schema: dict[str, Any]) -> Any:
    if schema.get("$schema") == DRAFT_07:
        return jsonschema.Draft7Validator(schema)
    return jsonschema.Draft202012Validator(schema)


def check_laws(
    schema: dict[str, Any],
    seed: int,
    *,
    cases: int = 8,
    must_confirm: Iterable[str] = (),
    must_offer: Iterable[str] = (),
) -> set[tuple[str, str]]:
    """Check both laws; return the (keyword, path) of every confirmed mutant."""
    compiled = compile_schema(schema)
    reference = reference_validator(schema)
    python, rust = JsonschemaOracle(schema), JsonschemaRsOracle(schema)
    bases = [generate(compiled, seed, index, DEFAULT_LIMITS) for index in range(cases)]
    for index, value in enumerate(bases):
        assert reference.is_valid(value), (index, value, list(reference.iter_errors(value)))
        assert rust.is_valid(value), (index, value, rust.errors(value))
        assert validate(compiled, value), (index, value)
    operators = list(iter_operators(compiled, DEFAULT_LIMITS))
    offered = {op.keyword for op in operators}
    assert set(must_offer) <= offered, (sorted(must_offer), sorted(offered))
    required = set(must_confirm)
    confirmed: set[tuple[str, str]] = set()
    for index, operator in enumerate(operators):
        maker = generator_for(seed, index, DEFAULT_LIMITS, "hostile")
        mutant = apply(operator, bases[0], maker, compiled.root)
        if mutant is None:
            assert operator.keyword not in required, operator.label
            continue
        at_python = fails_exactly_at(python.errors(mutant), operator.keyword, operator.path)
        at_rust = fails_exactly_at(rust.errors(mutant), operator.keyword, operator.path)
        if operator.keyword in required:
            assert at_python and at_rust, (
                operator.label,
                bases[0],
                mutant,
                python.errors(mutant),
                rust.errors(mutant),
            )
        if at_python:
            assert not reference.is_valid(mutant), (operator.label, mutant)
            assert at_rust, (operator.label, mutant, rust.errors(mutant))
            assert not validate(compiled, mutant), (operator.label, mutant)
            confirmed.add((operator.keyword, operator.path))
    return confirmed
