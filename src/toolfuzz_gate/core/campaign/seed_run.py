"""Execute every case of one seed (valid, hostile, seam), keep ledgers and findings; pure
over the `Handler` seam, behind which all I/O happens."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from toolfuzz_gate.core.campaign.blame import last_answered
from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.findings import Failure, Finding, InputKind
from toolfuzz_gate.core.campaign.fresh_base import FreshBases
from toolfuzz_gate.core.campaign.hangs import SHORT_TIMEOUT_FACTOR, Hangs
from toolfuzz_gate.core.campaign.invariants import check_observation
from toolfuzz_gate.core.campaign.observe import observe, replay_due
from toolfuzz_gate.core.campaign.oracle import Oracle, fails_exactly_at
from toolfuzz_gate.core.campaign.outcome import Handler, OutcomeKind, Replaying
from toolfuzz_gate.core.campaign.reach import Reach
from toolfuzz_gate.core.campaign.receipt_ledgers import BreakerRecord, SeamProbe, StoppedAt
from toolfuzz_gate.core.campaign.saturation import Places, Saturation, case_features
from toolfuzz_gate.core.campaign.time_budget import Budget
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.generate import generate_traced, generator_for
from toolfuzz_gate.core.engine.ledger import Ledger, aims_at
from toolfuzz_gate.core.engine.mutate import Operator, apply, iter_operators
from toolfuzz_gate.core.engine.probes import iter_probes
from toolfuzz_gate.core.engine.requirement import requirement
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, ordered_compact
from toolfuzz_gate.core.schema.keywords import FAMILIES
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import CompiledSchema

CaseSink = Callable[[JSONObject], None]
MUTATION_COUNTERS = ("generated", "confirmed", "discarded", "inapplicable", "retried")

BASES_PER_OPERATOR = 2
"""Every operator's near-miss is built on at least this many valid cases."""
RETRIES = 2
"""Times a near-miss rejected with a declared business code is built again on a fresh base."""
FUTILE_RETRIES = 4
"""Retries in a row that met a business code again, after which a campaign stops retrying:
fresh names do not get this tool past its rules (one that needs the thing to exist)."""


@dataclass
class Campaign:
    """The run of one seed: every case, and every finding in the order found.

    A timeout is confirmed when it happens (`core.campaign.confirm`: replayed with a longer
    budget); one that answers then is dismissed, counted in `dismissed_timeouts` and not
    kept. `BREAKER_TIMEOUTS` timeouts of confirmed hangs trip the breaker: the campaign
    stops, and `breaker` says where.
    """

    schema: CompiledSchema
    handler: Handler
    oracle: Oracle
    tool: ToolSpec
    seed: int
    runs: int
    limits: Limits
    sink: CaseSink | None = None
    window: int = 0
    """Quiet cases in a row after which a stream stops (`core.campaign.saturation`); 0: off."""
    budget: Budget | None = None
    budget_stop: StoppedAt | None = None
    """Where the budget ran out (`core.campaign.time_budget`): the stream and its case."""
    operators: list[Operator] = field(default_factory=list)
    valid_inputs: list[JSON] = field(default_factory=list)
    findings: list[tuple[Finding, Case]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"valid": 0, "hostile": 0, "seam": 0})
    mutation_counts: dict[str, dict[str, int]] = field(
        default_factory=lambda: {f: dict.fromkeys(MUTATION_COUNTERS, 0) for f in FAMILIES}
    )
    probes: list[SeamProbe] = field(default_factory=list)
    dictionary: dict[str, int] = field(default_factory=dict)
    """How many times the valid cases drew each dictionary entry (`core.engine.dictionary`)."""
    suspects: dict[tuple[str, int], Case] = field(default_factory=dict)
    """For a call that cost the handler its process: the one answered before (`blame`)."""
    _previous: Observation | None = None  # the call before: a suspect when the next dies
    hangs: Hangs = field(default_factory=Hangs)
    """Its timeouts: which held, slow or hung, and the breaker (`core.campaign.hangs`)."""
    dismissed_timeouts: int = 0
    saturation: Saturation = field(default_factory=lambda: Saturation(0))
    replays: dict[str, int] = field(default_factory=lambda: {"replayed": 0, "reordered": 0})
    """Cases called again as they were, and key-reordered (`core.campaign.observe`)."""
    ledger: Ledger | None = None
    """The boundary edges of the schema and which valid cases hit (`core.engine.ledger`)."""
    reach: Reach = field(default_factory=Reach)
    """How far valid and hostile calls got (`core.campaign.reach`)."""
    _hostile_done: bool = False
    _fresh: FreshBases | None = None
    _futile: int = 0

    _cases_digest: hashlib._Hash = field(default_factory=hashlib.sha256)

    def run(self) -> None:
        self.operators = list(iter_operators(self.schema, self.limits))
        self.saturation = Saturation(self.window)
        self.ledger = Ledger(self.schema.root, self.limits)
        self._valid_cases()
        self._hostile_cases()
        self._seam_probes()

    @cached_property
    def _places(self) -> Places:
        return Places(self.schema.root)

    def _execute(self, case: Case) -> Observation:
        obs = observe(case, self.handler, self.tool.checks, again=replay_due(case))
        self.replays["replayed"] += obs.replay is not None
        self.replays["reordered"] += obs.reordered is not None
        if obs.outcome is not None and obs.outcome.ended and self._previous is not None:
            if (answered := last_answered(self._previous)) is not None:  # only now: it reorders
                self.suspects[(case.stream, case.index)] = answered
        self._record(obs)
        self._previous = obs
        return obs

    def _record(self, obs: Observation) -> None:
        self.counts[obs.case.kind.value] += 1
        self.reach.note(obs)
        kept = []
        for found in check_observation(obs, self.tool):
            if found.failure is Failure.TIMEOUT and self.hangs.short:
                self.hangs.short_timeouts += 1
                continue
            if found.failure is Failure.TIMEOUT and not self._timeout_holds(found, obs.case):
                continue
            self.findings.append((found, obs.case))
            kept.append(found)
        stream = obs.case.kind.value
        if obs.case.kind is not InputKind.SEAM and self.saturation.listening(stream):
            counts = obs.case.kind is InputKind.VALID or obs.case.index >= self._first_bases()
            features = case_features(obs, kept, self._places)
            self.saturation.note(stream, features, counts)
        outcome: JSONObject = obs.outcome.summary() if obs.outcome else {"kind": "not-run"}
        record = obs.case.record(outcome)
        # Cases and records are built in a fixed order, so their own key order is stable;
        # it is also what the handler saw, which the digest should reflect.
        self._cases_digest.update(ordered_compact(record).encode("ascii") + b"\n")
        if self.sink is not None:
            self.sink(record)

    @property
    def breaker(self) -> BreakerRecord | None:
        return self.hangs.breaker

    def _timeout_holds(self, found: Finding, case: Case) -> bool:
        held = self.hangs.holds(found, case, self.handler, self.tool)
        self.dismissed_timeouts += not held
        return held

    def dictionary_use(self) -> JSONObject:
        """The receipt's `dictionary`: how many strings came from it, and which entries."""
        used: list[JSON] = list(sorted(self.dictionary))
        return {"draws": sum(self.dictionary.values()), "used": used}

    def cases_digest(self) -> str:
        """sha256 over every executed case and its outcome, in order: the run's fingerprint."""
        return self._cases_digest.hexdigest()

    def _stopped(self, stream: str, index: int) -> bool:
        """Before case `index` of `stream`: has the breaker stopped it, the budget run out
        or the stream saturated?"""
        if self._out_of_time(stream, index) or self._broken(stream, index):
            self.saturation.streams[stream].ran = index
            return True
        edges_open = stream == "valid" and self.ledger is not None and self.ledger.pending()
        return self.saturation.saturated(stream, index, edges_open)

    def _broken(self, stream: str, index: int) -> bool:
        return self.hangs.stops(stream, index, self._first_bases())

    def breaker_record(self) -> BreakerRecord | None:
        """The receipt's `breaker` (`core.campaign.hangs`)."""
        return self.hangs.breaker_record(self.not_run(), self.counts["hostile"])

    def _out_of_time(self, stream: str, index: int) -> bool:
        if self.budget_stop is None and self.budget is not None and self.budget.exhausted():
            self.budget_stop = StoppedAt(stream, index)
        return self.budget_stop is not None

    def not_run(self) -> dict[str, int]:
        """Cases of each stream the budget left out (`core.campaign.time_budget`)."""
        streams = self.saturation.streams
        left: dict[str, int] = {}
        for name, planned in (("valid", self.runs), ("hostile", self.hostile_count())):
            stream = streams.get(name)
            left[name] = planned if stream is None else planned - stream.ran
        base = self.valid_inputs[0] if self.valid_inputs else None
        probes = (
            0
            if base is None
            else sum(
                1
                for probe in iter_probes(self.schema, base, self.seed, self.limits)
                if self.tool.keeps_fixed(probe.input)
            )
        )
        left["seam"] = probes - self.counts["seam"]
        return left

    def _valid_cases(self) -> None:
        self.saturation.begin("valid", self.runs)
        for index in range(self.runs):
            if self._stopped("valid", index):
                return
            assert self.ledger is not None
            aim = self.ledger.aim() if aims_at(index) else None
            drawn, used = generate_traced(self.schema, self.seed, index, self.limits, aim)
            for entry in used:
                self.dictionary[entry] = self.dictionary.get(entry, 0) + 1
            value = self.tool.with_fixed(self.tool.with_fixtures(drawn, index))
            self.valid_inputs.append(value)
            case = Case(InputKind.VALID, "valid", "", value, index, "valid", True)
            if self.oracle.is_valid(value):
                self.ledger.observe(value)
                self._execute(case)
            else:
                self._record(Observation(case, None))
            if self.saturation.listening("valid"):
                self.saturation.learn("valid", (("dictionary", entry) for entry in used))
        self.saturation.finish("valid")

    def hostile_case(self, index: int) -> tuple[Operator, JSON | None]:
        """Hostile case `index`: operators in turn, each over a valid case as base.

        The first round puts every operator on valid case 0, whose values all sit at
        their simplest end, so no other rule of the handler can mask the one broken
        keyword; later rounds spread the operators over valid cases 1, 2, ... in turn, so
        every operator meets at least `BASES_PER_OPERATOR` bases (`hostile_count`).
        """
        count, bases = len(self.operators), len(self.valid_inputs)
        operator = self.operators[index % count]
        first_round = index < count
        at = 0 if first_round or bases == 1 else 1 + (index - count) % (bases - 1)
        return operator, self._near_miss(operator, self.valid_inputs[at], index)

    def _near_miss(self, operator: Operator, base: JSON, index: int) -> JSON | None:
        maker = generator_for(self.seed, index, self.limits, "hostile")
        mutant = apply(operator, base, maker, self.schema.root)
        # A near-miss never touches a fixed argument: counted inapplicable, as the
        # operator has nothing of its own to break.
        if mutant is not None and not self.tool.keeps_fixed(mutant):
            return None
        return mutant

    def _first_bases(self) -> int:
        """Near-misses that put every operator on its first bases: always run, before the
        stream may saturate (one run has one base: a second round would only repeat)."""
        return min(BASES_PER_OPERATOR, self.runs) * len(self.operators)

    def hostile_count(self) -> int:
        return max(self.runs, self._first_bases()) if self.operators else 0

    def _hostile_cases(self) -> None:
        short = self.breaker is not None and isinstance(self.handler, Replaying)
        if short:
            assert isinstance(self.handler, Replaying)
            self.handler.scale_timeout(SHORT_TIMEOUT_FACTOR)
        self.hangs.short = short
        try:
            self._near_misses()
        finally:
            if short:
                assert isinstance(self.handler, Replaying)
                self.handler.scale_timeout(1.0)
            self.hangs.short = False

    def _near_misses(self) -> None:
        self.saturation.begin("hostile", self.hostile_count())
        for index in range(self.hostile_count()):
            if self._stopped("hostile", index):
                # Saturated, or (after the breaker) past the first bases: every operator
                # has met its first bases, which is as good as done.
                cut = self.budget_stop is not None or (
                    self.breaker is not None and index < self._first_bases()
                )
                self._hostile_done = not cut
                return
            operator, mutant = self.hostile_case(index)
            counters = self.mutation_counts[operator.family]
            counters["generated"] += 1
            if mutant is None:
                counters["inapplicable"] += 1
                continue
            if not fails_exactly_at(self.oracle.errors(mutant), *operator.expected):
                counters["discarded"] += 1
                continue
            counters["confirmed"] += 1
            observed = self._execute(_hostile(operator, mutant, index, "hostile"))
            for _ in range(RETRIES):
                if not self._business(observed) or self.breaker is not None:
                    break
                again = self._on_fresh_base(operator, index)
                if again is None:
                    break
                counters["retried"] += 1
                observed = self._execute(_hostile(operator, again, index, "retry"))
                self._futile = self._futile + 1 if self._business(observed) else 0
        self.saturation.finish("hostile")
        self._hostile_done = True

    def _business(self, observed: Observation) -> bool:
        """Was the call refused with a code the tool declares for business rules (one a
        schema-valid call may get), while retrying still seems worth it?"""
        outcome = observed.outcome
        return (
            outcome is not None
            and outcome.kind is OutcomeKind.REJECTED
            and outcome.error_code in self.tool.expected_rejections
            and self._futile < FUTILE_RETRIES
        )

    def _on_fresh_base(self, operator: Operator, index: int) -> JSON | None:
        """The same near-miss on a fresh base (`core.campaign.fresh_base`), made on the
        first retry; None when there is no fresh base or the near-miss breaks elsewhere."""
        if self._fresh is None:
            fixed = frozenset(pointer for pointer, _ in self.tool.fixed)
            self._fresh = FreshBases(
                self.schema.root,
                self.valid_inputs,
                self.seed,
                self.limits,
                fixed,
            )
        base = self._fresh.next()
        if base is None:
            self._futile = FUTILE_RETRIES  # case 0 has nothing to rename: never again
            return None
        mutant = self._near_miss(operator, base, index)
        if mutant is None or not fails_exactly_at(self.oracle.errors(mutant), *operator.expected):
            return None
        return mutant

    def _seam_probes(self) -> None:
        if not self.valid_inputs:  # the budget ran out before the first valid case
            return
        base = self.valid_inputs[0]
        for index, probe in enumerate(iter_probes(self.schema, base, self.seed, self.limits)):
            if self.breaker is not None or self._out_of_time("seam", index):
                return
            if not self.tool.keeps_fixed(probe.input):
                continue
            valid = self.oracle.is_valid(probe.input)
            case = Case(
                InputKind.SEAM,
                "seam",
                probe.path,
                probe.input,
                index,
                "seam",
                valid,
                "",
                probe.name,
            )
            obs = self._execute(case)
            assert obs.outcome is not None
            self.probes.append(SeamProbe(probe.name, probe.path, valid, obs.outcome.summary()))

    def coverage(self) -> dict[str, str]:
        """Per family: `tested`, `not-applicable`, or `untested` when the breaker stopped
        the campaign before the family's near-misses ran."""
        cut_short = {op.family for op in self.operators} if not self._hostile_done else set()

        def state(family: str, confirmed: int) -> str:
            if confirmed:
                return "tested"
            return "untested" if family in cut_short else "not-applicable"

        return {
            family: state(family, counters["confirmed"])
            for family, counters in self.mutation_counts.items()
        }


def _hostile(operator: Operator, mutant: JSON, index: int, stream: str) -> Case:
    return Case(
        InputKind.HOSTILE,
        operator.family,
        operator.path,
        mutant,
        index,
        stream,
        False,
        operator.keyword,
        operator.label,
        operator.site,
        requirement(operator.keyword, operator.recipe.variant, operator.node),
    )
