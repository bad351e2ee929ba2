"""Which contract checks apply, and who declared it: the server's annotations, the
policy's `deterministic`/`strict`, its `checks` switches, or the default (off)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.receipts import typed
from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.checks import (
    ALL_CHECKS,
    CONTRACT_CHECKS,
    NO_CHECKS,
    resolve_checks,
)
from toolfuzz_gate.core.campaign.findings import Failure, InputKind
from toolfuzz_gate.core.campaign.invariants import check_observation, invariant_ledger
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec

ARGS = {"b": 1, "a": 2}


def valid(arguments: Any = ARGS) -> Case:
    return Case(InputKind.VALID, "valid", "", arguments, 0, "valid", True)


def accepted(output_digest: str) -> Outcome:
    return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=4)


def failures(obs: Observation, tool: ToolSpec) -> list[Failure]:
    return [found.failure for found in check_observation(obs, tool)]


def test_nothing_declared_means_every_contract_check_is_off_by_default() -> None:
    checks = resolve_checks()
    assert [checks.decision(name).declared_by for name in CONTRACT_CHECKS] == ["default"] * 5
    assert not any(checks.applies(name) for name in CONTRACT_CHECKS)
    assert checks.as_json() == NO_CHECKS.as_json()


@pytest.mark.parametrize("hint", ["readOnlyHint", "idempotentHint"])
def test_a_read_only_or_idempotent_server_hint_declares_the_tool_deterministic(hint: str) -> None:
    checks = resolve_checks(annotations={hint: True})
    for name in ("replay", "key_order"):
        assert checks.decision(name).as_json() == {
            "applies": True,
            "declaredBy": "server",
            "reason": f"annotations.{hint}: true",
        }
    assert not checks.applies("valid_accepted")


def test_idempotent_hint_false_declares_nothing() -> None:
    checks = resolve_checks(annotations={"idempotentHint": False, "readOnlyHint": False})
    assert not checks.applies("replay") and checks.decision("replay").declared_by == "default"


def test_the_policy_overrides_the_server_and_a_switch_overrides_both() -> None:
    checks = resolve_checks(
        annotations={"readOnlyHint": True},
        deterministic=False,
        strict=True,
        switches={"key_order": True},
    )
    assert checks.decision("replay").as_json() == {
        "applies": False,
        "declaredBy": "policy",
        "reason": "deterministic: false",
    }
    assert checks.decision("key_order").as_json() == {
        "applies": True,
        "declaredBy": "policy",
        "reason": "checks.key_order: true",
    }
    assert checks.decision("valid_accepted").reason == "strict: true"
    assert checks.applies("valid_accepted")


def test_a_differing_replay_is_a_finding_only_for_a_deterministic_tool() -> None:
    obs = Observation(valid(), accepted("d1"), accepted("d2"), accepted("d1"))
    assert failures(obs, ToolSpec("create")) == []
    deterministic = ToolSpec("peek", checks=resolve_checks(annotations={"readOnlyHint": True}))
    assert failures(obs, deterministic) == [Failure.REPLAY_UNSTABLE]


def test_key_order_can_be_switched_on_alone() -> None:
    obs = Observation(valid(), accepted("d1"), accepted("d1"), accepted("d2"))
    assert failures(obs, ToolSpec("t")) == []
    alone = ToolSpec("t", checks=resolve_checks(switches={"key_order": True}))
    assert failures(obs, alone) == [Failure.METAMORPHIC_KEY_ORDER]


def test_a_clean_rejection_of_a_valid_call_is_a_note_unless_the_schema_is_strict() -> None:
    obs = Observation(valid(), Outcome(OutcomeKind.REJECTED, error_code="not-found"))
    assert failures(obs, ToolSpec("open")) == [Failure.UNDER_SPECIFIED]
    strict = ToolSpec("open", checks=resolve_checks(strict=True))
    assert failures(obs, strict) == [Failure.VALID_REJECTED]
    expected = ToolSpec("open", expected_rejections=("not-found",))
    assert failures(obs, expected) == []


def test_a_crash_on_a_valid_call_stays_a_defect_whatever_is_declared() -> None:
    obs = Observation(valid(), Outcome(OutcomeKind.CRASH, error_code="KeyError"))
    assert failures(obs, ToolSpec("t")) == [Failure.CRASH]


def test_the_ledger_leaves_out_the_checks_that_do_not_apply() -> None:
    ledger = invariant_ledger(set(), NO_CHECKS.skipped_invariants())
    assert {"replay-stable", "key-order-invariant", "valid-accepted"}.isdisjoint(ledger)
    assert ledger["no-crash"] is True
    assert set(invariant_ledger(set(), ALL_CHECKS.skipped_invariants())) == set(
        invariant_ledger(set())
    )


def test_a_receipts_record_reads_back_and_an_old_receipt_means_every_check() -> None:
    checks = resolve_checks(annotations={"idempotentHint": True}, strict=False)
    assert typed({"checks": checks.as_json()}).checks == checks
    old = typed({}).checks_held
    assert [old.applies(name) for name in CONTRACT_CHECKS] == [True, True, True, False, False]


def test_a_read_only_hint_holds_accepted_calls_to_commit_nothing() -> None:
    wrote = Outcome(
        OutcomeKind.ACCEPTED,
        output_digest="d1",
        effects_before={"n": 1},
        effects_after={"n": 2},
        effects_observed=True,
    )
    obs = Observation(valid(), wrote)
    assert failures(obs, ToolSpec("create")) == []
    read_only = ToolSpec("peek", checks=resolve_checks(annotations={"readOnlyHint": True}))
    assert read_only.checks.decision("read_only").declared_by == "server"
    assert failures(obs, read_only) == [Failure.READ_ONLY_MUTATION]
    off = resolve_checks(annotations={"readOnlyHint": True}, switches={"read_only": False})
    assert failures(obs, ToolSpec("peek", checks=off)) == []
