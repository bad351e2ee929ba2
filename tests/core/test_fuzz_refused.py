"""`core.fuzz.refusal` and `refused_receipt`: a schema refused for unsupported keywords
gets an honest receipt instead of a run; any other refusal stays an error."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.canonical import digest
from toolfuzz_gate.core.fuzz import FuzzConfig, refusal, refused_receipt
from toolfuzz_gate.core.keywords import FAMILIES
from toolfuzz_gate.core.receipt import REQUIRED, problems
from toolfuzz_gate.core.tool import ToolSpec
from toolfuzz_gate.errors import SchemaError

CONFIG = FuzzConfig(41, 24)
TOOL = ToolSpec("refused", expected_rejections=("policy-x",), error_codes="^policy-")


def with_unsupported() -> dict[str, Any]:
    schema: dict[str, Any] = copy.deepcopy(poster.SCHEMA)  # type: ignore[arg-type]
    schema["properties"]["title"]["not"] = {"const": "x"}
    schema["not"] = {"required": ["nope"]}
    return schema


def test_a_supported_schema_is_not_refused() -> None:
    assert refusal(poster.SCHEMA, CONFIG) == ()


def test_refusal_lists_every_unsupported_keyword() -> None:
    found = refusal(with_unsupported(), CONFIG)
    assert sorted(p.pointer for p in found) == ["/not", "/properties/title/not"]
    assert {p.code for p in found} == {"schema.unsupported-keyword"}


def test_other_refusals_stay_errors() -> None:
    schema = with_unsupported()
    schema["properties"]["width"].update({"minimum": 10, "maximum": 5})
    with pytest.raises(SchemaError) as caught:
        refusal(schema, CONFIG)
    assert {p.code for p in caught.value.problems} != {"schema.unsupported-keyword"}


def test_the_refused_receipt_is_sound_and_claims_nothing_it_did_not_do() -> None:
    schema = with_unsupported()
    receipt = refused_receipt(
        schema,
        refusal(schema, CONFIG),
        TOOL,
        CONFIG,
        handler_label={"spec": "python:m:f"},
        replay_command="toolfuzz-gate run --policy p.yml",
    )
    assert problems(receipt) == []
    assert set(REQUIRED) <= set(receipt)
    assert receipt["unsupported"] == [
        {"keyword": "not", "path": "/not"},
        {"keyword": "not", "path": "/properties/title/not"},
    ]
    assert receipt["counterexamples"] == [] and receipt["invariants"] == {}
    assert receipt["coverage"] == dict.fromkeys(FAMILIES, "unsupported")
    assert receipt["cases"] == {}
    assert all(sum(counts.values()) == 0 for counts in receipt["mutationCounts"].values())
    assert receipt["schemaDigest"] == digest(schema)
    assert (receipt["tool"], receipt["seed"], receipt["runs"]) == ("refused", 41, 24)
    assert receipt["contract"]["expectedRejections"] == ["policy-x"]
    assert receipt["refused"]["code"] == "schema.unsupported-keyword"
    again = refused_receipt(
        schema,
        refusal(schema, CONFIG),
        TOOL,
        CONFIG,
        handler_label={"spec": "python:m:f"},
        replay_command="toolfuzz-gate run --policy p.yml",
    )
    assert again == receipt
