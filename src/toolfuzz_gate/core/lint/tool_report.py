"""What `lint` says about each declared tool: compile problems, documentation findings,
dialect rewrites, each located in the file (pure).

Errors are what the compiler refuses (and a root that is not an object, which `fuzz`
refuses): they decide the exit status. Documentation findings (`core.lint.documentation`) are
warnings.
Pointers are into the file (the tool's own pointer, then the pointer in its schema).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.satisfiable import root_problem
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_compact
from toolfuzz_gate.core.jsonutil.locate import line_of
from toolfuzz_gate.core.lint.documentation import lint
from toolfuzz_gate.core.schema.dialects import normalize
from toolfuzz_gate.core.schema.discover import ToolDeclaration
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions
from toolfuzz_gate.errors import SchemaError, SchemaProblem

LINT_FORMAT = "toolfuzz-lint/1"


@dataclass(frozen=True)
class Entry:
    severity: str
    """`error` (affects the exit status) or `warning`."""
    code: str
    file: str
    tool: str
    pointer: str
    line: int | None
    message: str
    keyword: str = ""

    def as_json(self) -> JSONObject:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "tool": self.tool,
            "pointer": self.pointer,
            "line": self.line,
            "keyword": self.keyword,
            "message": self.message,
        }

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        at = f" {self.pointer or '(root)'}" if self.tool or self.pointer else ""
        tool = f" (tool {self.tool})" if self.tool else ""
        return f"{where}: {self.severity}[{self.code}]{at}{tool}: {self.message}"


@dataclass(frozen=True)
class ToolReport:
    file: str
    tool: str
    form: str
    pointer: str
    dialect: str | None
    rewrites: list[JSONObject]
    entries: list[Entry] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not any(entry.severity == "error" for entry in self.entries)

    def as_json(self) -> JSONObject:
        return {
            "file": self.file,
            "tool": self.tool,
            "form": self.form,
            "pointer": self.pointer,
            "compiles": self.clean,
            "dialect": None
            if self.dialect is None
            else {"name": self.dialect, "rewrites": list(self.rewrites)},
        }


def report_tool(
    declaration: ToolDeclaration,
    *,
    file: str,
    lines: dict[str, int],
    dialect: str | None = None,
    options: SchemaOptions = DEFAULT_OPTIONS,
) -> ToolReport:
    """Compile and lint one tool; `lines` maps the file's pointers to lines (may be empty)."""
    schema, rewrites = normalize(declaration.schema, dialect)
    problems: list[SchemaProblem] = []
    try:
        compiled = compile_schema(schema, options=options)
    except SchemaError as error:
        problems = list(error.problems)
    else:
        if (problem := root_problem(compiled.root, DEFAULT_LIMITS)) is not None:
            problems = [problem]
    entries = []

    def entry(severity: str, code: str, pointer: str, message: str, keyword: str = "") -> Entry:
        at = declaration.pointer + pointer
        return Entry(
            severity, code, file, declaration.name, at, line_of(lines, at), message, keyword
        )

    refused = {problem.pointer for problem in problems}
    for problem in problems:
        entries.append(
            entry("error", problem.code, problem.pointer, problem.message, problem.keyword)
        )
    for finding in lint(schema, compiled=not problems, options=options):
        if finding.pointer not in refused:  # the compiler already said it, as an error
            entries.append(entry("warning", finding.code, finding.pointer, finding.message))
    entries.sort(key=lambda e: (e.line is None, e.line or 0))
    return ToolReport(
        file, declaration.name, declaration.form, declaration.pointer, dialect, rewrites, entries
    )


def unreadable(
    file: str, code: str, message: str, pointer: str = "", line: int | None = None
) -> ToolReport:
    """A file (or model) that yields no tools at all: one error naming it."""
    entry = Entry("error", code, file, "", pointer, line, message)
    return ToolReport(file, "", "", "", None, [], [entry])


def _rewrite_note(report: ToolReport, rewrite: JSONObject) -> str:
    before = canonical_compact(rewrite["from"]) if "from" in rewrite else "(absent)"
    after = canonical_compact(rewrite["to"]) if "to" in rewrite else "(removed)"
    return (
        f"{report.file}: note[dialect.{report.dialect}] {report.pointer}{rewrite['pointer']} "
        f"(tool {report.tool}): {before[:60]} -> {after[:60]}"
    )


def render_lint_text(reports: list[ToolReport]) -> str:
    """One line per finding (`FILE:LINE: severity[code] POINTER (tool NAME): message`),
    one per dialect rewrite, then the verdict."""
    lines = [entry.render() for report in reports for entry in report.entries]
    for report in reports:
        lines.extend(_rewrite_note(report, rewrite) for rewrite in report.rewrites)
    errors = sum(1 for r in reports for e in r.entries if e.severity == "error")
    warnings = sum(1 for r in reports for e in r.entries if e.severity == "warning")
    tools = sum(1 for r in reports if r.tool)
    verdict = "ok" if errors == 0 else "FAILED"
    lines.append(f"lint: {verdict}: {tools} tool(s), {errors} error(s), {warnings} warning(s)")
    return "\n".join(lines)


def render_lint_json(reports: list[ToolReport]) -> JSONObject:
    return {
        "format": LINT_FORMAT,
        "ok": all(report.clean for report in reports),
        "tools": [report.as_json() for report in reports if report.tool],
        "findings": [entry.as_json() for report in reports for entry in report.entries],
    }
