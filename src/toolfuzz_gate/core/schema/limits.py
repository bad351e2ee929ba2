"""The bounds every schema and run must stay within, and the member names none may use
(pure data)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_OUTPUT_BYTES = 1 << 20
"""A tool's output ceiling unless its policy names one (`max_output_bytes`): the bytes of
output read per call, past which an output is unbounded whatever the input. 1 MiB, so an
echo of the longest input the generator writes is read whole and judged by the relative
bound (`core.campaign.invariants.output_allowance`), not cut off."""

UNSAFE_NAMES = frozenset({"__proto__", "prototype", "constructor"})
"""Member names a JavaScript handler may take for its object's prototype: refused anywhere
in a schema (`schema.unsafe-key`) and never generated as a key."""


@dataclass(frozen=True)
class Limits:
    """Each bound has its own error code when exceeded (see `core.engine.compile`)."""

    max_schema_bytes: int = 64 * 1024
    max_depth: int = 32
    max_nodes: int = 1024
    max_properties: int = 128
    max_enum: int = 1024
    max_items: int = 32
    max_string_bytes: int = 4096
    max_value_bytes: int = 1024 * 1024
    min_runs: int = 1
    max_runs: int = 1000

    def as_json(self) -> dict[str, int]:
        return {
            "maxSchemaBytes": self.max_schema_bytes,
            "maxDepth": self.max_depth,
            "maxNodes": self.max_nodes,
            "maxProperties": self.max_properties,
            "maxEnum": self.max_enum,
            "maxItems": self.max_items,
            "maxStringBytes": self.max_string_bytes,
            "maxValueBytes": self.max_value_bytes,
            "maxRuns": self.max_runs,
        }


DEFAULT_LIMITS = Limits()
