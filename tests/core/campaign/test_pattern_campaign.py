"""A whole campaign over a schema using `pattern`, `patternProperties` and `propertyNames`:
the families are tested, every reported near-miss stays invalid for the reference at its
keyword after shrinking, and a correct handler yields nothing."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from tests.documents import doc
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "slug": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 24},
        "phone": {"type": "string", "pattern": "^\\+?\\d{7,12}$"},
        "note": {"type": "string", "maxLength": 40},
    },
    "patternProperties": {"^x-[a-z]+$": {"type": "integer", "minimum": 0}},
    "propertyNames": {"maxLength": 12},
    "additionalProperties": False,
    "required": ["slug"],
}
TOOL = ToolSpec("patterned", error_codes="^[A-Z_]+$")
FAMILIES = ("pattern", "patternProperties", "propertyNames")


class AcceptAll:
    def call(self, arguments: JSONObject) -> Outcome:
        output_digest, size = digest_and_size(arguments)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


class Validating:
    """A correct handler: the reference validator is its whole input check."""

    def __init__(self) -> None:
        self.validator = Draft202012Validator(SCHEMA)

    def call(self, arguments: JSONObject) -> Outcome:
        if not self.validator.is_valid(arguments):
            return Outcome(OutcomeKind.REJECTED, error_code="INVALID_ARGUMENT")
        output_digest, size = digest_and_size(arguments)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def run(handler: Any, seed: int = 5) -> FuzzResult:
    return fuzz(
        SCHEMA,
        handler,
        TOOL,
        FuzzConfig(seed, 24),
        handler_label={"spec": type(handler).__name__},
        replay_command="toolfuzz-gate run",
    )


def test_a_lax_handler_is_caught_in_every_new_family() -> None:
    result = run(AcceptAll())
    receipt = doc(result.receipt)
    for family in FAMILIES:
        assert receipt["coverage"][family] == "tested", (family, receipt["mutationCounts"])
        assert receipt["mutationCounts"][family]["confirmed"] > 0
    reference = Draft202012Validator(SCHEMA)
    mutations = {c["mutation"] for c in receipt["counterexamples"]}
    assert set(FAMILIES) <= mutations
    for example in result.counterexamples:
        assert not reference.is_valid(example.minimal), example.minimal


def test_a_correct_handler_yields_nothing() -> None:
    for seed in (1, 2, 3):
        result = run(Validating(), seed)
        assert doc(result.receipt)["counterexamples"] == [], seed
        assert all(doc(result.receipt)["invariants"].values()), doc(result.receipt)["invariants"]
