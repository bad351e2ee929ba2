"""From a finding to a counterexample: shrink it, re-judge it, explain runtime failures (pure).

Pure over the `Handler` seam: every question is a handler call through `observe`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from toolfuzz_gate.core.campaign.case import Case
from toolfuzz_gate.core.campaign.confirm import Reproduction, fails_alike
from toolfuzz_gate.core.campaign.findings import Failure, Finding, InputKind, fingerprint
from toolfuzz_gate.core.campaign.invariants import check_observation
from toolfuzz_gate.core.campaign.observe import observe
from toolfuzz_gate.core.campaign.oracle import Oracle, build_oracle, fails_exactly_at
from toolfuzz_gate.core.campaign.runtime import (
    ABSENT,
    RUNTIME_FAILURES,
    Culprit,
    Proposal,
    locate,
    propose,
    with_member,
)
from toolfuzz_gate.core.campaign.seed_run import Campaign
from toolfuzz_gate.core.campaign.shrink import shrink
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import Generator
from toolfuzz_gate.core.engine.seeds import case_seed
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.patch import apply_patch
from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW
from toolfuzz_gate.core.schema.node import CompiledSchema
from toolfuzz_gate.errors import SchemaError

TIMEOUT_SHRINK_BUDGET = 12


@dataclass(frozen=True)
class Counterexample:
    finding: Finding
    case: Case
    minimal: JSON
    sizes: list[int]
    fingerprint: str
    suggestion: JSONObject | None = None
    reproduced: Reproduction | None = None
    """How often the minimal input failed the same way (None: not a handler's failure)."""
    culprit: Culprit | None = None
    """The member at fault of a diagnosed runtime failure, and the value that passed."""
    state_dependent: Reproduction | None = None
    """For a failure that never reproduced on a handler started afresh: those fresh runs
    (`core.campaign.confirm`); it held only on the state the campaign had left."""


def minimize(
    found: Finding,
    case: Case,
    campaign: Campaign,
    oracle: Oracle,
    reference: Oracle,
    budget: int,
    pinned: Sequence[Culprit] = (),
) -> Counterexample:
    """Shrink `found`'s input. `pinned` members stay at the value that made another bug of
    the same class and cause pass, so that a sibling bug cannot shrink into that one."""
    key = fingerprint(
        campaign.tool.name, found.failure.value, found.path, found.mutation, found.cause
    )
    if found.failure is Failure.ORACLE_DISAGREEMENT:
        return Counterexample(found, case, case.input, [], key)
    original_errors = sorted(oracle.errors(case.input))
    start = held(case.input, pinned) or case.input

    def keeps(candidate: JSON) -> bool:
        if not isinstance(candidate, dict):
            return False
        if pinned and held(candidate, pinned) != candidate:
            return False
        if not campaign.tool.keeps_fixed(candidate):
            return False
        # The same validation errors, or none for a valid case: the step keeps the
        # input on the same side of the schema, failing for the same reasons.
        if sorted(oracle.errors(candidate)) != original_errors:
            return False
        return fails_alike(found, case, candidate, campaign.handler, campaign.tool) is True

    # Each step that still hangs costs a whole timeout: shrink timeouts on a short leash.
    steps = min(budget, TIMEOUT_SHRINK_BUDGET) if found.failure is Failure.TIMEOUT else budget
    hint = campaign.valid_inputs[0] if campaign.valid_inputs else None
    minimal, sizes = shrink(start, keeps, steps, hint)
    if not _reference_agrees(reference, case, minimal):
        disagreement = replace(found, failure=Failure.ORACLE_DISAGREEMENT, input=minimal)
        disagreement.error["reason"] = f"{reference.name} and {oracle.name} disagree on this input"
        return Counterexample(disagreement, case, minimal, sizes, key)
    return Counterexample(found, case, minimal, sizes, key)


def _reference_agrees(reference: Oracle, case: Case, value: JSON) -> bool:
    """Every reported input is re-judged by the `jsonschema` library itself."""
    if case.kind is InputKind.HOSTILE:
        return fails_exactly_at(reference.errors(value), *case.expected)
    return reference.is_valid(value) == case.valid


def is_runtime_failure(example: Counterexample) -> bool:
    """A crash, timeout or undeclared rejection of a schema-valid call."""
    found = example.finding
    return found.failure in RUNTIME_FAILURES and found.input_kind is InputKind.VALID


def diagnose(
    example: Counterexample, campaign: Campaign, oracle: Oracle, document: JSON
) -> Counterexample:
    """Name the member at fault, and propose (and verify) the schema change."""
    found, case = example.finding, example.case

    def probe(candidate: JSON) -> bool | None:
        """Does `candidate` fail the same way (None: invalid, or another bug in the way)?"""
        if not isinstance(candidate, dict) or not oracle.is_valid(candidate):
            return None
        if not campaign.tool.keeps_fixed(candidate):
            return None
        observed = observe(
            replace(case, input=candidate, valid=True), campaign.handler, campaign.tool.checks
        )
        causes = {
            f.cause
            for f in check_observation(observed, campaign.tool)
            if f.failure is found.failure
        }
        if found.cause in causes:
            return True
        return None if causes else False

    limits = campaign.limits
    low = Generator(case_seed(campaign.seed, "diagnose", 0), 0, LOW, limits)
    high = Generator(case_seed(campaign.seed, "diagnose", 1), 1, HIGH, limits)
    culprit = locate(example.minimal, campaign.schema.root, low, high, probe)
    if culprit is None:
        return example
    located = replace(found, path=culprit.path)
    key = fingerprint(
        campaign.tool.name, found.failure.value, culprit.path, found.mutation, found.cause
    )
    proposal = propose(document, culprit, example.minimal, probe)
    suggestion = None if proposal is None else _verify(proposal, found, campaign, document)
    return replace(
        example, finding=located, fingerprint=key, suggestion=suggestion, culprit=culprit
    )


def held(value: JSON, culprits: Sequence[Culprit]) -> JSON | None:
    """`value` with every culprit's member set to the value that made its example pass
    (None: `value` has no such place)."""
    result: JSON | None = value
    for culprit in culprits:
        result = None if result is None else _swapped(result, culprit)
    return result


def _swapped(value: JSON, culprit: Culprit) -> JSON | None:
    """`value` with the culprit's member set to its passing value (None: no such place)."""
    parent: JSON = value
    for token in culprit.tokens[:-1]:
        if isinstance(parent, dict) and isinstance(token, str) and token in parent:
            parent = parent[token]
        elif isinstance(parent, list) and isinstance(token, int) and token < len(parent):
            parent = parent[token]
        else:
            return None
    last = culprit.tokens[-1] if culprit.tokens else None
    if isinstance(parent, dict) and isinstance(last, str):
        if culprit.passing is ABSENT and last not in parent:
            return value
        return with_member(value, culprit.tokens, culprit.passing)
    if isinstance(parent, list) and isinstance(last, int) and last < len(parent):
        return (
            None
            if culprit.passing is ABSENT
            else with_member(value, culprit.tokens, culprit.passing)
        )
    return None


def _verify(proposal: Proposal, found: Finding, campaign: Campaign, document: JSON) -> JSONObject:
    """Re-run the same seed with the patch applied: is the runtime failure (of this
    cause) gone?"""
    failure = found.failure
    suggestion: JSONObject = {"patch": proposal.patch, "sentence": proposal.sentence}  # type: ignore[dict-item]
    if not proposal.changes_generation:
        suggestion["verified"] = False
        suggestion["verification"] = "documentation only: re-running cannot show a difference"
        return suggestion
    patched = apply_patch(document, proposal.patch)
    try:
        schema = compile_schema(patched, limits=campaign.limits, options=campaign.schema.options)
    except SchemaError as error:
        suggestion["verified"] = False
        suggestion["verification"] = f"the patched schema does not compile: {error.code}"
        return suggestion
    rerun = replace_campaign(
        campaign, schema, build_oracle(patched, campaign.oracle.name, campaign.schema.options)
    )
    rerun.run()
    remaining = sum(
        1
        for f, case in rerun.findings
        if (f.failure, f.cause) == (failure, found.cause) and case.kind is InputKind.VALID
    )
    suggestion["verified"] = remaining == 0
    suggestion["verification"] = (
        f"re-running seed {campaign.seed} with the patch applied: the {failure.value} is gone"
        if remaining == 0
        else f"re-running seed {campaign.seed} with the patch applied: {remaining} valid "
        f"call(s) still end in {failure.value}"
    )
    return suggestion


def replace_campaign(campaign: Campaign, schema: CompiledSchema, oracle: Oracle) -> Campaign:
    """The same run (handler, tool, seed, runs) over another schema, with no case log."""
    return Campaign(
        schema,
        campaign.handler,
        oracle,
        campaign.tool,
        campaign.seed,
        campaign.runs,
        campaign.limits,
        window=campaign.window,
    )
