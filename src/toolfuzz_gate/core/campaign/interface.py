"""A tool's interface as an agent sees it, recorded in its receipt (pure).

The receipt's `interface` member holds what an agent is written against: the input
schema as the engine read it (after any dialect's rewrites), the output schema, the MCP
annotations' hints, `execution.taskSupport` and the tool's description, with a digest of
them all. `core.gate.interface_diff` diffs two receipts' interfaces, so it needs the
schemas whole: one too big for the engine is recorded as null, its digest kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.campaign.receipt_members import RecordedInterface
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest, json_size

MAX_DESCRIPTION = 8192
"""Characters of a description kept (a longer one is cut, and says so)."""
MAX_SCHEMA_BYTES = 64 * 1024
"""A schema larger than this is recorded by its digest alone."""


@dataclass(frozen=True)
class DeclaredInterface:
    """What a tool declares about itself beyond its input schema and its hints: its
    description, its output schema (as declared) and its MCP `execution.taskSupport`."""

    description: str | None = None
    output_schema: JSON = None
    task_support: str | None = None


NOTHING_DECLARED = DeclaredInterface()


def declared_interface(listed: Mapping[str, Any] | None) -> DeclaredInterface:
    """The interface a tools/list entry (or a tools-file declaration, as a mapping) declares."""
    if not listed:
        return DeclaredInterface()
    description = listed.get("description")
    support = listed.get("taskSupport")
    return DeclaredInterface(
        description if isinstance(description, str) else None,
        listed.get("outputSchema"),
        support if isinstance(support, str) else None,
    )


def interface_record(
    document: JSON, declared: DeclaredInterface, annotations: JSONObject
) -> RecordedInterface:
    """The receipt's `interface` member for the input schema `document` (as read)."""
    description = declared.description
    if description is not None and len(description) > MAX_DESCRIPTION:
        description = description[:MAX_DESCRIPTION] + " [cut]"
    recorded = RecordedInterface(
        digest="",
        input_schema=_bounded(document),
        input_schema_digest=digest(document),
        output_schema=_bounded(declared.output_schema),
        output_schema_digest=None
        if declared.output_schema is None
        else digest(declared.output_schema),
        annotations=dict(annotations),
        task_support=declared.task_support,
        description=description,
    )
    return replace(recorded, digest=digest(recorded.body()))


def _bounded(schema: JSON) -> JSON:
    return schema if json_size(schema) <= MAX_SCHEMA_BYTES else None
