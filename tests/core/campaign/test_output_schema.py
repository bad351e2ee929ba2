"""`core.campaign.output_schema` and the `output-schema-valid` invariant: a declared output
schema is applied only within bounds the library can read, a violation is named by keyword
and instance path (never the library's message), and only accepted calls are judged."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.findings import Failure, InputKind
from toolfuzz_gate.core.campaign.invariants import check_observation
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.output_schema import MISSING_CAUSE, read_output_schema
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.schema.limits import Limits

OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"total": {"type": "integer"}, "items": {"type": "array", "maxItems": 2}},
    "required": ["total"],
}
TOOL = ToolSpec("sum", output_schema=read_output_schema(OUTPUT))
CASE = Case(InputKind.VALID, "valid", "", {"n": 1}, 4, "valid", True)


def answered(
    structured: Any, present: bool = True, kind: OutcomeKind = OutcomeKind.ACCEPTED
) -> Observation:
    outcome = Outcome(kind, output_digest="d", structured=structured, has_structured=present)
    return Observation(CASE, outcome)


def test_a_readable_schema_within_bounds_is_applied() -> None:
    declared = read_output_schema(OUTPUT)
    assert declared.as_json() == {"applied": True, "reason": "declared by the server's tools/list"}
    assert declared.violation({"total": 3, "items": []}, True) is None


def test_a_violation_is_named_by_keyword_and_path_of_the_first_error() -> None:
    declared = read_output_schema(OUTPUT)
    assert declared.violation({"total": "3"}, True) == "type at /total"
    assert declared.violation({}, True) == "required at /"
    # Two errors: the first by instance path, whatever order the library yields them in.
    assert declared.violation({"total": 1.5, "items": [1, 2, 3]}, True) == "maxItems at /items"
    assert declared.violation(None, True) == "type at /"
    assert declared.violation(None, False) == MISSING_CAUSE


def test_a_schema_over_the_size_limit_is_not_applied() -> None:
    declared = read_output_schema(OUTPUT, Limits(max_schema_bytes=40))
    assert declared.applied is False
    assert declared.reason.startswith("the output schema is ")
    assert declared.reason.endswith("bytes; at most 40 are supported")
    assert declared.violation({}, False) is None


def test_a_schema_the_library_cannot_read_is_not_applied() -> None:
    declared = read_output_schema({"type": "object", "properties": {"a": {"type": 7}}})
    assert declared.as_json() == {
        "applied": False,
        "reason": "jsonschema cannot read the output schema: anyOf at /properties/a/type",
    }
    assert declared.violation("anything", True) is None
    assert read_output_schema(["not", "a", "schema"]).applied is False


def test_the_invariant_reports_a_violation_with_its_cause() -> None:
    [found] = check_observation(answered({"total": "x"}), TOOL)
    assert (found.failure, found.cause, found.path) == (
        Failure.OUTPUT_SCHEMA_VIOLATION,
        "type at /total",
        "",
    )
    assert found.error["inputValid"] is True  # a promoted case knows what to expect
    [missing] = check_observation(answered(None, present=False), TOOL)
    assert (missing.failure, missing.cause) == (Failure.OUTPUT_SCHEMA_VIOLATION, MISSING_CAUSE)


def test_only_accepted_calls_of_a_tool_declaring_one_are_judged() -> None:
    assert check_observation(answered({"total": 1}), TOOL) == []
    assert check_observation(answered({"total": "x"}), ToolSpec("sum")) == []
    rejected = answered(None, present=False, kind=OutcomeKind.REJECTED)
    assert Failure.OUTPUT_SCHEMA_VIOLATION not in {
        f.failure for f in check_observation(rejected, TOOL)
    }


def test_the_ledger_claims_nothing_of_a_schema_not_applied() -> None:
    assert "output-schema-valid" in ToolSpec("t").skipped_invariants()
    unread = ToolSpec("t", output_schema=read_output_schema({"type": 7}))
    assert "output-schema-valid" in unread.skipped_invariants()
    assert "output-schema-valid" not in TOOL.skipped_invariants()


def test_a_schema_with_a_pattern_the_engine_refuses_is_not_applied() -> None:
    catastrophic: dict[str, Any] = {"properties": {"a": {"type": "string", "pattern": "(a+)+$"}}}
    declared = read_output_schema(catastrophic)
    assert declared.applied is False
    assert declared.reason.startswith(
        "the output schema's pattern at /properties/a/pattern is refused: a repeated group"
    )
    named = read_output_schema({"patternProperties": {"^(a|a)*$": {}}})
    assert named.applied is False
    assert "/patternProperties/^(a|a)*$" in named.reason
    # A property called `pattern` is a schema, not a pattern.
    kept = read_output_schema(
        {"properties": {"pattern": {"type": "string", "pattern": "^[a-z]+$"}}}
    )
    assert kept.applied is True
    assert kept.violation({"pattern": "A"}, True) == "pattern at /pattern"
