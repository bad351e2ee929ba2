"""The registry of invariants: each checks one observation and yields findings (pure).

Every invariant's name appears in the receipt's `invariants` map, true when no
case violated it. Checks never raise for a handler's misbehaviour: a violation
is a `Finding` value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace

from toolfuzz_gate.core.campaign.case import Observation
from toolfuzz_gate.core.campaign.cause import cause_of
from toolfuzz_gate.core.campaign.findings import Failure, Finding
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.requirement import accepted_reason, value_at
from toolfuzz_gate.core.jsonutil import pointer
from toolfuzz_gate.core.jsonutil.canonical import json_size
from toolfuzz_gate.core.jsonutil.redact import bounded_message

ANSWER_CHARS = 200
"""Characters of an accepted near-miss's answer its finding keeps (what it was answered)."""
Check = Callable[[Observation, ToolSpec], Iterator[Finding]]


@dataclass(frozen=True)
class Invariant:
    name: str
    failures: tuple[Failure, ...]
    check: Check


def finding(
    obs: Observation, failure: Failure, error: Mapping[str, object] | None = None
) -> Finding:
    case = obs.case
    details: dict[str, object] = {}
    if obs.outcome is not None:
        details["outcome"] = obs.outcome.kind.value
        if obs.outcome.error_code is not None:
            details["code"] = obs.outcome.error_code
        if obs.outcome.message:
            details["message"] = obs.outcome.message
    details.update(error or {})
    whole_call = failure in (Failure.REPLAY_UNSTABLE, Failure.METAMORPHIC_KEY_ORDER)
    cause = cause_of(obs.outcome, case.input) if obs.outcome is not None else ""
    return Finding(
        failure=failure,
        path="" if whole_call else case.path,
        mutation=case.mutation,
        input_kind=case.kind,
        input=case.input,
        keyword=case.keyword,
        case=case.index,
        error=details,  # type: ignore[arg-type]
        cause=cause,
    )


def _valid_accepted(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is None or not obs.case.valid or out.kind is not OutcomeKind.REJECTED:
        return
    if out.error_code in tool.expected_rejections:
        return
    if tool.checks.applies("valid_accepted"):
        yield finding(
            obs,
            Failure.VALID_REJECTED,
            {"reason": "a schema-valid call was rejected with a code not declared as expected"},
        )
    else:
        # The schema is not declared complete: the tool refused a call for a rule the
        # schema does not say, which is a note on the schema, not a defect of the tool.
        yield finding(
            obs,
            Failure.UNDER_SPECIFIED,
            {"reason": "the schema admits a call the tool refuses"},
        )


def _hostile_rejected(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is not None and not obs.case.valid and out.kind is OutcomeKind.ACCEPTED:
        case = obs.case
        sent = value_at(case.input, case.path)
        error: dict[str, object] = {
            "reason": accepted_reason(case.keyword, case.requires, case.path, sent)
        }
        if case.requires:
            error["required"] = case.requires
        if out.said:
            error["answer"] = bounded_message(out.said, ANSWER_CHARS)
        yield finding(obs, Failure.HOSTILE_ACCEPTED, error)


def _kind_is_not(kind: OutcomeKind, failure: Failure) -> Check:
    def check(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
        # A crash at a resource limit is reported once, as resource-exhaustion.
        if obs.outcome is not None and obs.outcome.kind is kind and not obs.outcome.exhausted:
            what = "schema-valid" if obs.case.valid else "schema-invalid"
            yield finding(
                obs,
                failure,
                {"inputValid": obs.case.valid, "reason": f"{failure.value} on a {what} call"},
            )

    return check


_crashed = _kind_is_not(OutcomeKind.CRASH, Failure.CRASH)


def _no_crash(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    """A crash; an internal error the handler answered and lived through is told apart
    (`internal-error`): an exception it did not handle, not a dead process."""
    for found in _crashed(obs, tool):
        if obs.outcome is not None and obs.outcome.internal:
            what = "schema-valid" if obs.case.valid else "schema-invalid"
            reason = f"an internal error on a {what} call; the handler lived"
            yield replace(
                found, failure=Failure.INTERNAL_ERROR, error={**found.error, "reason": reason}
            )
        else:
            yield found


def _no_mutation_on_rejection(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is not None and out.kind is not OutcomeKind.ACCEPTED and out.committed_change:
        yield finding(
            obs,
            Failure.MUTATION_ON_REJECTION,
            {"reason": f"committed state changed although the call ended as {out.kind.value}"},
        )


def _dry_run_commits_nothing(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    # A rejected dry run that commits is already a mutation-on-rejection; this one is
    # about dry runs the handler accepted, and it is located at the dry-run flag.
    out, arguments = obs.outcome, obs.case.input
    if out is None or tool.dry_run is None or not isinstance(arguments, dict):
        return
    if out.kind is not OutcomeKind.ACCEPTED or arguments.get(tool.dry_run) is not True:
        return
    if out.committed_change:
        flag = pointer.join("", tool.dry_run)
        reason = {"reason": f"a dry run ({flag} true) changed committed state"}
        yield replace(finding(obs, Failure.DRY_RUN_MUTATION, reason), path=flag)


def _read_only_commits_nothing(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    # A rejected call that commits is already a mutation-on-rejection; this one is about
    # accepted calls of a tool that promised to read only.
    out = obs.outcome
    if out is None or not tool.checks.applies("read_only"):
        return
    if out.kind is OutcomeKind.ACCEPTED and out.committed_change:
        reason = {"reason": "a tool declared read-only changed committed state"}
        yield finding(obs, Failure.READ_ONLY_MUTATION, reason)


OUTPUT_FACTOR = 2
"""An output may be this many times its input's size: an echo, whose JSON encoding can grow
by escaping and by the object that wraps it, stays under twice the input."""
OUTPUT_SLACK_BYTES = 65536
"""And this many bytes more, whatever the input: the fixed cap the check had before it was
relative, so no output it let pass fails now under the same ceiling."""


def output_allowance(input_bytes: int, ceiling: int) -> int:
    """The most output bytes a call with an input of `input_bytes` may return before its
    output is unbounded: relative to the input, never past the tool's ceiling."""
    return min(ceiling, OUTPUT_FACTOR * input_bytes + OUTPUT_SLACK_BYTES)


def _output_bounded(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is None or out.kind is not OutcomeKind.ACCEPTED:
        return
    ceiling = tool.max_output_bytes
    if out.output_capped or out.output_bytes > ceiling:
        reason = f"output exceeded {ceiling} bytes"  # the tool's ceiling
        yield finding(obs, Failure.OUTPUT_UNBOUNDED, {"limit": ceiling, "reason": reason})
    elif out.output_bytes > OUTPUT_SLACK_BYTES:  # only then can the input's size matter
        input_bytes = json_size(obs.case.input)
        allowed = output_allowance(input_bytes, ceiling)
        if out.output_bytes > allowed:
            reason = (
                f"output exceeded {allowed} bytes ({OUTPUT_FACTOR} x the input's"
                f" {input_bytes} + {OUTPUT_SLACK_BYTES})"
            )
            yield finding(obs, Failure.OUTPUT_UNBOUNDED, {"limit": allowed, "reason": reason})


def _output_schema_kept(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out, declared = obs.outcome, tool.output_schema
    if out is None or declared is None or out.kind is not OutcomeKind.ACCEPTED:
        return
    cause = declared.violation(out.structured, out.has_structured)
    if cause is not None:
        error = {
            "inputValid": obs.case.valid,
            "reason": f"the structuredContent breaks the declared outputSchema: {cause}",
        }
        yield replace(finding(obs, Failure.OUTPUT_SCHEMA_VIOLATION, error), cause=cause)


def _same(a: Outcome, b: Outcome) -> bool:
    return a.kind is b.kind and a.output_digest == b.output_digest


def _committed_again(first: Outcome, replay: Outcome) -> bool:
    """Did the replay leave another committed state than the first call left?"""
    observed = first.effects_observed and replay.effects_observed
    return observed and first.effects_after != replay.effects_after


def _replay_stable(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    if not tool.checks.applies("replay"):
        return
    if obs.outcome is not None and obs.replay is not None and not _same(obs.outcome, obs.replay):
        yield finding(
            obs, Failure.REPLAY_UNSTABLE, {"reason": "the same input twice gave different outputs"}
        )


def _idempotent(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    # Whatever the first call committed, the same call again commits nothing more.
    out, replay = obs.outcome, obs.replay
    if out is None or replay is None or not tool.checks.applies("idempotent"):
        return
    if out.kind is OutcomeKind.ACCEPTED and _committed_again(out, replay):
        reason = "the same call a second time changed the committed state again"
        yield finding(obs, Failure.NOT_IDEMPOTENT, {"reason": reason})


def _key_order_invariant(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    # Only meaningful when the plain replay agreed: a nondeterministic handler is
    # reported once, as replay-unstable, not again as key-order sensitive.
    out, replay, reordered = obs.outcome, obs.replay, obs.reordered
    if not tool.checks.applies("key_order"):
        return
    if out is None or replay is None or reordered is None or not _same(out, replay):
        return
    if not _same(out, reordered):
        yield finding(
            obs,
            Failure.METAMORPHIC_KEY_ORDER,
            {"reason": "reordering the input's object keys changed the output"},
        )


def _error_vocabulary(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is not None and out.kind is OutcomeKind.REJECTED:
        if not tool.code_in_vocabulary(out.error_code):
            yield finding(
                obs,
                Failure.ERROR_VOCABULARY,
                {
                    "vocabulary": tool.error_codes,
                    "reason": "the rejection code is outside the declared vocabulary",
                },
            )


def _within_limits(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is not None and out.exhausted:
        what = "schema-valid" if obs.case.valid else "schema-invalid"
        yield finding(
            obs,
            Failure.RESOURCE_EXHAUSTION,
            {
                "limit": out.exhausted,
                "inputValid": obs.case.valid,
                "reason": f"a {what} call ran into the handler's {out.exhausted} limit",
            },
        )


def _writes_inside_root(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    out = obs.outcome
    if out is None or not out.escaped_writes:
        return
    paths = list(out.escaped_writes)
    shown = ", ".join(paths[:MAX_PATHS_SHOWN])
    more = f" and {len(paths) - MAX_PATHS_SHOWN} more" if len(paths) > MAX_PATHS_SHOWN else ""
    yield finding(
        obs,
        Failure.WRITE_OUTSIDE_ROOT,
        {
            "written": paths[:MAX_PATHS_SHOWN],
            "reason": f"wrote outside its allowed root ({out.kind.value}): {shown}{more}",
        },
    )


MAX_PATHS_SHOWN = 8
"""Paths outside the root one finding names (its reason says how many more there were)."""


def _oracle_agreement(obs: Observation, tool: ToolSpec) -> Iterator[Finding]:
    if obs.outcome is None:
        yield finding(
            obs,
            Failure.ORACLE_DISAGREEMENT,
            {"reason": "the independent validator rejected a value generated as valid"},
        )


INVARIANTS: tuple[Invariant, ...] = (
    Invariant("valid-accepted", (Failure.VALID_REJECTED, Failure.UNDER_SPECIFIED), _valid_accepted),
    Invariant("hostile-rejected", (Failure.HOSTILE_ACCEPTED,), _hostile_rejected),
    Invariant("no-crash", (Failure.CRASH, Failure.INTERNAL_ERROR), _no_crash),
    Invariant(
        "no-timeout",
        (Failure.TIMEOUT, Failure.SLOW, Failure.HUNG),
        _kind_is_not(OutcomeKind.TIMEOUT, Failure.TIMEOUT),
    ),
    Invariant(
        "no-mutation-on-rejection", (Failure.MUTATION_ON_REJECTION,), _no_mutation_on_rejection
    ),
    Invariant("dry-run-commits-nothing", (Failure.DRY_RUN_MUTATION,), _dry_run_commits_nothing),
    Invariant(
        "read-only-commits-nothing", (Failure.READ_ONLY_MUTATION,), _read_only_commits_nothing
    ),
    Invariant("output-bounded", (Failure.OUTPUT_UNBOUNDED,), _output_bounded),
    Invariant("output-schema-valid", (Failure.OUTPUT_SCHEMA_VIOLATION,), _output_schema_kept),
    Invariant("replay-stable", (Failure.REPLAY_UNSTABLE,), _replay_stable),
    Invariant("idempotent", (Failure.NOT_IDEMPOTENT,), _idempotent),
    Invariant("key-order-invariant", (Failure.METAMORPHIC_KEY_ORDER,), _key_order_invariant),
    Invariant("error-vocabulary", (Failure.ERROR_VOCABULARY,), _error_vocabulary),
    Invariant("oracle-agreement", (Failure.ORACLE_DISAGREEMENT,), _oracle_agreement),
    Invariant("within-limits", (Failure.RESOURCE_EXHAUSTION,), _within_limits),
    Invariant("writes-inside-root", (Failure.WRITE_OUTSIDE_ROOT,), _writes_inside_root),
)


def check_observation(obs: Observation, tool: ToolSpec) -> list[Finding]:
    return [found for invariant in INVARIANTS for found in invariant.check(obs, tool)]


def invariant_ledger(
    failures: set[Failure], skipped: frozenset[str] = frozenset()
) -> dict[str, bool]:
    """Invariant name -> held (no finding of its failure classes), for every invariant
    but the `skipped` ones (contract checks the tool did not declare: nothing is claimed
    about them)."""
    return {
        inv.name: not any(f in failures for f in inv.failures)
        for inv in INVARIANTS
        if inv.name not in skipped
    }
