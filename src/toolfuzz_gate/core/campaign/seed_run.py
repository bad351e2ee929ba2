"""Execute every case of one seed: valid, hostile, seam; keep ledgers and findings.

Pure over the `Handler` seam: all I/O happens behind it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.confirm import FOUND_ONCE, Reproduction, replay
from toolfuzz_gate.core.campaign.findings import Failure, Finding, InputKind
from toolfuzz_gate.core.campaign.invariants import check_observation
from toolfuzz_gate.core.campaign.observe import observe
from toolfuzz_gate.core.campaign.oracle import Oracle, fails_exactly_at
from toolfuzz_gate.core.campaign.outcome import Handler
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.generate import generate_traced, generator_for
from toolfuzz_gate.core.engine.mutate import Operator, apply, iter_operators
from toolfuzz_gate.core.engine.probes import iter_probes
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, ordered_compact
from toolfuzz_gate.core.schema.keywords import FAMILIES
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import CompiledSchema

CaseSink = Callable[[JSONObject], None]
MUTATION_COUNTERS = ("generated", "confirmed", "discarded", "inapplicable")


BREAKER_TIMEOUTS = 3
"""Timeouts of confirmed hangs after which a campaign stops: a tool that keeps hanging
would otherwise cost a timeout (or more) on every case."""


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
    operators: list[Operator] = field(default_factory=list)
    valid_inputs: list[JSON] = field(default_factory=list)
    findings: list[tuple[Finding, Case]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"valid": 0, "hostile": 0, "seam": 0})
    mutation_counts: dict[str, dict[str, int]] = field(
        default_factory=lambda: {f: dict.fromkeys(MUTATION_COUNTERS, 0) for f in FAMILIES}
    )
    probes: list[JSONObject] = field(default_factory=list)
    dictionary: dict[str, int] = field(default_factory=dict)
    """How many times the valid cases drew each dictionary entry (`core.engine.dictionary`)."""
    timeouts: dict[tuple[str, int], Reproduction] = field(default_factory=dict)
    """The confirmation of the first timeout of each kind, by its case's (stream, index)."""
    dismissed_timeouts: int = 0
    breaker: JSONObject | None = None
    _hostile_done: bool = False
    _hangs: set[tuple[str, str]] = field(default_factory=set)
    _timed_out: int = 0
    _cases_digest: hashlib._Hash = field(default_factory=hashlib.sha256)

    def run(self) -> None:
        self.operators = list(iter_operators(self.schema, self.limits))
        self._valid_cases()
        self._hostile_cases()
        self._seam_probes()

    def _execute(self, case: Case) -> Observation:
        obs = observe(case, self.handler, self.tool.checks)
        self._record(obs)
        return obs

    def _record(self, obs: Observation) -> None:
        self.counts[obs.case.kind.value] += 1
        for found in check_observation(obs, self.tool):
            if found.failure is Failure.TIMEOUT and not self._timeout_holds(found, obs.case):
                continue
            self.findings.append((found, obs.case))
        outcome: JSONObject = obs.outcome.summary() if obs.outcome else {"kind": "not-run"}
        record = obs.case.record(outcome)
        # Cases and records are built in a fixed order, so their own key order is stable;
        # it is also what the handler saw, which the digest should reflect.
        self._cases_digest.update(ordered_compact(record).encode("ascii") + b"\n")
        if self.sink is not None:
            self.sink(record)

    def _timeout_holds(self, found: Finding, case: Case) -> bool:
        """Replay a timeout with the longer budget; trip the breaker on the last straw.

        Only the first timeout of each kind (class, path, mutation family) is replayed:
        the next ones of a kind already confirmed are the same hang, reported once, and
        each replay costs several timeouts.
        """
        kind = (found.path, found.mutation)
        if kind not in self._hangs:
            evidence = FOUND_ONCE + replay(found, case, case.input, self.handler, self.tool, 1)
            if evidence.dismissed:
                self.dismissed_timeouts += 1
                return False
            self._hangs.add(kind)
            self.timeouts[(case.stream, case.index)] = evidence
        self._timed_out += 1
        if self._timed_out >= BREAKER_TIMEOUTS and self.breaker is None:
            self.breaker = {
                "failure": Failure.TIMEOUT.value,
                "after": self._timed_out,
                "stream": case.stream,
                "case": case.index,
                "note": f"stopped after {self._timed_out} timeouts of confirmed hangs; "
                "the remaining cases were not run",
            }
        return True

    def dictionary_use(self) -> JSONObject:
        """The receipt's `dictionary`: how many strings came from it, and which entries."""
        used: list[JSON] = [entry for entry in sorted(self.dictionary)]
        return {"draws": sum(self.dictionary.values()), "used": used}

    def cases_digest(self) -> str:
        """sha256 over every executed case and its outcome, in order: the run's fingerprint."""
        return self._cases_digest.hexdigest()

    def _valid_cases(self) -> None:
        for index in range(self.runs):
            if self.breaker is not None:
                return
            drawn, used = generate_traced(self.schema, self.seed, index, self.limits)
            for entry in used:
                self.dictionary[entry] = self.dictionary.get(entry, 0) + 1
            value = self.tool.with_fixed(drawn)
            self.valid_inputs.append(value)
            case = Case(InputKind.VALID, "valid", "", value, index, "valid", True)
            if self.oracle.is_valid(value):
                self._execute(case)
            else:
                self._record(Observation(case, None))

    def hostile_case(self, index: int) -> tuple[Operator, JSON | None]:
        """Hostile case `index`: operators in turn, each over a valid case as base.

        The first round puts every operator on valid case 0, whose values all sit at
        their simplest end, so no other rule of the handler can mask the one broken
        keyword; later rounds spread the operators over the other valid cases.
        """
        operator = self.operators[index % len(self.operators)]
        first_round = index < len(self.operators)
        base = self.valid_inputs[0 if first_round else index % len(self.valid_inputs)]
        maker = generator_for(self.seed, index, self.limits, "hostile")
        mutant = apply(operator, base, maker, self.schema.root)
        # A near-miss never touches a fixed argument: counted inapplicable, as the
        # operator has nothing of its own to break.
        if mutant is not None and not self.tool.keeps_fixed(mutant):
            return operator, None
        return operator, mutant

    def hostile_count(self) -> int:
        return max(self.runs, len(self.operators)) if self.operators else 0

    def _hostile_cases(self) -> None:
        for index in range(self.hostile_count()):
            if self.breaker is not None:
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
            self._execute(
                Case(
                    InputKind.HOSTILE,
                    operator.family,
                    operator.path,
                    mutant,
                    index,
                    "hostile",
                    False,
                    operator.keyword,
                    operator.label,
                    operator.site,
                )
            )
        self._hostile_done = True

    def _seam_probes(self) -> None:
        base = self.valid_inputs[0]
        for index, probe in enumerate(iter_probes(self.schema, base, self.seed, self.limits)):
            if self.breaker is not None:
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
            self.probes.append(
                {
                    "name": probe.name,
                    "path": probe.path,
                    "valid": valid,
                    "outcome": obs.outcome.summary(),
                }
            )

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
