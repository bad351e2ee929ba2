"""The PR comment body and step summary: the diff document as GitHub Markdown (pure).

The body never exceeds a budget of UTF-16 code units (GitHub's comment limit is 65,536; the
default leaves room). Detail is dropped in a fixed order until it fits, each stage saying what
it left out: 0) the rows of the documentation section (under-specification notes,
`core.report.notes`), 1) minimized-input bodies and the handler's words, 2) still-failing rows,
3) fixed rows, 4) new-counterexample rows beyond `NEW_ROWS_KEPT`, 5) refused-tool and
unsupported-keyword rows beyond the most that fit, 6) new rows beyond the most that fit; a
body that still does not fit is the marker, the verdict and a pointer to the receipts. Blocks
are dropped whole, so nothing is ever cut inside a fence. Refused tools (with each reason)
and unsupported keywords share one table; base counterexamples head did not run are listed as
such (at most `NEW_ROWS_KEPT` rows), never as fixed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate import ENGINE_NAME, __version__
from toolfuzz_gate.core.report.agent_fixes import render_agent_reached, render_agent_section
from toolfuzz_gate.core.report.context import (
    ReplayFrom,
    ReportContext,
    evidence,
    evidence_line,
    iter_counterexamples,
    iter_refusals,
    iter_unsupported,
    receipt_name,
    refusal_location,
    refusals,
    replay_command,
    text_of,
    tools,
    unsupported_location,
)
from toolfuzz_gate.core.report.groups import (
    groups_of,
    is_grouped,
    render_callouts,
    render_collapsed_groups,
    render_new_groups,
)
from toolfuzz_gate.core.report.heading import provenance, totals_line
from toolfuzz_gate.core.report.interface_section import render_interface_section
from toolfuzz_gate.core.report.notes import render_notes_section
from toolfuzz_gate.core.report.sequences import is_sequence, sequence_block
from toolfuzz_gate.core.report.trust_block import render_trust_block
from toolfuzz_gate.core.report.untrusted import (
    cap,
    clean,
    comment_key,
    fence,
    json_block_text,
    markdown_text,
    utf16_units,
)

BODY_BUDGET = 60_000
"""UTF-16 code units a body may hold by default."""
MIN_BUDGET = 500
"""The smallest budget accepted: the last-resort body always fits in it."""
MAX_REASONS = 10
NEW_ROWS_KEPT = 20
"""New-counterexample rows stage 4 keeps; later stages cut them further only if they must."""

REASON_CAP = 160
"""Characters of a table row's reason."""
EVIDENCE_CAP = 600
"""Characters of a handler's own words shown under a new counterexample."""

_CX_HEADER = "| # | tool | failure | path | reason |\n| --- | --- | --- | --- | --- |"


@dataclass(frozen=True)
class _Detail:
    notes: bool = True
    inputs: bool = True
    still_rows: bool = True
    fixed_rows: bool = True
    new_rows: int | None = None
    unsupported_rows: int | None = None


def marker(context: ReportContext) -> str:
    """The hidden first line that identifies the gate's comment for this key."""
    return f"<!-- {ENGINE_NAME}:{comment_key(context.key)} -->"


def render_markdown(
    diff: Mapping[str, Any], context: ReportContext, budget: int = BODY_BUDGET
) -> str:
    if budget < MIN_BUDGET:
        raise ValueError(f"a Markdown budget is at least {MIN_BUDGET} UTF-16 code units")
    new = groups_of(diff, "new") if is_grouped(diff) else list(iter_counterexamples(diff, "new"))
    refused_rows = _refused_rows(diff, context)

    def fits(detail: _Detail) -> str | None:
        body = _render(diff, context, detail)
        return body if utf16_units(body) <= budget else None

    detail = _Detail()
    for stage in (
        {},
        {"notes": False},
        {"inputs": False},
        {"still_rows": False},
        {"fixed_rows": False},
    ):
        detail = replace(detail, **stage)
        body = fits(detail)
        if body is not None:
            return body
    if len(new) > NEW_ROWS_KEPT:
        detail = replace(detail, new_rows=NEW_ROWS_KEPT)
        body = fits(detail)
        if body is not None:
            return body
    for name, count in (
        ("unsupported_rows", len(refused_rows)),
        ("new_rows", min(len(new), NEW_ROWS_KEPT)),
    ):
        most = _most_that_fit(detail, name, count, fits)
        detail = _limited(detail, name, most)
        body = fits(detail)
        if body is not None:
            return body
    return _last_resort(context)


FALLBACK_BUDGETS = (BODY_BUDGET, 20_000, 4_000, MIN_BUDGET)
"""The renderings tried in turn when GitHub answers that a comment's body is too long."""


def comment_bodies(diff: Mapping[str, Any], context: ReportContext) -> list[str]:
    """The comment at each fallback budget, longest first, without repeats."""
    bodies: list[str] = []
    for budget in FALLBACK_BUDGETS:
        body = render_markdown(diff, context, budget)
        if body not in bodies:
            bodies.append(body)
    return bodies


def _limited(detail: _Detail, name: str, rows: int) -> _Detail:
    if name == "new_rows":
        return replace(detail, new_rows=rows)
    return replace(detail, unsupported_rows=rows)


def _most_that_fit(
    detail: _Detail, name: str, count: int, fits: Callable[[_Detail], str | None]
) -> int:
    """The largest n in [0, count) for which `name = n` fits (0 when none does)."""
    low, high = 0, count - 1
    best = 0
    while low <= high:
        middle = (low + high) // 2
        if fits(_limited(detail, name, middle)) is not None:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best


def _last_resort(context: ReportContext) -> str:
    return (
        "\n\n".join(
            (
                marker(context),
                _verdict_header(context),
                *render_trust_block(context.trust),
                "_The report is too large for a comment; every detail is in the receipts._",
            )
        )
        + "\n"
    )


def _verdict_header(context: ReportContext) -> str:
    verdict = "\u274c failed" if context.failed else "\u2705 passed"
    by = f" ({markdown_text(context.reported_by)})" if context.reported_by else ""
    return f"## {ENGINE_NAME}: {verdict}{by}"


def _render(diff: Mapping[str, Any], context: ReportContext, detail: _Detail) -> str:
    parts = [marker(context), _verdict_header(context), *render_trust_block(context.trust)]
    reasons = [f"- {markdown_text(r)}" for r in context.reasons[:MAX_REASONS]]
    if len(context.reasons) > MAX_REASONS:
        reasons.append(f"- \u2026 {len(context.reasons) - MAX_REASONS} more reasons")
    if reasons:
        parts.append("\n".join(reasons))
    parts.extend(render_callouts(diff))
    parts.append(provenance(diff, context))
    parts.append(totals_line(diff))
    if is_grouped(diff):
        parts.extend(render_new_groups(diff, context.replay_from, detail.inputs, detail.new_rows))
    else:
        parts.extend(_new_section(diff, context, detail))
    parts.extend(_not_run_section(diff))
    parts.extend(_refused_section(diff, context, detail))
    parts.extend(render_interface_section(diff, detail.inputs))
    if is_grouped(diff):
        parts.extend(
            render_collapsed_groups(diff, "stillFailing", "Still failing", detail.still_rows)
        )
        parts.extend(render_collapsed_groups(diff, "fixed", "Fixed", detail.fixed_rows))
    else:
        still = _collapsed(
            diff, context, "stillFailing", "Still failing", detail.still_rows, replay=True
        )
        parts.extend(still)
        parts.extend(_collapsed(diff, context, "fixed", "Fixed", detail.fixed_rows, replay=False))
    parts.extend(render_notes_section(diff, detail.notes))
    parts.extend(render_agent_reached(context.agent_reached, detail.notes))
    parts.extend(render_agent_section(context.agent_fixes, detail.notes))
    parts.append(f"<sub>{ENGINE_NAME} {__version__}</sub>")
    return "\n\n".join(parts) + "\n"


def _path(cx: Mapping[str, Any]) -> str:
    return markdown_text(text_of(cx.get("path")) or "(root)")


def _reason(cx: Mapping[str, Any]) -> str:
    """The invariant's words, then the first line of the handler's own (its exception,
    its error code), so the row says what broke without opening the receipt."""
    error = cx.get("error")
    reason = error.get("reason") if isinstance(error, Mapping) else None
    text = reason if isinstance(reason, str) else ""
    flaky = _flaky(cx)
    text = f"{text} ({flaky})" if flaky and text else text or flaky
    said = evidence_line(cx)
    if said:
        text = f"{text}: {said}" if text else said
    return markdown_text(text, REASON_CAP)


def _flaky(cx: Mapping[str, Any]) -> str:
    """For a counterexample that failed in only some of its replays, how often: the
    reviewer should know a re-run may pass ("" for the others). One that never failed on
    a handler started afresh says so: the campaign's own state made it fail."""
    if isinstance(cx.get("stateDependent"), Mapping) and cx.get("flaky") is not True:
        return "state-dependent: never failed on a handler started afresh"
    if cx.get("flaky") is not True:
        return ""
    reproduced = cx.get("reproduced")
    if isinstance(reproduced, Mapping):
        runs, failed = reproduced.get("runs"), reproduced.get("failed")
        if type(runs) is int and type(failed) is int:
            return f"flaky: failed {failed} of {runs} runs, a re-run may pass"
    return "flaky: a re-run may pass"


def _row(number: int, cx: Mapping[str, Any]) -> str:
    cells = (
        str(number),
        markdown_text(cx.get("tool", "")),
        markdown_text(cx.get("failure", "")),
        _path(cx),
        _reason(cx),
    )
    return "| " + " | ".join(cells) + " |"


def _replay(diff: Mapping[str, Any], cx: Mapping[str, Any], where: ReplayFrom) -> str:
    receipt = receipt_name(diff, text_of(cx.get("tool")), "head")
    return replay_command(receipt, text_of(cx.get("fingerprint")), where)


def _more(count: int, what: str) -> str:
    return f"_\u2026 {count} more {what}, see the receipts._"


def _new_section(diff: Mapping[str, Any], context: ReportContext, detail: _Detail) -> list[str]:
    new = list(iter_counterexamples(diff, "new"))
    if not new:
        return []
    shown = new if detail.new_rows is None else new[: detail.new_rows]
    parts = [f"### New counterexamples ({len(new)})"]
    if shown:
        parts.append("\n".join([_CX_HEADER, *(_row(i, cx) for i, cx in enumerate(shown, 1))]))
    if len(shown) < len(new):
        parts.append(_more(len(new) - len(shown), "new counterexamples"))
    if not detail.inputs and shown:
        parts.append("_Minimized inputs left out to fit the comment; see the receipts._")
    for number, cx in enumerate(shown, 1):
        title = f"{markdown_text(cx.get('failure', ''))} in {markdown_text(cx.get('tool', ''))}"
        parts.append(f"**{number}.** {title} at {_path(cx)}")
        said = clean(evidence(cx), keep_newlines=True)
        if said and detail.inputs:
            parts.append(fence(cap(said, EVIDENCE_CAP), "text"))
        parts.append(fence(_replay(diff, cx, context.replay_from), "sh"))
        if detail.inputs:
            shown_input = sequence_block(cx) if is_sequence(cx) else None
            parts.append(shown_input or fence(json_block_text(cx.get("input")), "json"))
    return parts


def _not_run_section(diff: Mapping[str, Any]) -> list[str]:
    gone = list(iter_counterexamples(diff, "notRunOnHead"))
    if not gone:
        return []
    shown = gone[:NEW_ROWS_KEPT]
    parts = [
        f"### Not run on head ({len(gone)})",
        "_Counterexamples base found in tools head did not fuzz (refused or removed): "
        "not fixed, just no longer tested._",
        "\n".join([_CX_HEADER, *(_row(i, cx) for i, cx in enumerate(shown, 1))]),
    ]
    if len(shown) < len(gone):
        parts.append(_more(len(gone) - len(shown), "counterexamples not run on head"))
    return parts


_SINCE = {"new": "new", "skipped": "skipped (not a failure)"}
"""The `since` cell of a refusal row, by its state; `still` reads "as on base"."""


def _refused_rows(diff: Mapping[str, Any], context: ReportContext) -> list[str]:
    """One row per head refusal reason (new ones first), then per added unsupported
    keyword of a tool whose receipt records no reasons."""
    rows = []
    for item in iter_refusals(diff):
        where = refusal_location(context, item)
        cells = (
            markdown_text(item.get("tool", "")),
            markdown_text(item.get("code", "")),
            markdown_text(item.get("message", ""), 200),
            markdown_text(f"{where.file}:{where.line}"),
            _pointer(context, item, "pointer"),
            _SINCE.get(str(item.get("state")), "as on base"),
        )
        rows.append("| " + " | ".join(cells) + " |")
    reasoned = {text_of(e.get("tool")) for e in tools(diff) if refusals(e)}
    for item in iter_unsupported(diff, "added"):
        if text_of(item.get("tool")) in reasoned:
            continue
        where = unsupported_location(context, item)
        cells = (
            markdown_text(item.get("tool", "")),
            "schema.unsupported-keyword",
            markdown_text(f"keyword {text_of(item.get('keyword'))} is not supported"),
            markdown_text(f"{where.file}:{where.line}"),
            _pointer(context, item, "path"),
            "new",
        )
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _pointer(context: ReportContext, item: Mapping[str, Any], member: str) -> str:
    source = context.sources.get(text_of(item.get("tool")))
    return markdown_text((source.root if source else "") + text_of(item.get(member)) or "(root)")


def _refused_section(diff: Mapping[str, Any], context: ReportContext, detail: _Detail) -> list[str]:
    rows = _refused_rows(diff, context)
    if not rows:
        return []
    shown = rows if detail.unsupported_rows is None else rows[: detail.unsupported_rows]
    parts = [f"### Refused tools and unsupported keywords ({len(rows)})"]
    header = [
        "| tool | refused for | reason | schema file | pointer | since |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    if shown:
        parts.append("\n".join([*header, *shown]))
    if len(shown) < len(rows):
        parts.append(_more(len(rows) - len(shown), "unsupported keywords and refusal reasons"))
    return parts


def _collapsed(
    diff: Mapping[str, Any],
    context: ReportContext,
    kind: str,
    title: str,
    with_rows: bool,
    *,
    replay: bool,
) -> list[str]:
    found = list(iter_counterexamples(diff, kind))
    if not found:
        return []
    parts = [f"<details><summary>{title} ({len(found)})</summary>"]
    if with_rows:
        parts.append("\n".join([_CX_HEADER, *(_row(i, cx) for i, cx in enumerate(found, 1))]))
        if replay:
            commands = (_replay(diff, cx, context.replay_from) for cx in found)
            parts.append(fence("\n".join(commands), "sh"))
    else:
        what = f"{title.lower()} counterexamples"
        parts.append(f"_{len(found)} {what} left out to fit the comment, see the receipts._")
    parts.append("</details>")
    return parts
