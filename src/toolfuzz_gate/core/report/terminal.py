"""Short human summaries of receipts, for the terminal (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from toolfuzz_gate.core.campaign.invariants import INVARIANTS
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_ledgers import CaseCounts
from toolfuzz_gate.core.campaign.receipt_members import RecordedCounterexample
from toolfuzz_gate.core.jsonutil.canonical import canonical_compact
from toolfuzz_gate.core.jsonutil.redact import bounded_message
from toolfuzz_gate.core.report.context import evidence_line
from toolfuzz_gate.core.report.sequences import render_stateful_summary

MAX_LISTED = 10
HINT_NOTES = {
    "openWorldHint": "it may reach outside the machine; decide whether it may run in CI",
    "destructiveHint": "it may destroy data; fuzz it against a throwaway backend",
}
"""What a fuzzed tool's declared MCP hints ask of whoever runs the gate (the receipt's
`annotations`), one console note each."""


def render_refused_summary(receipt: Receipt, location: str) -> str:
    """A refused tool: each reason as the console prints a schema error (code, pointer,
    line, message), with its hint."""
    reasons = receipt.reasons
    if receipt.skipped:
        head = f"{receipt.tool}: not fuzzed, skipped (a note, not a failure) ({location}):"
    else:
        head = f"{receipt.tool}: not fuzzed, refused for {len(reasons)} reason(s) ({location}):"
    lines = [head]
    lines += ["  " + reason.render().replace("\n", "\n  ") for reason in reasons]
    return "\n".join(lines)


def _broken(invariant: str, examples: Sequence[RecordedCounterexample]) -> str:
    """A broken invariant as the receipt names it in `invariants`, with the failure classes
    its counterexamples carry in `failure` (the names the lines below use)."""
    classes = {
        failure.value for item in INVARIANTS if item.name == invariant for failure in item.failures
    }
    found = sorted({e.failure for e in examples if e.failure in classes})
    return f"{invariant} ({', '.join(found)})" if found else invariant


def render_receipt_summary(r: Receipt, location: str) -> str:
    if r.stateful is not None:
        return render_stateful_summary(r, location)
    cases = r.cases or CaseCounts()
    oracle = r.engine.oracle.name if r.engine.oracle is not None else "no"
    lines = [
        f"{r.tool}: seed {r.seed}, {cases.valid} valid + {cases.hostile} hostile"
        f" + {cases.seam} seam cases ({oracle} oracle)",
    ]
    held = [name for name, ok in r.invariants.items() if ok]
    broken = [_broken(name, r.counterexamples) for name, ok in r.invariants.items() if not ok]
    lines.append(
        f"  invariants: {len(held)}/{len(r.invariants)} hold"
        + (f"; broken: {', '.join(broken)}" if broken else "")
    )
    by_state: dict[str, list[str]] = {}
    for family, state in r.coverage.items():
        by_state.setdefault(state, []).append(family)
    tested = by_state.pop("tested", [])
    coverage = f"tested {' '.join(tested)}" if tested else "nothing tested"
    others = "; ".join(f"{len(names)} {state}" for state, names in sorted(by_state.items()))
    lines.append(f"  coverage: {coverage}" + (f" ({others})" if others else ""))
    examples = r.counterexamples
    lines.append(f"  counterexamples: {len(examples)}")
    for example in examples[:MAX_LISTED]:
        shown = canonical_compact(example.input)
        if len(shown) > 120:
            shown = shown[:119] + "…"
        flaky = ""
        if example.flaky:
            reproduced = example.reproduced or {}
            flaky = f" [flaky: failed {reproduced.get('failed')} of {reproduced.get('runs')} runs]"
        if example.state_dependent is not None:
            flaky += " [state-dependent: never failed on a handler started afresh]"
        lines.append(
            f"    {example.failure} at {example.path or '/'} ({example.mutation}){flaky}: {shown}"
        )
        said = evidence_line(example.as_json())
        if said:
            lines.append(f"      said: {bounded_message(said, 200)}")
    if len(examples) > MAX_LISTED:
        lines.append(f"    … and {len(examples) - MAX_LISTED} more in the receipt")
    notes = r.under_specified
    if notes:
        causes = ", ".join(sorted({note.cause or "?" for note in notes}))
        lines.append(
            f"  under-specified: {len(notes)} note(s), schema-valid calls refused ({causes});"
            " not counterexamples unless the policy says strict: true"
        )
    if r.breaker is not None:
        lines.append(f"  breaker: {r.breaker.note}")
    noise = r.handler_notes.stdout_noise_lines if r.handler_notes is not None else None
    if noise:
        lines.append(f"  note: the handler printed {noise} non-protocol line(s) on stdout")
    hints = r.annotations or {}
    for hint, note in HINT_NOTES.items():
        if hints.get(hint) is True:
            lines.append(f"  note: the server declares {hint}: true: {note}")
    lines.append(f"  receipt: {location} (sha256 {r.receipt_hash[:16]})")
    return "\n".join(lines)
