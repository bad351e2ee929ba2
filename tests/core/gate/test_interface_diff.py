"""The tool-level interface diff (`core.gate.interface_diff`) on receipts' `interface`
members: hints that promise less, task support, outputs no longer promised, descriptions,
receipts from before the member; and the docs' table of change codes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.receipts import typed
from toolfuzz_gate.core.campaign.interface import DeclaredInterface, interface_record
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.interface_diff import CHANGES, diff_interfaces, diff_tool

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}
OUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def receipt(
    hints: dict[str, bool] | None = None,
    output: Any = OUT,
    support: str | None = None,
    description: str = "Find.",
    schema: Any = SCHEMA,
) -> Receipt:
    declared = DeclaredInterface(description, output, support)
    face = interface_record(schema, declared, dict(hints or {}))
    return typed({"tool": "t", "seed": 41, "cases": {"valid": 20}, "interface": face.as_json()})


def changes(base: Receipt, head: Receipt) -> set[tuple[Any, Any, Any]]:
    return {(e["pointer"], e["change"], e["breaking"]) for e in diff_tool("t", base, head)}


def test_a_hint_that_promises_less_is_breaking_and_one_that_promises_more_is_not() -> None:
    pairs = [
        ({"readOnlyHint": True}, {"readOnlyHint": False}, True),
        ({"readOnlyHint": True}, {}, True),  # absent reads as the default, false
        ({"readOnlyHint": False}, {"readOnlyHint": True}, False),
        ({"destructiveHint": False}, {"destructiveHint": True}, True),
        ({"destructiveHint": False}, {}, True),
        ({"destructiveHint": True}, {"destructiveHint": False}, False),
        ({"idempotentHint": True}, {"idempotentHint": False}, True),
        ({"openWorldHint": False}, {"openWorldHint": True}, True),
        ({}, {"openWorldHint": False}, False),
    ]
    for was, now, breaking in pairs:
        hint = next(iter(was or now))
        found = changes(receipt(was), receipt(now))
        assert found == {(f"/annotations/{hint}", "annotation-changed", breaking)}, (was, now)


def test_task_support_breaks_only_when_head_requires_tasks() -> None:
    assert changes(receipt(), receipt(support="required")) == {
        ("/execution/taskSupport", "task-support-changed", True)
    }
    assert changes(receipt(support="required"), receipt(support="optional")) == {
        ("/execution/taskSupport", "task-support-changed", False)
    }


def test_an_output_no_longer_promised_breaks() -> None:
    assert changes(receipt(), receipt(output=None)) == {("/outputSchema", "output-removed", True)}
    assert changes(receipt(output=None), receipt()) == {("/outputSchema", "output-added", False)}
    looser = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert changes(receipt(), receipt(output=looser)) == {
        ("/outputSchema/required", "output-changed", True)  # head may leave `n` out
    }
    stricter = {**OUT, "additionalProperties": False}
    assert changes(receipt(), receipt(output=stricter)) == {
        ("/outputSchema", "output-changed", False)
    }
    titled = {**OUT, "title": "Result"}
    assert changes(receipt(), receipt(output=titled)) == set()  # an annotation only


def test_description_and_default_changes_are_named_and_not_breaking() -> None:
    documented = {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "Words.", "default": "a"}},
    }
    reworded = {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "Few words.", "default": "b"}},
    }
    assert changes(
        receipt(schema=documented), receipt(schema=reworded, description="Find fast.")
    ) == {
        ("/description", "description-changed", False),
        ("/inputSchema/properties/q/description", "description-changed", False),
        ("/inputSchema/properties/q/default", "default-changed", False),
    }


def test_receipts_without_an_interface_say_nothing_and_the_same_interface_nothing() -> None:
    old = typed({"tool": "t", "seed": 41})
    assert diff_tool("t", old, receipt()) == [] and diff_tool("t", receipt(), old) == []
    assert diff_tool("t", receipt(), receipt()) == []
    assert diff_interfaces({"t": receipt()}, {}) == [
        {
            "tool": "t",
            "pointer": "",
            "change": "tool-removed",
            "breaking": True,
            "evidence": {"refused": 20, "of": 20, "call": {}, "error": None},
            "base": None,
            "head": None,
        }
    ]


def test_the_docs_table_lists_every_change_code() -> None:
    text = (Path(__file__).parents[3] / "docs" / "interface.md").read_text(encoding="utf-8")
    assert tuple(re.findall(r"^\| `([a-z-]+)` \|", text, re.MULTILINE)) == CHANGES


def test_a_schema_the_engine_refuses_is_judged_by_base_calls_head_refuses() -> None:
    annotated = {**SCHEMA, "contentSchema": {}}  # the engine refuses it; jsonschema reads it
    assert changes(receipt(), receipt(schema=annotated)) == {
        ("/inputSchema", "schema-changed", False)
    }
    narrowed = {**annotated, "properties": {"q": {"type": "string", "maxLength": 0}}}
    [entry] = diff_tool("t", receipt(), receipt(schema=narrowed))
    assert (entry["change"], entry["breaking"]) == ("schema-changed", True)
    evidence = entry["evidence"]
    assert isinstance(evidence, dict) and isinstance(evidence["refused"], int)
    assert evidence["refused"] > 0 and evidence["call"] == {"q": "a"}
