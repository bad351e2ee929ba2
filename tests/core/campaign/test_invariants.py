"""`core.campaign.invariants`: each invariant over hand-built observations, reporting exactly its
own
failure class at the right path, and nothing for a clean call."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.findings import Failure, Finding, InputKind
from toolfuzz_gate.core.campaign.invariants import INVARIANTS, check_observation, invariant_ledger
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.stateful.sequence_checks import CHECKS
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSONObject

TOOL = ToolSpec(
    "renderPoster",
    expected_rejections=("policy-pixel-budget",),
    error_codes="^(schema|policy)-",
    dry_run="dryRun",
    max_output_bytes=1000,
    checks=resolve_checks(deterministic=True, strict=True),
)
ARGS: JSONObject = {"title": "t", "width": 64, "dryRun": False}


def valid_case(arguments: Any = ARGS, index: int = 3) -> Case:
    return Case(InputKind.VALID, "valid", "", arguments, index, "valid", True)


def hostile_case(path: str = "/width", arguments: Any = None) -> Case:
    arguments = {**ARGS, "width": 63} if arguments is None else arguments
    return Case(
        InputKind.HOSTILE,
        "bounds",
        path,
        arguments,
        5,
        "hostile",
        False,
        "minimum",
        "minimum:below-minimum@/width",
    )


def seam_case(valid: bool) -> Case:
    return Case(InputKind.SEAM, "seam", "/title", ARGS, 2, "seam", valid, "", "oversized-unicode")


def accepted(output_digest: str = "d1", size: int = 10, **more: Any) -> Outcome:
    return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size, **more)


def rejected(code: str | None = "schema-range", **more: Any) -> Outcome:
    return Outcome(OutcomeKind.REJECTED, error_code=code, error_path="/width", **more)


def changed() -> dict[str, Any]:
    return {"effects_before": {"n": 0}, "effects_after": {"n": 1}, "effects_observed": True}


def unchanged() -> dict[str, Any]:
    return {"effects_before": {"n": 0}, "effects_after": {"n": 0}, "effects_observed": True}


def findings(obs: Observation, tool: ToolSpec = TOOL) -> list[Finding]:
    return check_observation(obs, tool)


def failures(obs: Observation, tool: ToolSpec = TOOL) -> list[Failure]:
    return [f.failure for f in findings(obs, tool)]


def stable_valid(outcome: Outcome, arguments: Any = ARGS) -> Observation:
    """A valid call whose replay and key-reordered calls agree with it."""
    return Observation(valid_case(arguments), outcome, outcome, outcome)


def test_a_clean_call_violates_nothing() -> None:
    assert findings(stable_valid(accepted(**unchanged()))) == []
    assert findings(Observation(hostile_case(), rejected(**unchanged()))) == []
    assert findings(Observation(seam_case(False), rejected())) == []
    assert findings(Observation(seam_case(True), accepted())) == []


# --- valid-accepted -----------------------------------------------------------------------


def test_a_rejected_valid_call_is_valid_rejected() -> None:
    [found] = findings(Observation(valid_case(), rejected("schema-range")))
    assert found.failure is Failure.VALID_REJECTED
    assert (found.path, found.mutation, found.input_kind) == ("", "valid", InputKind.VALID)
    assert found.input == ARGS and found.case == 3
    assert found.error["code"] == "schema-range"
    assert found.error["outcome"] == "rejected"


def test_an_expected_rejection_of_a_valid_call_is_not_reported() -> None:
    assert findings(Observation(valid_case(), rejected("policy-pixel-budget"))) == []
    other_tool = ToolSpec("t", error_codes="^(schema|policy)-", checks=resolve_checks(strict=True))
    assert failures(Observation(valid_case(), rejected("policy-pixel-budget")), other_tool) == [
        Failure.VALID_REJECTED
    ]


def test_a_valid_call_rejected_without_a_code_is_valid_rejected() -> None:
    assert Failure.VALID_REJECTED in failures(Observation(valid_case(), rejected(None)))


# --- hostile-rejected -----------------------------------------------------------------------


def test_an_accepted_hostile_call_is_hostile_accepted_at_its_path() -> None:
    [found] = findings(Observation(hostile_case("/width"), accepted()))
    assert found.failure is Failure.HOSTILE_ACCEPTED
    assert (found.path, found.mutation, found.keyword) == ("/width", "bounds", "minimum")
    assert found.input_kind is InputKind.HOSTILE


def test_an_accepted_invalid_seam_probe_is_hostile_accepted() -> None:
    [found] = findings(Observation(seam_case(False), accepted()))
    assert found.failure is Failure.HOSTILE_ACCEPTED
    assert (found.path, found.mutation) == ("/title", "seam:oversized-unicode")


def test_accepting_a_valid_seam_probe_is_fine() -> None:
    assert Failure.HOSTILE_ACCEPTED not in failures(Observation(seam_case(True), accepted()))


# --- crash and timeout ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "failure"),
    [(OutcomeKind.CRASH, Failure.CRASH), (OutcomeKind.TIMEOUT, Failure.TIMEOUT)],
)
@pytest.mark.parametrize(
    ("case", "input_valid"),
    [
        (valid_case(), True),
        (hostile_case(), False),
        (seam_case(True), True),
        (seam_case(False), False),
    ],
    ids=["valid", "hostile", "valid-probe", "invalid-probe"],
)
def test_crash_and_timeout_record_whether_the_input_was_valid(
    kind: OutcomeKind, failure: Failure, case: Case, input_valid: bool
) -> None:
    outcome = Outcome(kind, message="boom")
    [found] = findings(Observation(case, outcome))
    assert found.failure is failure
    assert found.error["inputValid"] is input_valid
    assert found.error["outcome"] == kind.value
    assert found.input_kind is case.kind
    assert found.path == case.path


# --- no-mutation-on-rejection -------------------------------------------------------------------


@pytest.mark.parametrize("kind", [OutcomeKind.REJECTED, OutcomeKind.CRASH, OutcomeKind.TIMEOUT])
def test_a_committed_change_without_acceptance_is_mutation_on_rejection(kind: OutcomeKind) -> None:
    outcome = Outcome(kind, error_code="schema-range", **changed())
    assert Failure.MUTATION_ON_REJECTION in failures(Observation(hostile_case(), outcome))


def test_no_mutation_finding_without_a_change_or_without_observation() -> None:
    assert findings(Observation(hostile_case(), rejected(**unchanged()))) == []
    unobserved = rejected(effects_before={"n": 0}, effects_after={"n": 1}, effects_observed=False)
    assert findings(Observation(hostile_case(), unobserved)) == []
    # An accepted call may commit: that is what it is for.
    assert findings(stable_valid(accepted(**changed()))) == []


# --- dry-run-commits-nothing --------------------------------------------------------------------


def test_an_accepted_dry_run_that_commits_is_located_at_the_flag() -> None:
    arguments = {**ARGS, "dryRun": True}
    [found] = findings(stable_valid(accepted(**changed()), arguments))
    assert found.failure is Failure.DRY_RUN_MUTATION
    assert found.path == "/dryRun"


def test_the_dry_run_flag_path_is_a_json_pointer() -> None:
    tool = ToolSpec("t", dry_run="dry/run~x")
    arguments = {"dry/run~x": True}
    [found] = findings(stable_valid(accepted(**changed()), arguments), tool)
    assert found.path == "/dry~1run~0x"


@pytest.mark.parametrize(
    "arguments",
    [{**ARGS, "dryRun": False}, {"title": "t"}, {**ARGS, "dryRun": "true"}, {**ARGS, "dryRun": 1}],
    ids=["false", "absent", "string", "one"],
)
def test_only_a_true_dry_run_is_held_to_commit_nothing(arguments: Any) -> None:
    assert findings(stable_valid(accepted(**changed()), arguments)) == []


def test_a_dry_run_without_a_change_is_fine() -> None:
    assert findings(stable_valid(accepted(**unchanged()), {**ARGS, "dryRun": True})) == []


def test_a_rejected_dry_run_that_commits_is_only_mutation_on_rejection() -> None:
    case = hostile_case(arguments={**ARGS, "dryRun": True, "width": 63})
    assert failures(Observation(case, rejected(**changed()))) == [Failure.MUTATION_ON_REJECTION]


def test_no_dry_run_argument_declared_means_no_dry_run_check() -> None:
    tool = ToolSpec("t")
    assert findings(stable_valid(accepted(**changed()), {**ARGS, "dryRun": True}), tool) == []


# --- output-bounded -----------------------------------------------------------------------------


def test_output_over_the_limit_is_output_unbounded() -> None:
    [found] = findings(stable_valid(accepted(size=1001)))
    assert found.failure is Failure.OUTPUT_UNBOUNDED
    assert found.error["limit"] == 1000


def test_output_at_the_limit_is_fine() -> None:
    assert findings(stable_valid(accepted(size=1000))) == []


def test_a_capped_read_is_output_unbounded() -> None:
    assert failures(stable_valid(accepted(size=10, output_capped=True))) == [
        Failure.OUTPUT_UNBOUNDED
    ]


def test_a_large_rejection_is_not_judged_as_output() -> None:
    outcome = Outcome(OutcomeKind.REJECTED, error_code="schema-range", output_bytes=10**9)
    assert findings(Observation(hostile_case(), outcome)) == []


# --- replay-stable and key-order-invariant ------------------------------------------------------


def test_a_different_replay_is_replay_unstable_for_the_whole_call() -> None:
    obs = Observation(hostile_case("/width"), accepted("d1"), accepted("d2"), accepted("d1"))
    found = [f for f in findings(obs) if f.failure is Failure.REPLAY_UNSTABLE]
    assert len(found) == 1 and found[0].path == ""


def test_a_replay_of_another_kind_is_replay_unstable() -> None:
    obs = Observation(valid_case(), accepted("d1"), rejected(), None)
    assert failures(obs) == [Failure.REPLAY_UNSTABLE]


def test_an_idempotent_call_that_commits_again_when_replayed_is_not_idempotent() -> None:
    first = accepted("d1", **changed())
    again = accepted("d1", effects_before={"n": 1}, effects_after={"n": 2}, effects_observed=True)
    same = accepted("d1", effects_before={"n": 1}, effects_after={"n": 1}, effects_observed=True)
    idempotent = ToolSpec("t", checks=resolve_checks(annotations={"idempotentHint": True}))
    [found] = findings(Observation(valid_case(), first, again, same), idempotent)
    assert found.failure is Failure.NOT_IDEMPOTENT
    assert found.error["reason"] == "the same call a second time changed the committed state again"
    assert findings(Observation(valid_case(), first, same, same), idempotent) == []
    # Deterministic output alone does not promise it: a tool may store each call and answer
    # the same.
    deterministic = ToolSpec("t", checks=resolve_checks(deterministic=True))
    assert findings(Observation(valid_case(), first, again, same), deterministic) == []


def test_a_reordered_call_with_another_output_is_key_order_sensitive() -> None:
    obs = Observation(valid_case(), accepted("d1"), accepted("d1"), accepted("d2"))
    [found] = findings(obs)
    assert found.failure is Failure.METAMORPHIC_KEY_ORDER
    assert found.path == ""


def test_key_order_is_not_reported_when_replay_is_already_unstable() -> None:
    obs = Observation(valid_case(), accepted("d1"), accepted("d2"), accepted("d3"))
    assert failures(obs) == [Failure.REPLAY_UNSTABLE]


def test_no_replay_means_no_replay_or_key_order_finding() -> None:
    assert findings(Observation(valid_case(), accepted("d1"), None, accepted("d2"))) == []
    assert findings(Observation(valid_case(), accepted("d1"), accepted("d1"), None)) == []


# --- error-vocabulary ---------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["bad-code", "Schema-range", None, "schema-" + "x" * 200])
def test_a_code_outside_the_vocabulary_is_reported(code: str | None) -> None:
    found = [
        f
        for f in findings(Observation(hostile_case(), rejected(code)))
        if f.failure is Failure.ERROR_VOCABULARY
    ]
    assert len(found) == 1
    assert found[0].error["vocabulary"] == "^(schema|policy)-"


@pytest.mark.parametrize("code", ["schema-range", "policy-anything"])
def test_a_code_inside_the_vocabulary_is_fine(code: str) -> None:
    assert findings(Observation(hostile_case(), rejected(code))) == []


def test_without_a_vocabulary_any_code_is_fine() -> None:
    assert findings(Observation(hostile_case(), rejected("whatever")), ToolSpec("t")) == []


# --- within-limits ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", [valid_case(), hostile_case()])
def test_a_crash_at_a_limit_is_resource_exhaustion_naming_it_and_not_also_a_crash(
    case: Case,
) -> None:
    outcome = Outcome(OutcomeKind.CRASH, message="MemoryError", exhausted="memory 2048 MB")
    (found,) = findings(Observation(case, outcome))
    assert found.failure is Failure.RESOURCE_EXHAUSTION
    assert found.error["limit"] == "memory 2048 MB"
    assert found.error["inputValid"] is case.valid
    assert outcome.summary() == {"kind": "crash", "limit": "memory 2048 MB"}


def test_a_crash_without_a_limit_stays_a_crash() -> None:
    outcome = Outcome(OutcomeKind.CRASH, message="MemoryError")
    assert failures(Observation(valid_case(), outcome)) == [Failure.CRASH]


# --- oracle-agreement and the ledger -------------------------------------------------------------


def test_an_unrun_case_is_an_oracle_disagreement() -> None:
    assert failures(Observation(valid_case(), None)) == [Failure.ORACLE_DISAGREEMENT]


def test_the_ledger_names_every_invariant_and_flips_only_the_broken_one() -> None:
    names = {
        "valid-accepted",
        "hostile-rejected",
        "no-crash",
        "no-timeout",
        "no-mutation-on-rejection",
        "dry-run-commits-nothing",
        "read-only-commits-nothing",
        "output-bounded",
        "output-schema-valid",
        "replay-stable",
        "idempotent",
        "key-order-invariant",
        "error-vocabulary",
        "oracle-agreement",
        "within-limits",
        "writes-inside-root",
    }
    assert invariant_ledger(set()) == dict.fromkeys(names, True)
    covered = {failure for invariant in INVARIANTS for failure in invariant.failures}
    across_calls = {failure for _check, classes in CHECKS.values() for failure in classes}
    assert covered | across_calls == set(Failure) and not covered & across_calls
    for invariant in INVARIANTS:
        for failure in invariant.failures:
            ledger = invariant_ledger({failure})
            assert [name for name, held in ledger.items() if not held] == [invariant.name]


# --- writes-inside-root ---------------------------------------------------------------------------


def test_a_write_outside_the_root_is_a_finding_naming_the_paths_whatever_the_outcome() -> None:
    for kind in (OutcomeKind.ACCEPTED, OutcomeKind.REJECTED, OutcomeKind.CRASH):
        outcome = Outcome(kind, error_code="x", escaped_writes=("../.staging",))
        found = check_observation(Observation(valid_case(), outcome), TOOL)
        escaped = [f for f in found if f.failure is Failure.WRITE_OUTSIDE_ROOT]
        assert len(escaped) == 1
        assert escaped[0].error["written"] == ["../.staging"]
    quiet = Outcome(OutcomeKind.ACCEPTED)
    assert Failure.WRITE_OUTSIDE_ROOT not in failures(Observation(valid_case(), quiet))
