"""What a report needs beside the diff document: verdict, shas, seeds, marker key, and where
each tool's schema lives, plus the lookups every renderer shares (pure)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.core.campaign.outcome import handler_words
from toolfuzz_gate.core.campaign.refusal import is_skip
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.report.untrusted import shell_word


@dataclass(frozen=True)
class SchemaSource:
    """Where a tool's schema lives: a repo-relative `file`, the JSON Pointer of the schema
    inside that file (`root`, "" when the file is the schema), and pointer -> 1-based line
    for that file's text (as `core.jsonutil.locate.line_index` builds it)."""

    file: str
    lines: Mapping[str, int] = field(default_factory=dict)
    root: str = ""


@dataclass(frozen=True)
class ReplayFrom:
    """Where a reviewer standing in the repository root finds the receipts and the
    policy, so a printed replay command runs verbatim ("" and None: bare receipt names)."""

    receipts: str = ""
    policy: str | None = None


@dataclass(frozen=True)
class ReportContext:
    failed: bool
    reasons: tuple[str, ...] = ()
    head_sha: str | None = None
    base_sha: str | None = None
    seeds: tuple[int, ...] = ()
    key: str = "default"
    sources: Mapping[str, SchemaSource] = field(default_factory=dict)
    replay_from: ReplayFrom = ReplayFrom()
    reported_by: str = ""
    """Who vouches for the results, said in the heading when it is not the gate itself (the
    workflow_run report: the pull request's own run, which a fork controls)."""
    agent_fixes: tuple[Mapping[str, Any], ...] = ()
    """The erroneous prompt sets agent mode found, when the gate ran it
    (`core.report.agent_fixes`)."""
    agent_reached: tuple[Mapping[str, Any], ...] = ()
    """The counterexamples an agent reached and the failing documentation probes, each with
    the prompt that reached it (`core.report.agent_fixes`)."""
    trust: tuple[str, ...] = ()
    """What the pull request changed that the gate did not take from it, shown first
    (`core.report.trust_block`; `core.gate.policy_trust`)."""


@dataclass(frozen=True)
class Location:
    file: str
    line: int


def tools(diff: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The diff's tool entries that are objects, in the document's (sorted) order."""
    found = diff.get("tools")
    return [t for t in found if isinstance(t, Mapping)] if isinstance(found, list) else []


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def counterexamples(entry: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    group = entry.get("counterexamples")
    found = group.get(kind) if isinstance(group, Mapping) else None
    return [c for c in found if isinstance(c, Mapping)] if isinstance(found, list) else []


def unsupported(entry: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    group = entry.get("unsupported")
    found = group.get(kind) if isinstance(group, Mapping) else None
    return [u for u in found if isinstance(u, Mapping)] if isinstance(found, list) else []


def iter_counterexamples(diff: Mapping[str, Any], kind: str) -> Iterator[Mapping[str, Any]]:
    """Every counterexample of `kind`, each with its tool entry's name as `tool`."""
    for entry in tools(diff):
        for cx in counterexamples(entry, kind):
            yield {**cx, "tool": text_of(entry.get("tool"))}


def iter_notes(diff: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Head's under-specification notes, each with its tool entry's name as `tool` (none
    in a diff document from before they were kept)."""
    for entry in tools(diff):
        notes = entry.get("underSpecified")
        for note in notes if isinstance(notes, list) else ():
            if isinstance(note, Mapping):
                yield {**note, "tool": text_of(entry.get("tool"))}


def iter_unsupported(diff: Mapping[str, Any], kind: str) -> Iterator[Mapping[str, Any]]:
    for entry in tools(diff):
        for item in unsupported(entry, kind):
            yield {**item, "tool": text_of(entry.get("tool"))}


def refusals(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Head's refusal reasons of a tool entry, each with `state` (`new` when the code is
    one base did not refuse the tool for, `skipped` for a skip, else `still`)."""
    group = entry.get("refused")
    if not isinstance(group, Mapping):
        return []
    found, added = group.get("head"), group.get("added")
    new = set(added) if isinstance(added, list) else set()
    return [
        {**r, "state": _state(r.get("code"), new)}
        for r in (found if isinstance(found, list) else [])
        if isinstance(r, Mapping)
    ]


def _state(code: object, new: set[Any]) -> str:
    if code in new:
        return "new"
    return "skipped" if is_skip(code) else "still"


def iter_refusals(diff: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every head refusal reason, each with its tool and `state`, new ones first."""
    found = [
        {**reason, "tool": text_of(entry.get("tool"))}
        for entry in tools(diff)
        for reason in refusals(entry)
    ]
    yield from sorted(found, key=lambda r: r["state"] != "new")


def refusal_location(context: ReportContext, item: Mapping[str, Any]) -> Location:
    """The line the refusal names, else the line of its pointer (or nearest ancestor)."""
    source = _source(context, text_of(item.get("tool")))
    line = item.get("line")
    if isinstance(line, int) and not isinstance(line, bool) and line > 0:
        return Location(source.file, line)
    return Location(source.file, _nearest_line(source, source.root + text_of(item.get("pointer"))))


def receipt_name(diff: Mapping[str, Any], tool: str, side: str) -> str:
    for entry in tools(diff):
        if entry.get("tool") == tool:
            receipt = entry.get("receipt")
            name = receipt.get(side) if isinstance(receipt, Mapping) else None
            if isinstance(name, str) and name:
                return name
    return f"{tool}.json"


def evidence(cx: Mapping[str, Any]) -> str:
    """What the handler said about the minimized input: its error code and message (an
    exception, a server error, an exit status with a stderr tail), as the receipt holds
    it; "" when it said nothing (an accepted hostile call speaks by being accepted)."""
    error = cx.get("error")
    if not isinstance(error, Mapping):
        return ""
    return handler_words(text_of(error.get("code")), text_of(error.get("message")))


def evidence_line(cx: Mapping[str, Any]) -> str:
    """`evidence` on one line: its first line and, for a stderr tail or a traceback, its
    last (which names the exception)."""
    lines = [line.strip() for line in evidence(cx).splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return f"{lines[0]} \u2026 {lines[-1]}"


def replay_command(receipt: str, fingerprint: str, where: ReplayFrom = ReplayFrom()) -> str:
    """`toolfuzz-gate replay` for one counterexample, runnable from the repository root."""
    path = f"{where.receipts.rstrip('/')}/{receipt}" if where.receipts else receipt
    command = f"toolfuzz-gate replay {shell_word(path)} --fingerprint {shell_word(fingerprint)}"
    return command + (f" --policy {shell_word(where.policy)}" if where.policy else "")


def _tokens(pointer: str) -> list[str] | None:
    try:
        return jp.split(pointer)
    except ValueError:
        return None


def _nearest_line(source: SchemaSource, pointer: str) -> int:
    """The line of `pointer` in the source, else its nearest ancestor's, else 1."""
    tokens = _tokens(pointer)
    while tokens is not None:
        at = jp.from_parts(tokens)
        if at in source.lines:
            return source.lines[at]
        if not tokens:
            break
        tokens.pop()
    return source.lines.get(source.root, 1)


def schema_pointer_of_path(instance_path: str) -> str:
    """The schema pointer of the property an instance path names (array items as `items`)."""
    parts: list[str] = []
    for token in _tokens(instance_path) or []:
        parts.extend(("items",) if token.isdigit() else ("properties", token))
    return jp.from_parts(parts)


def _source(context: ReportContext, tool: str) -> SchemaSource:
    return context.sources.get(tool) or SchemaSource(file=f"{tool}.schema.json")


def counterexample_location(context: ReportContext, cx: Mapping[str, Any]) -> Location:
    """The line of the property the path names, else of its nearest named ancestor
    property, else of the tool's schema (its definition), else line 1."""
    source = _source(context, text_of(cx.get("tool")))
    tokens = _tokens(text_of(cx.get("path"))) or []
    for size in range(len(tokens), 0, -1):
        at = source.root + schema_pointer_of_path(jp.from_parts(tokens[:size]))
        if at in source.lines:
            return Location(source.file, source.lines[at])
    return Location(source.file, source.lines.get(source.root, 1))


def unsupported_location(context: ReportContext, item: Mapping[str, Any]) -> Location:
    """The keyword's own line when the pointer names the schema holding it, else the
    pointer's (or its nearest ancestor's) line."""
    source = _source(context, text_of(item.get("tool")))
    path, keyword = text_of(item.get("path")), text_of(item.get("keyword"))
    tokens = _tokens(path)
    if tokens is not None and keyword and (not tokens or tokens[-1] != keyword):
        exact = source.root + jp.join(path, keyword)
        if exact in source.lines:
            return Location(source.file, source.lines[exact])
    return Location(source.file, _nearest_line(source, source.root + path))
