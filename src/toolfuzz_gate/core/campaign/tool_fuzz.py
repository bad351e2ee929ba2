"""Fuzz one tool for one seed: compile, run the campaign, settle its findings into confirmed
counterexamples, build the receipt.

Pure over the `Handler` seam: all I/O happens behind it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate import ENGINE_NAME, __version__
from toolfuzz_gate.core.campaign.findings import HANGS, Failure
from toolfuzz_gate.core.campaign.interface import interface_record
from toolfuzz_gate.core.campaign.invariants import invariant_ledger
from toolfuzz_gate.core.campaign.minimize import Counterexample
from toolfuzz_gate.core.campaign.observe import replay_sample
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle, build_oracle
from toolfuzz_gate.core.campaign.outcome import Handler
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_ledgers import CaseCounts, IgnoredKeyword, SchemaReading
from toolfuzz_gate.core.campaign.receipt_members import (
    CampaignRecord,
    Component,
    Contract,
    Diagnostics,
    DialectRecord,
    Engine,
    RecordedCounterexample,
    Refused,
    Replay,
    Unsupported,
)
from toolfuzz_gate.core.campaign.refusal import UNSUPPORTED_KEYWORD, Refusal
from toolfuzz_gate.core.campaign.rejection_code import recoding
from toolfuzz_gate.core.campaign.saturation import window_for
from toolfuzz_gate.core.campaign.seed_run import MUTATION_COUNTERS, Campaign, CaseSink
from toolfuzz_gate.core.campaign.settle import settle
from toolfuzz_gate.core.campaign.time_budget import SHRINK_CALLS_AFTER, Budget, budget_record
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import GENERATOR_NAME, GENERATOR_VERSION, generate
from toolfuzz_gate.core.engine.requirement import accepted_reason, value_at
from toolfuzz_gate.core.engine.satisfiable import root_problem
from toolfuzz_gate.core.engine.sizes import SOFT_REF_DEPTH
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest
from toolfuzz_gate.core.jsonutil.redact import bounded_message, present
from toolfuzz_gate.core.schema.dialects import normalize
from toolfuzz_gate.core.schema.keywords import FAMILIES
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS, Limits
from toolfuzz_gate.core.schema.node import CompiledSchema
from toolfuzz_gate.core.schema.options import DEFAULT_OPTIONS, SchemaOptions
from toolfuzz_gate.errors import SchemaError, SchemaProblem, UsageError

SEED_RANGE = (-(2**31), 2**31 - 1)
"""The seeds a run accepts: signed 32-bit integers (the action's `seed` input too)."""


@dataclass(frozen=True)
class FuzzConfig:
    seed: int
    runs: int
    limits: Limits = DEFAULT_LIMITS
    oracle: str = "auto"
    shrink_budget: int = 600
    options: SchemaOptions = DEFAULT_OPTIONS
    dialect: str | None = None
    """`core.schema.dialects` name applied to the schema before compiling (None: standard only)."""
    saturation: bool = True
    """Stop a stream of cases once it stops adding anything new (`core.campaign.saturation`)."""
    budget_s: float | None = None
    """The tool's time budget (`core.campaign.time_budget`); None: none."""

    def check(self) -> None:
        lo, hi = SEED_RANGE
        if not lo <= self.seed <= hi:
            raise UsageError(f"seed {self.seed} is not a signed 32-bit integer")
        if not self.limits.min_runs <= self.runs <= self.limits.max_runs:
            raise UsageError(
                f"runs {self.runs} is outside {self.limits.min_runs}..{self.limits.max_runs}"
            )


@dataclass(frozen=True)
class FuzzResult:
    receipt: Receipt
    counterexamples: list[Counterexample]
    counts: dict[str, int]


def fuzz(
    document: JSON,
    handler: Handler,
    tool: ToolSpec,
    config: FuzzConfig,
    *,
    handler_label: JSONObject,
    replay_command: str,
    sink: CaseSink | None = None,
    clock: Callable[[], float] | None = None,
    budget: Budget | None = None,
) -> FuzzResult:
    config.check()
    started = clock() if clock else 0.0
    document, rewrites = normalize(document, config.dialect)
    schema = compile_schema(document, limits=config.limits, options=config.options)
    if (problem := root_problem(schema.root, config.limits)) is not None:
        raise SchemaError([problem])
    oracle = build_oracle(document, config.oracle, config.options)
    handler = recoding(handler, tool.rejection_pattern, tool.answer_pattern)
    window = window_for(config.runs) if config.saturation else 0
    campaign = Campaign(
        schema, handler, oracle, tool, config.seed, config.runs, config.limits, sink, window, budget
    )
    campaign.run()
    shrink_budget = config.shrink_budget
    if campaign.budget_stop is not None:
        shrink_budget = min(shrink_budget, SHRINK_CALLS_AFTER)
    reference = (
        oracle if oracle.name == "jsonschema" else JsonschemaOracle(document, config.options)
    )
    settling = clock() if clock else 0.0
    counterexamples = settle(campaign, oracle, reference, document, shrink_budget)
    settled = clock() if clock else 0.0
    counterexamples.sort(key=lambda c: (c.finding.failure.value, c.finding.path, c.fingerprint))
    notes = [c for c in counterexamples if c.finding.failure is Failure.UNDER_SPECIFIED]
    counterexamples = [
        c for c in counterexamples if c.finding.failure is not Failure.UNDER_SPECIFIED
    ]
    record = CampaignRecord(
        schema_reading=_reading(schema),
        reach=campaign.reach.ledger(),
        saturation=campaign.saturation.record(),
        replay_sample={**replay_sample(), **campaign.replays},
        cases_digest=campaign.cases_digest(),
        boundaries=campaign.ledger.as_json() if campaign.ledger else None,
        probes=tuple(campaign.probes),
        dictionary=campaign.dictionary_use(),
    )
    receipt = Receipt(
        tool=tool.name,
        seed=config.seed,
        runs=config.runs,
        schema_digest=schema.digest,
        handler=handler_label,
        engine=Engine(
            ENGINE_NAME,
            __version__,
            Component(GENERATOR_NAME, GENERATOR_VERSION),
            Component(oracle.name, oracle.version),
            Component(reference.name, reference.version),
        ),
        limits=_limits(config, tool),
        coverage=campaign.coverage(),
        mutation_counts={f: dict[str, JSON](n) for f, n in campaign.mutation_counts.items()},
        invariants=invariant_ledger(
            {c.finding.failure for c in counterexamples}, tool.skipped_invariants()
        ),
        unsupported=(),
        counterexamples=tuple(_describe(c, config) for c in counterexamples),
        under_specified=tuple(_describe(c, config) for c in notes),
        replay_command=replay_command,
        campaign=record,
        contract=_contract(tool),
        checks=tool.checks,
        cases=CaseCounts(
            campaign.counts["valid"], campaign.counts["hostile"], campaign.counts["seam"]
        ),
        interface=interface_record(document, tool.interface, tool.annotations_json()),
        breaker=campaign.breaker_record(),
        budget=None
        if budget is None
        else budget_record(budget, campaign.budget_stop, campaign.not_run()),
        dialect=_dialect(config, rewrites),
        **_declared(tool),
    )
    diagnostics: Diagnostics | None = None
    if clock is not None:
        diagnostics = Diagnostics(
            round(clock() - started, 3),
            # shrinking, diagnosing and confirming the findings (their handler calls too)
            settle_seconds=round(settled - settling, 3),
            # They depend on the machine's load, so they stay out of the hash.
            dismissed_timeouts=campaign.dismissed_timeouts or None,
        )
    return FuzzResult(receipt.with_diagnostics(diagnostics), counterexamples, dict(campaign.counts))


def refusal(document: JSON, config: FuzzConfig) -> tuple[SchemaProblem, ...]:
    """Every problem that keeps `document` from being fuzzed (empty: none): what the
    compiler refuses (unsupported keywords, limits, contradictions, references, patterns,
    drafts), or a root that is not an object. A refused tool gets `refused_receipt`."""
    document, _ = normalize(document, config.dialect)
    try:
        schema = compile_schema(document, limits=config.limits, options=config.options)
    except SchemaError as error:
        return error.problems
    if (problem := root_problem(schema.root, config.limits)) is not None:
        return (problem,)
    return ()


def fixed_not_admitted(document: JSON, tool: ToolSpec, config: FuzzConfig) -> str | None:
    """Why the schema does not admit the tool's fixed arguments (None: it does, or the
    schema is refused anyway): a valid call with them set fails validation. Judged on the
    first valid case, at its simplest, so the fault is the fixed value's; with each of its
    fixtures' names too."""
    if not (tool.fixed or tool.fixtures) or refusal(document, config):
        return None
    document, _ = normalize(document, config.dialect)
    schema = compile_schema(document, limits=config.limits, options=config.options)
    oracle = JsonschemaOracle(document, config.options)
    value = generate(schema, config.seed, 0, config.limits)
    if not oracle.is_valid(value):
        return None
    turns = max((len(laid) for _, laid in tool.fixtures), default=1)
    for index in range(turns):
        errors = oracle.errors(tool.with_fixed(tool.with_fixtures(value, index)))
        if errors:
            shown = "; ".join(f"{keyword} at {path or '/'}" for keyword, path in errors[:3])
            what = "as fixed" if not tool.fixtures else "as fixed or as fixtures"
            return f"the schema does not admit these arguments {what}: {shown}"
    return None


def refused_receipt(
    document: JSON,
    reasons: tuple[Refusal, ...],
    tool: ToolSpec,
    config: FuzzConfig,
    *,
    handler_label: JSONObject,
    replay_command: str,
) -> Receipt:
    """The receipt of a tool not fuzzed, for the `reasons` (at least one).

    Nothing ran: no cases, no counterexamples, every family `unsupported`, and an empty
    invariant ledger (none was checked, so none is claimed to hold). `refused.reasons`
    holds each reason (code, JSON Pointer, line, message, hint); `refused.code` is the
    first one's; `unsupported` lists the unsupported keywords among them.
    """
    if not reasons:
        raise ValueError("a refused receipt needs at least one reason")
    config.check()
    normalized, rewrites = normalize(document, config.dialect)
    unsupported = sorted(
        {
            (r.pointer, r.keyword or _last_token(r.pointer))
            for r in reasons
            if r.code == UNSUPPORTED_KEYWORD
        }
    )
    return Receipt(
        tool=tool.name,
        seed=config.seed,
        runs=config.runs,
        schema_digest=digest(normalized),
        handler=handler_label,
        engine=Engine(ENGINE_NAME, __version__, Component(GENERATOR_NAME, GENERATOR_VERSION)),
        limits=_limits(config, tool),
        coverage=dict.fromkeys(FAMILIES, "unsupported"),
        mutation_counts={f: dict.fromkeys(MUTATION_COUNTERS, 0) for f in FAMILIES},
        invariants={},
        unsupported=tuple(Unsupported(keyword, path) for path, keyword in unsupported),
        counterexamples=(),
        under_specified=(),
        replay_command=replay_command,
        refused=Refused(reasons[0].code, tuple(_rendered(r) for r in reasons), reasons),
        contract=_contract(tool),
        checks=tool.checks,
        cases=CaseCounts(),
        interface=interface_record(normalized, tool.interface, tool.annotations_json()),
        dialect=_dialect(config, rewrites),
        **_declared(tool),
    )


def _dialect(config: FuzzConfig, rewrites: Sequence[JSON]) -> DialectRecord | None:
    """The dialect the schema was read in and what it rewrote (None: standard only)."""
    if config.dialect is None:
        return None
    return DialectRecord(config.dialect, tuple(rewrites))


def _rendered(reason: Refusal) -> str:
    """A reason as `SchemaProblem.render` spells a schema problem (the receipt's
    `refused.problems`, kept from before reasons were recorded)."""
    if reason.code.startswith("schema."):
        return SchemaProblem(reason.code, reason.pointer, reason.message).render()
    return f"{reason.code}: {reason.message}"


def _last_token(pointer: str) -> str:
    tokens = jp.split(pointer)
    return tokens[-1] if tokens else ""


def _reading(schema: CompiledSchema) -> SchemaReading:
    """How the schema was read: its draft, whether `format` asserted, for a recursive
    schema how many `$ref` expansions deep values go before they are built simplest, and the
    names JSON Schema does not define that were read as annotations (`ignoredKeywords`, only
    when there are some, so the receipts of other schemas keep their bytes)."""
    ignored = tuple(IgnoredKeyword(keyword, pointer) for pointer, keyword in schema.ignored)
    return SchemaReading(
        schema.draft,
        schema.options.format_assertion,
        schema.recursive,
        SOFT_REF_DEPTH if schema.recursive else None,
        ignored or None,
    )


def _describe(example: Counterexample, config: FuzzConfig) -> RecordedCounterexample:
    found, case = example.finding, example.case
    error: JSONObject = {}
    for name, value in found.error.items():
        error[name] = bounded_message(value) if isinstance(value, str) else value
    required = error.get("required")
    if found.failure is Failure.HOSTILE_ACCEPTED and isinstance(required, str):
        sent = value_at(example.minimal, found.path)
        error["reason"] = accepted_reason(found.keyword, required, found.path, sent)
    state_dependent: JSONObject | None = None
    if example.state_dependent is not None:
        state_dependent = {
            "fresh": example.state_dependent.as_json(),
            "note": "failed on the state the campaign's own calls had left; a handler "
            "started afresh never failed on this input",
        }
    return RecordedCounterexample(
        fingerprint=example.fingerprint,
        failure=found.failure.value,
        cause=found.cause,
        path=found.path,
        mutation=found.mutation,
        keyword=found.keyword,
        input_kind=found.input_kind.value,
        operator=case.label,
        input=present(example.minimal),
        original_input=present(case.input),
        sizes=tuple[JSON, ...](example.sizes),
        error=error,
        flaky=example.reproduced is not None
        and example.reproduced.flaky
        and not (example.state_dependent is not None and found.failure in HANGS),
        suggestion=example.suggestion,
        replay=Replay(config.seed, config.runs, case.stream, case.index),
        reproduced=example.reproduced.as_json() if example.reproduced is not None else None,
        state_dependent=state_dependent,
    )


def _contract(tool: ToolSpec) -> Contract:
    """The receipt's `contract`; `ignoreOutput` only when declared, so receipts of tools
    that do not declare it stay as they were."""
    return Contract(
        tuple(tool.expected_rejections),
        tool.error_codes,
        tool.dry_run,
        tuple(tool.ignore_output) if tool.ignore_output else None,
        tool.rejection_code,
        tool.rejection_answer,
    )


def _declared(tool: ToolSpec) -> dict[str, Any]:
    """What the tool declares beyond its contract, only where it declares it (so receipts of
    tools without it keep their bytes): pinned arguments, an output schema, MCP hints."""
    return {
        "fixed_arguments": tool.fixed_json() if tool.fixed else None,
        "fixtures": tool.fixtures_json() if tool.fixtures else None,
        "output_schema": None if tool.output_schema is None else tool.output_schema.as_json(),
        "annotations": tool.annotations_json() if tool.annotations else None,
    }


def _limits(config: FuzzConfig, tool: ToolSpec) -> JSONObject:
    """The engine's bounds, and the output ceiling this tool was judged under."""
    return {**config.limits.as_json(), "maxOutputBytes": tool.max_output_bytes}
