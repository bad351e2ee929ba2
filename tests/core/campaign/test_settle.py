"""`core.campaign.settle`: bugs of one kind hiding behind each other are each reported (the two-bug
case with two causes is in `test_confirm.py` and, against a real process, in
`tests/cli/test_confirm.py`)."""

from __future__ import annotations

from tests.documents import doc
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size


def accepted(arguments: JSONObject) -> Outcome:
    output_digest, size = digest_and_size(arguments)
    return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


LOOKUP: JSONObject = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 5},
        "limit": {"type": "integer", "minimum": 0, "maximum": 10},
    },
    "required": ["name", "limit"],
    "additionalProperties": False,
}


class TwoKeyErrors:
    """Two bugs of one kind: a KeyError on an empty name and another on the largest limit."""

    def call(self, arguments: JSONObject) -> Outcome:
        name, limit = arguments.get("name"), arguments.get("limit")
        if set(arguments) != {"name", "limit"} or not isinstance(name, str) or len(name) > 5:
            return Outcome(OutcomeKind.REJECTED, error_code="schema-invalid")
        if type(limit) is not int or not 0 <= limit <= 10:
            return Outcome(OutcomeKind.REJECTED, error_code="schema-invalid")
        if name == "":
            return Outcome(OutcomeKind.CRASH, message="KeyError: 'first'")
        if limit == 10:
            return Outcome(OutcomeKind.CRASH, message="KeyError: 'page 10'")
        return accepted(arguments)


def test_two_bugs_of_one_exception_type_in_two_members_are_both_reported() -> None:
    result = fuzz(
        LOOKUP,
        TwoKeyErrors(),
        ToolSpec("lookup"),
        FuzzConfig(41, 12),
        handler_label={"spec": "TwoKeyErrors"},
        replay_command="toolfuzz-gate fuzz",
    )
    crashes = {
        c["path"]: c
        for c in doc(result.receipt)["counterexamples"]
        if c["failure"] == "crash" and c["inputKind"] == "valid"
    }
    assert set(crashes) == {"/name", "/limit"}, doc(result.receipt)["counterexamples"]
    assert crashes["/name"]["input"]["name"] == ""
    # The second bug's input keeps a name that does not fail: it never shrinks into the first.
    assert crashes["/limit"]["input"]["limit"] == 10
    assert crashes["/limit"]["input"]["name"] != ""
    assert {c["cause"] for c in crashes.values()} == {"KeyError"}
