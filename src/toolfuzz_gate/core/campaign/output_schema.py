"""An MCP tool's declared `outputSchema`, read once and applied to each accepted call's
`structuredContent` (pure).

A schema is applied only when it is within the engine's size limit, each of its patterns
is one the engine accepts (Python's backtracking `re` runs them on the server's output, so a
catastrophic one could hang the gate), and the `jsonschema` library can read it; otherwise
the receipt says why it was not, and no call is judged by it. A violation is named in
stable words (the failing keyword and the instance path of the first error in a fixed
order), never by the library's message, so shrinking and fingerprints keep to one bug.
The library is imported only when a tool declares an output schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, Limits
from toolfuzz_gate.core.schema.regex.compiled import compile_pattern
from toolfuzz_gate.core.schema.regex.reader import PatternError

MISSING_CAUSE = "structuredContent missing"
"""The cause when a tool declaring an output schema answered without structured content."""


@dataclass(frozen=True, eq=False)
class OutputSchema:
    """A declared output schema: `applied` when calls are judged by it, else `reason`."""

    applied: bool
    reason: str
    _validator: Any = field(default=None, repr=False)

    def as_json(self) -> JSONObject:
        return {"applied": self.applied, "reason": self.reason}

    def violation(self, structured: JSON, present: bool) -> str | None:
        """The cause of `structured` breaking the schema, or None when it keeps it (or the
        schema is not applied)."""
        if not self.applied:
            return None
        if not present:
            return MISSING_CAUSE
        import referencing.exceptions

        try:
            errors = list(self._validator.iter_errors(structured))
        except (referencing.exceptions.Unresolvable, RecursionError):
            return None  # a reference the library cannot follow judges nothing
        if not errors:
            return None
        sites = sorted((jp.from_parts(e.absolute_path), str(e.validator)) for e in errors)
        path, keyword = sites[0]
        return f"{keyword} at {path or '/'}"


def read_output_schema(document: JSON, limits: Limits = DEFAULT_LIMITS) -> OutputSchema:
    """The declared `document`, applied when the bounds and the library allow."""
    if not isinstance(document, dict):
        return OutputSchema(False, "the output schema is not a JSON object")
    size = len(canonical_compact(document).encode("ascii"))
    if size > limits.max_schema_bytes:
        return OutputSchema(
            False,
            f"the output schema is {size} bytes; at most {limits.max_schema_bytes} are supported",
        )
    refused = _refused_pattern(document)
    if refused is not None:
        return OutputSchema(False, refused)
    import jsonschema
    import jsonschema.exceptions
    import jsonschema.validators

    cls: Any = jsonschema.validators.validator_for(
        document, default=jsonschema.Draft202012Validator
    )
    try:
        cls.check_schema(document)
    except jsonschema.exceptions.SchemaError as error:
        where = jp.from_parts(error.absolute_path) or "/"
        return OutputSchema(
            False, f"jsonschema cannot read the output schema: {error.validator} at {where}"
        )
    except RecursionError:
        return OutputSchema(False, "jsonschema cannot read the output schema: it nests too deep")
    return OutputSchema(True, "declared by the server's tools/list", cls(document))


def _refused_pattern(document: JSONObject) -> str | None:
    """Why the first pattern the engine refuses is refused (`pattern` values and
    `patternProperties` names), or None; iterative, since only the size is bounded yet."""
    stack: list[tuple[str, JSON]] = [("", document)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, list):
            stack.extend((jp.join(where, str(i)), item) for i, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        patterns = [(jp.join(where, "pattern"), node.get("pattern"))]
        named = node.get("patternProperties")
        if isinstance(named, dict):
            at = jp.join(where, "patternProperties")
            patterns.extend((jp.join(at, key), key) for key in named)
        for at, source in patterns:
            if isinstance(source, str):
                try:
                    compile_pattern(source)
                except PatternError as error:
                    return f"the output schema's pattern at {at} is refused: {error}"
        stack.extend((jp.join(where, key), value) for key, value in node.items())
    return None
