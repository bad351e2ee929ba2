"""How reports show a stateful campaign's counterexample: its sequence of calls, numbered,
the failing one marked, and its receipt's summary for the terminal (pure).

A sequence is untrusted (tool names, arguments and outcomes come from the server and the
receipt), so each line is plain ASCII (arguments as JSON with every other character
escaped, names cleaned) without `<`, `>` or `&`, and the Markdown form is a fenced block
(`untrusted.fence`): nothing in it can close the fence, forge the comment's marker or read
as Markdown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import StatefulRecord
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.core.report.context import evidence_line
from toolfuzz_gate.core.report.untrusted import cap, clean, fence

MAX_CALLS_SHOWN = 20
ARGUMENTS_CAP = 160
FAILS_HERE = "   (fails here)"
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def is_sequence(cx: Mapping[str, Any]) -> bool:
    return isinstance(cx.get("sequence"), list)


def sequence_lines(cx: Mapping[str, Any]) -> list[str]:
    """`1. tool {arguments} -> outcome`, one line per call, the failing call marked."""
    lines: list[str] = []
    calls = [c for c in cx.get("sequence") or [] if isinstance(c, dict)]
    for number, call in enumerate(calls[:MAX_CALLS_SHOWN], 1):
        arguments = json.dumps(call.get("arguments"), sort_keys=True)
        if len(arguments) > ARGUMENTS_CAP:
            arguments = arguments[: ARGUMENTS_CAP - 1] + "\u2026"
        outcome = call.get("outcome")
        said = outcome.get("kind", "?") if isinstance(outcome, dict) else "?"
        if isinstance(outcome, dict) and outcome.get("code"):
            said = f"{said} ({outcome['code']})"
        taken = [
            f"{link.get('member')} from call {link.get('call')}"
            for link in call.get("links") or []
            if isinstance(link, dict)
        ]
        linked = f"  [{', '.join(taken)}]" if taken else ""
        mark = FAILS_HERE if call.get("failing") is True else ""
        line = f"{number}. {_name(call.get('tool'))} {arguments} : {_name(said)}{_name(linked)}"
        lines.append(_inert(line) + mark)
    if len(calls) > MAX_CALLS_SHOWN:
        lines.append(f"... {len(calls) - MAX_CALLS_SHOWN} more calls, see the receipt")
    return lines


def sequence_block(cx: Mapping[str, Any]) -> str:
    """The sequence as a fenced block for Markdown."""
    return fence("\n".join(sequence_lines(cx)), "text")


def _name(value: object) -> str:
    return cap(clean(str(value)), 120)


def _inert(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


def render_stateful_summary(r: Receipt, location: str) -> str:
    """A stateful campaign's receipt for the terminal."""
    facts = r.stateful or StatefulRecord({}, (), 0, 0, 0, None, {})
    certain = sum(1 for link in facts.links if link.get("certain"))
    lines = [
        f"{r.tool}: seed {r.seed}, {facts.sequences} of {facts.planned}"
        f" sequences, {facts.calls} calls over {len(facts.tools)} tools"
        f" ({len(facts.links)} links, {certain} certain)"
        + (f", stopped: {facts.stop}" if facts.stop else ""),
    ]
    held = [name for name, ok in r.invariants.items() if ok]
    broken = [name for name, ok in r.invariants.items() if not ok]
    lines.append(
        f"  checks across calls: {len(held)}/{len(r.invariants)} hold"
        + (f"; broken: {', '.join(broken)}" if broken else "")
    )
    lines.append(f"  counterexamples: {len(r.counterexamples)}")
    for recorded in r.counterexamples:
        flaky = " [flaky]" if recorded.flaky else ""
        lines.append(f"    {recorded.failure} at {recorded.path}{flaky}:")
        example = recorded.as_json()
        lines += [f"      {line}" for line in sequence_lines(example)]
        said = evidence_line(example)
        if said:
            lines.append(f"      said: {bounded_message(said, 200)}")
    lines.append(f"  receipt: {location} (sha256 {r.receipt_hash[:16]})")
    return "\n".join(lines)
