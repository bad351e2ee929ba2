"""`core.campaign.tool_fuzz`: how the receipt records the reading of a schema with names JSON
Schema does not define (annotations), and that the gate does not count them as refusals."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_read import read_receipt
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.gate.policy import GateRules
from toolfuzz_gate.core.gate.verdict import decide
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size

# The shape of a published cookbook tool: `types` where `type` was meant.
COOKBOOK = {
    "type": "object",
    "properties": {
        "query": {"types": "string", "example": "weather in Oslo"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 10},
    },
    "required": ["query"],
    "additionalProperties": False,
}


class Validating:
    """A handler that validates with the reference library: rejects exactly the invalid."""

    def __init__(self, schema: Any) -> None:
        self.validator = Draft202012Validator(schema)

    def call(self, arguments: JSONObject) -> Outcome:
        if not self.validator.is_valid(arguments):
            return Outcome(OutcomeKind.REJECTED, error_code="invalid")
        output_digest, size = digest_and_size({"ok": True})
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


def run(schema: Any) -> dict[str, Any]:
    result = fuzz(
        schema,
        Validating(schema),
        ToolSpec("search"),
        FuzzConfig(41, 30),
        handler_label={"spec": "test:validating"},
        replay_command="test",
    )
    assert result.counterexamples == []
    return result.receipt.document()


def test_ignored_names_are_listed_in_the_schema_reading_not_as_unsupported() -> None:
    receipt = run(COOKBOOK)
    assert receipt["schemaReading"]["ignoredKeywords"] == [
        {"keyword": "types", "pointer": "/properties/query/types"},
        {"keyword": "example", "pointer": "/properties/query/example"},
    ]
    assert receipt["unsupported"] == []
    assert "refused" not in receipt
    # `query` has no type constraint: values of other types are valid calls.
    assert receipt["cases"]["valid"] == 30


def test_the_member_is_absent_when_nothing_is_ignored() -> None:
    receipt = run({**COOKBOOK, "properties": {"query": {"type": "string"}}})
    assert "ignoredKeywords" not in receipt["schemaReading"]


def test_an_ignored_name_never_fails_the_unsupported_keyword_rule() -> None:
    verdict = decide(GateRules(("unsupported-keyword", "invariant")), [read_receipt(run(COOKBOOK))])
    assert not verdict.failed, verdict
