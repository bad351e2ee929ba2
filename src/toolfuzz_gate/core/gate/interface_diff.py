"""The interface diff: what a pull request changes in each tool's interface, with evidence (pure).

Read from the receipts' `interface` members (`core.campaign.interface`), each change is
one entry `{tool, pointer, change, breaking, evidence, base, head}` of the diff document's
`interface` list. `pointer` points into the tool's declaration as MCP lists it
(`/inputSchema/properties/q/maxLength`, `/annotations/readOnlyHint`, `/description`);
`change` is a code of `CHANGES`. An input change is breaking when a call valid for base
can be invalid for head (`core.gate.schema_compare`, on the compiled schemas), a hint when
it promises less, an output change when head may answer what base promised it would not.
Evidence (`core.gate.interface_evidence`) replays base's valid calls against head's schema:
a breaking entry carries the count head refuses and the first, shrunk; a change base's
calls show breaking is breaking whatever the walk said; a widening carries nothing.
Receipts from before the member say nothing, and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import RecordedInterface
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.gate.interface_evidence import (
    base_calls,
    evidence,
    judge_of,
    reading_of,
    removed_evidence,
    unexplained_evidence,
)
from toolfuzz_gate.core.gate.schema_compare import Change, compare
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.node import CompiledSchema
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.errors import SchemaError

CHANGES = (
    "tool-removed",
    "tool-added",
    "required-added",
    "required-removed",
    "property-removed",
    "property-added",
    "type-changed",
    "enum-narrowed",
    "enum-widened",
    "bound-narrowed",
    "bound-widened",
    "multiple-changed",
    "pattern-changed",
    "format-changed",
    "unique-items-added",
    "additional-properties-closed",
    "additional-properties-opened",
    "pattern-properties-added",
    "dependency-added",
    "items-changed",
    "contains-added",
    "schema-added",
    "composition-changed",
    "not-added",
    "not-changed",
    "schema-changed",
    "call-refused",
    "default-changed",
    "annotation-changed",
    "task-support-changed",
    "output-changed",
    "output-removed",
    "output-added",
    "description-changed",
)
"""Every `change` code, stable: add, never repurpose."""

HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
"""What an MCP client assumes of a hint a server does not declare (the MCP spec's defaults)."""
PROMISES = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
"""The value of each hint that promises something an agent may rely on; leaving it breaks."""


def diff_interfaces(base: Mapping[str, Receipt], head: Mapping[str, Receipt]) -> list[JSON]:
    """The `interface` entries of two receipt sets (keyed as `receipt_keys` keys them),
    breaking ones first, then by tool, pointer and code."""
    base_by_tool, head_by_tool = _by_tool(base), _by_tool(head)
    entries: list[JSONObject] = []
    for tool in sorted(base_by_tool.keys() | head_by_tool.keys()):
        entries += diff_tool(tool, base_by_tool.get(tool), head_by_tool.get(tool))
    entries.sort(
        key=lambda e: (not e["breaking"], str(e["tool"]), str(e["pointer"]), str(e["change"]))
    )
    return list[JSON](entries)


def diff_tool(tool: str, base: Receipt | None, head: Receipt | None) -> list[JSONObject]:
    """The interface entries of one tool (none when a side's receipt predates them)."""
    base_face = _interface(base)
    head_face = _interface(head)
    if base is None and head_face is not None:
        return [_entry(tool, "", "tool-added", False, None)]
    if head is None and base is not None and base_face is not None:
        judge = judge_of(base_face.input_schema, reading_of(base))
        calls = base_calls(base, judge) if judge is not None else []
        found = removed_evidence(calls, judge) if judge is not None else None
        return [_entry(tool, "", "tool-removed", True, found)]
    if base is None or head is None or base_face is None or head_face is None:
        return []
    if base_face.digest == head_face.digest:
        return []
    entries = _input(tool, base, head, base_face, head_face)
    entries += _texts(tool, base_face, head_face)
    entries += _hints(tool, base_face, head_face)
    entries += _output(tool, base_face, head_face)
    return entries


def _interface(receipt: Receipt | None) -> RecordedInterface | None:
    return receipt.interface if receipt is not None else None


def _by_tool(receipts: Mapping[str, Receipt]) -> dict[str, Receipt]:
    """One receipt per tool (its lowest seed's: every seed records the same interface)."""
    chosen: dict[str, Receipt] = {}
    for receipt in receipts.values():
        held = chosen.get(receipt.tool)
        if held is None or receipt.seed < held.seed:
            chosen[receipt.tool] = receipt
    return chosen


def _entry(
    tool: str,
    pointer: str,
    change: str,
    breaking: bool,
    found: JSONObject | None,
    base: JSON = None,
    head: JSON = None,
) -> JSONObject:
    return {
        "tool": tool,
        "pointer": pointer,
        "change": change,
        "breaking": breaking,
        "evidence": found,
        "base": base,
        "head": head,
    }


def _compiled(document: JSON, options: SchemaOptions) -> CompiledSchema | None:
    if document is None:
        return None
    try:
        return compile_schema(document, options=options)
    except SchemaError:
        return None


def _input(
    tool: str,
    base: Receipt,
    head: Receipt,
    base_face: RecordedInterface,
    head_face: RecordedInterface,
) -> list[JSONObject]:
    if base_face.input_schema_digest == head_face.input_schema_digest:
        return []
    head_options = reading_of(head)
    base_schema = _compiled(base_face.input_schema, reading_of(base))
    head_schema = _compiled(head_face.input_schema, head_options)
    base_judge = judge_of(base_face.input_schema, reading_of(base))
    head_judge = judge_of(head_face.input_schema, head_options)
    if base_schema is None or head_schema is None:
        # the engine refuses a side: the replayed calls decide (no validator at all: breaking)
        blind = base_judge is None or head_judge is None
        changes = [Change("", "schema-changed", blind, "", ("*",))]
    else:
        changes = compare(
            base_schema.root, head_schema.root, head_asserts_formats=head_options.format_assertion
        )
    entries: list[JSONObject] = []
    if base_judge is None or head_judge is None:
        unjudged: JSONObject = {"refused": 0, "of": 0, "call": None, "error": None}
        for change in changes:
            shown_none = unjudged if change.breaking else None
            entries.append(_from_change(tool, change, change.breaking, shown_none))
        return entries
    calls = base_calls(base, base_judge)
    shown, rest = evidence(changes, calls, base_judge, head_judge)
    for change, found in zip(changes, shown, strict=True):
        breaking = change.breaking or (found is not None and bool(found["refused"]))
        entries.append(_from_change(tool, change, breaking, found))
    if rest:
        unexplained = unexplained_evidence(rest, len(calls), base_judge, head_judge)
        entries.append(_entry(tool, "/inputSchema", "call-refused", True, unexplained))
    return entries


def _from_change(tool: str, change: Change, breaking: bool, found: JSONObject | None) -> JSONObject:
    return _entry(
        tool,
        "/inputSchema" + change.pointer,
        change.change,
        breaking,
        found,
        change.base,
        change.head,
    )


def _texts(tool: str, base: RecordedInterface, head: RecordedInterface) -> list[JSONObject]:
    """Description and default changes: the tool's description and every `description`
    and `default` of its input schema, by pointer (none breaking: a call valid for base
    stays valid, though an agent reading the text may now call otherwise)."""
    entries: list[JSONObject] = []
    if base.description != head.description:
        entries.append(
            _entry(
                tool,
                "/description",
                "description-changed",
                False,
                None,
                base.description,
                head.description,
            )
        )
    for member, code in (("description", "description-changed"), ("default", "default-changed")):
        was = dict(_annotations(base.input_schema, member, ""))
        now = dict(_annotations(head.input_schema, member, ""))
        for pointer in sorted(was.keys() | now.keys()):
            if was.get(pointer, _ABSENT) == now.get(pointer, _ABSENT):
                continue
            if not _in_both(base.input_schema, head.input_schema, pointer):
                continue  # a schema added or removed whole: its own entry says so
            entries.append(
                _entry(
                    tool,
                    "/inputSchema" + pointer,
                    code,
                    False,
                    None,
                    was.get(pointer),
                    now.get(pointer),
                )
            )
    return entries


_ABSENT = object()


def _in_both(base: Any, head: Any, pointer: str) -> bool:
    """Whether the schema holding the member at `pointer` is in both documents."""
    parent = pointer.rpartition("/")[0]
    return (
        jp.member_at(base, parent) is not jp.MISSING
        and jp.member_at(head, parent) is not jp.MISSING
    )


_NOT_SCHEMAS = frozenset({"enum", "const", "default", "examples"})
"""Members whose values are instances, not schemas: their `description`s are data."""


def _annotations(schema: Any, member: str, at: str) -> Iterator[tuple[str, Any]]:
    """(pointer, value) of every `member` (`description`, `default`) in a schema."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from _annotations(item, member, f"{at}/{index}")
        return
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        where = f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}"
        if key == member and (member != "description" or isinstance(value, str)):
            yield where, value
        elif key not in _NOT_SCHEMAS:
            yield from _annotations(value, member, where)


def _hints(tool: str, base: RecordedInterface, head: RecordedInterface) -> list[JSONObject]:
    was, now = base.annotations, head.annotations
    entries: list[JSONObject] = []
    for hint in sorted(set(was) | set(now)):
        if was.get(hint) == now.get(hint):
            continue
        default = HINT_DEFAULTS.get(hint)
        promise = PROMISES.get(hint)
        before, after = was.get(hint, default), now.get(hint, default)
        breaking = promise is not None and before == promise and after != promise
        entries.append(
            _entry(
                tool,
                f"/annotations/{hint}",
                "annotation-changed",
                breaking,
                None,
                was.get(hint),
                now.get(hint),
            )
        )
    before, after = base.task_support, head.task_support
    if before != after:
        breaking = after == "required" and before != "required"
        entries.append(
            _entry(
                tool,
                "/execution/taskSupport",
                "task-support-changed",
                breaking,
                None,
                before,
                after,
            )
        )
    return entries


def _output(tool: str, base: RecordedInterface, head: RecordedInterface) -> list[JSONObject]:
    """An output no longer promised, or promising less: head may answer what base's
    schema ruled out (compared the other way round from the input)."""
    was, now = base.output_schema_digest, head.output_schema_digest
    if was == now:
        return []
    if now is None:
        return [_entry(tool, "/outputSchema", "output-removed", True, None)]
    if was is None:
        return [_entry(tool, "/outputSchema", "output-added", False, None)]
    old = _compiled(base.output_schema, SchemaOptions())
    new = _compiled(head.output_schema, SchemaOptions())
    if old is None or new is None:
        return [_entry(tool, "/outputSchema", "output-changed", True, None)]
    loosened = [c for c in compare(new.root, old.root) if c.breaking]
    if not loosened and not compare(old.root, new.root):
        return []  # only its annotations (a title, a description) changed
    pointer = "/outputSchema" + (loosened[0].pointer if loosened else "")
    return [_entry(tool, pointer, "output-changed", bool(loosened), None)]
