"""What an MCP `tools/call` result means as an `Outcome` (edge; no I/O of its own).

See `mcp` for the rules: a result without `isError` is ACCEPTED (its output the
`structuredContent`, else the `content` list), `isError: true` is REJECTED with its code,
and the Python SDK's bare "Error executing tool NAME" is a CRASH.
"""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.campaign.cause import EXCEPTION, named
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind, output_text, said_of
from toolfuzz_gate.core.campaign.rejection_code import derived_code
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest_and_size
from toolfuzz_gate.core.jsonutil.redact import bounded_message


def result_outcome(
    result: dict[str, Any],
    tool: str,
    arguments: JSONObject,
    ignore: tuple[str, ...] = (),
    text_chars: int = 0,
) -> Outcome:
    if result.get("isError") is not True:
        output = output_of(result)
        output_digest, size = digest_and_size(output, ignore)
        return Outcome(
            kind=OutcomeKind.ACCEPTED,
            output_digest=output_digest,
            output_bytes=size,
            output_text=output_text(output, text_chars),
            said=said_of(_first_text(result)),
            structured=result.get("structuredContent"),
            has_structured="structuredContent" in result,
        )
    text = _first_text(result)
    if text == f"Error executing tool {tool}":
        return Outcome(
            kind=OutcomeKind.CRASH,
            message="the tool raised an unexpected exception (the Python SDK's crash result)",
        )
    structured = result.get("structuredContent")
    code = structured.get("code") if isinstance(structured, dict) else None
    path = structured.get("path") if isinstance(structured, dict) else None
    declared = isinstance(code, str) and bool(code)
    return Outcome(
        kind=OutcomeKind.REJECTED,
        error_code=code if declared else derived_code(text or "", arguments),
        error_path=path if isinstance(path, str) else None,
        message=bounded_message(text or ""),
        code_derived=not declared,
    )


def with_raised(outcome: Outcome, stderr: str) -> Outcome:
    """A generic crash result made specific by the exception the server logged while
    answering: the first one of its traceback, the cause the others were raised from (an
    SDK answers "Error executing tool" whatever the tool raised, and logs the rest)."""
    for line in stderr.splitlines():
        if EXCEPTION.match(line):  # a traceback's exception line starts with its name
            raised = bounded_message(line.strip(), 200)
            message = bounded_message(f"{outcome.message}: {raised}")
            return outcome._replace(message=message, cause=named(raised) or None)
    return outcome


def output_of(result: dict[str, Any]) -> JSON:
    structured = result.get("structuredContent")
    if structured is not None:
        return structured  # type: ignore[no-any-return]
    content = result.get("content")
    return content if isinstance(content, list) else []


def _first_text(result: dict[str, Any]) -> str | None:
    content = result.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            return text if isinstance(text, str) else None
    return None
