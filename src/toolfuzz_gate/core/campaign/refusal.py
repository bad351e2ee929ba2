"""Why a tool was not fuzzed: each reason located and hinted as the console prints it (pure).

A tool whose schema the engine refuses (any `SchemaError`: unsupported keywords, limits,
contradictions, references, patterns, drafts), or whose handler cannot be reached, is not
a reason to stop the run: it gets a refused receipt listing these reasons, and the other
tools run. `core.campaign.receipt_read` reads them back from a receipt, including the
receipts written before reasons were recorded (those were refused for unsupported keywords
only).

A few reasons are skips, not refusals (`SKIPS`): the tool says it must not be called the
way the gate calls tools, so not fuzzing it is the right thing, not lost coverage. A
skipped tool gets the same receipt (zero cases, its reason in `refused.reasons`) and is
listed wherever refused tools are, marked skipped; only the verdict differs: a skip is
noted and never fails the gate by itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSONObject
from toolfuzz_gate.core.jsonutil.locate import line_of
from toolfuzz_gate.errors import SchemaProblem, TaskRequiredError, ToolfuzzError, schema_hint

UNSUPPORTED_KEYWORD = "schema.unsupported-keyword"
SKIPS = frozenset({TaskRequiredError.code})
"""Reason codes that skip a tool rather than refuse it: noted by the verdict, never a
failure of the gate on their own (`core.gate.verdict`)."""
TOOL_REMOVED = "tool.removed"
"""Not a receipt's reason: the verdict's name for a base tool that head no longer has, so
`allow-refused` can accept removing a tool as it accepts any other lost coverage."""


@dataclass(frozen=True)
class Refusal:
    """One reason a tool was not fuzzed: the error's code, where in the schema (JSON
    Pointer, and the line in the schema's file when known), what, and what to do."""

    code: str
    pointer: str
    message: str
    keyword: str = ""
    line: int | None = None
    hint: str = ""

    def as_json(self) -> JSONObject:
        return {
            "code": self.code,
            "pointer": self.pointer,
            "line": self.line,
            "keyword": self.keyword,
            "message": self.message,
            "hint": self.hint,
        }

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> Refusal:
        """The refusal a receipt's `refused.reasons` entry records."""
        line = entry.get("line")
        return cls(
            str(entry.get("code", "")),
            str(entry.get("pointer", "")),
            str(entry.get("message", "")),
            str(entry.get("keyword", "")),
            line if isinstance(line, int) and not isinstance(line, bool) else None,
            str(entry.get("hint", "")),
        )

    def render(self) -> str:
        """`CODE at POINTER (line N): MESSAGE` as a `SchemaError` lists a problem (a
        handler's reason has no pointer), then the hint on its own line."""
        at = f" at {self.pointer or '(root)'}" if self.code.startswith("schema.") else ""
        line = f" (line {self.line})" if self.line is not None else ""
        text = f"{self.code}{at}{line}: {self.message}"
        return text + (f"\n  hint: {self.hint}" if self.hint else "")


def schema_refusals(
    problems: Sequence[SchemaProblem], lines: Mapping[str, int] | None = None, root: str = ""
) -> tuple[Refusal, ...]:
    """The schema's problems as refusals; `lines` maps pointers of the schema's file to
    lines, `root` is the schema's own pointer in that file ("" when the file is the schema)."""
    table = dict(lines) if lines else None
    return tuple(
        Refusal(
            problem.code,
            problem.pointer,
            problem.message,
            problem.keyword,
            line_of(table, root + problem.pointer) if table else None,
            schema_hint(problem.code),
        )
        for problem in problems
    )


def error_refusal(error: ToolfuzzError) -> Refusal:
    """A refusal for an error that is not about a schema location (a handler that cannot
    be started, a server that lists no such tool)."""
    return Refusal(error.code, "", error.message, hint=error.hint)


def is_skip(code: object) -> bool:
    """Whether a reason's code skips the tool (`SKIPS`) rather than refuses it."""
    return code in SKIPS
