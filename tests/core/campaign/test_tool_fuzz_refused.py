"""`core.campaign.tool_fuzz.refusal` and `refused_receipt`: a schema the engine refuses, for
unsupported
keywords or any other schema error, gets an honest receipt naming every reason instead of
a run (and the run goes on with the other tools)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tests.receipts import sealed
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.receipt_read import REQUIRED, problems, read_receipt
from toolfuzz_gate.core.campaign.refusal import schema_refusals
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, refusal, refused_receipt
from toolfuzz_gate.core.jsonutil.canonical import digest
from toolfuzz_gate.core.jsonutil.locate import line_index
from toolfuzz_gate.core.schema.keywords import FAMILIES
from toolfuzz_gate.errors import SchemaError, schema_hint

CONFIG = FuzzConfig(41, 24)
TOOL = ToolSpec("refused", expected_rejections=("policy-x",), error_codes="^policy-")


def with_unsupported() -> dict[str, Any]:
    schema: dict[str, Any] = copy.deepcopy(poster.SCHEMA)
    schema["properties"]["title"]["contentSchema"] = {"const": "x"}
    schema["contentSchema"] = {"required": ["nope"]}
    return schema


def test_a_supported_schema_is_not_refused() -> None:
    assert refusal(poster.SCHEMA, CONFIG) == ()


def test_refusal_lists_every_unsupported_keyword() -> None:
    found = refusal(with_unsupported(), CONFIG)
    assert sorted(p.pointer for p in found) == ["/contentSchema", "/properties/title/contentSchema"]
    assert {p.code for p in found} == {"schema.unsupported-keyword"}


def test_other_refusals_are_listed_with_the_unsupported_keywords() -> None:
    schema = with_unsupported()
    schema["properties"]["width"].update({"minimum": 10, "maximum": 5})
    found = refusal(schema, CONFIG)
    assert ("schema.contradiction", "/properties/width/minimum") in {
        (p.code, p.pointer) for p in found
    }
    assert {p.pointer for p in found if p.code == "schema.unsupported-keyword"} == {
        "/contentSchema",
        "/properties/title/contentSchema",
    }


def test_a_root_that_is_not_an_object_is_refused() -> None:
    assert [p.code for p in refusal({"type": "string"}, CONFIG)] == ["schema.root-not-object"]


@pytest.mark.parametrize(
    ("schema", "code"),
    [
        ({"type": "object", "properties": {"c": {"enum": list(range(1025))}}}, "schema.limit-enum"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/gone"}}}, None),
        ({"type": "object", "properties": {"a": {"$ref": "https://x.test/s.json"}}}, None),
    ],
)
def test_every_schema_error_is_a_refusal_not_an_exception(schema: Any, code: str | None) -> None:
    with pytest.raises(SchemaError) as caught:
        from toolfuzz_gate.core.engine.compile import compile_schema

        compile_schema(schema)
    found = refusal(schema, CONFIG)
    assert found == caught.value.problems
    if code is not None:
        assert found[0].code == code


def test_reasons_carry_code_pointer_line_message_and_hint() -> None:
    schema = with_unsupported()
    schema["properties"]["width"].update({"minimum": 10, "maximum": 5})
    text = json.dumps(schema, indent=2)
    reasons = schema_refusals(refusal(schema, CONFIG), line_index(text))
    receipt: dict[str, Any] = refused_receipt(
        schema, reasons, TOOL, CONFIG, handler_label={}, replay_command="toolfuzz-gate"
    ).document()
    assert problems(receipt) == []
    assert read_receipt(receipt).reasons == reasons
    assert receipt["refused"]["code"] == reasons[0].code
    lines = text.splitlines()
    assert all(reason.hint == schema_hint(reason.code) for reason in reasons)
    by_pointer = {reason.pointer: reason for reason in reasons}
    minimum = by_pointer["/properties/width/minimum"]
    assert minimum.code == "schema.contradiction" and minimum.line is not None
    assert lines[minimum.line - 1].strip() == '"minimum": 10,'
    title_refused = by_pointer["/properties/title/contentSchema"]
    assert title_refused.line is not None and '"contentSchema"' in lines[title_refused.line - 1]
    assert [u["path"] for u in receipt["unsupported"]] == [
        "/contentSchema",
        "/properties/title/contentSchema",
    ]


def test_a_receipt_from_before_reasons_reads_as_unsupported_keywords() -> None:
    schema = with_unsupported()
    receipt: dict[str, Any] = refused_receipt(
        schema,
        schema_refusals(refusal(schema, CONFIG)),
        TOOL,
        CONFIG,
        handler_label={},
        replay_command="toolfuzz-gate",
    ).document()
    del receipt["refused"]["reasons"]
    del receipt["receiptHash"]
    read = read_receipt(sealed(receipt))
    assert sorted((r.code, r.pointer) for r in read.reasons) == [
        ("schema.unsupported-keyword", "/contentSchema"),
        ("schema.unsupported-keyword", "/properties/title/contentSchema"),
    ]


def test_the_refused_receipt_is_sound_and_claims_nothing_it_did_not_do() -> None:
    schema = with_unsupported()
    receipt: dict[str, Any] = refused_receipt(
        schema,
        schema_refusals(refusal(schema, CONFIG)),
        TOOL,
        CONFIG,
        handler_label={"spec": "python:m:f"},
        replay_command="toolfuzz-gate run --policy p.yml",
    ).document()
    assert problems(receipt) == []
    assert set(REQUIRED) <= set(receipt)
    assert receipt["unsupported"] == [
        {"keyword": "contentSchema", "path": "/contentSchema"},
        {"keyword": "contentSchema", "path": "/properties/title/contentSchema"},
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
        schema_refusals(refusal(schema, CONFIG)),
        TOOL,
        CONFIG,
        handler_label={"spec": "python:m:f"},
        replay_command="toolfuzz-gate run --policy p.yml",
    )
    assert again.document() == receipt
