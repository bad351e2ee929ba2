"""Output bounds relative to the input under the tool's ceiling, and outputs compared without
the members a tool declares in `ignore_output` (`core.campaign.invariants`)."""

from __future__ import annotations

from typing import Any

import pytest

from toolfuzz_gate.core.campaign.case import Case, Observation
from toolfuzz_gate.core.campaign.checks import resolve_checks
from toolfuzz_gate.core.campaign.findings import Failure, InputKind
from toolfuzz_gate.core.campaign.invariants import (
    OUTPUT_FACTOR,
    OUTPUT_SLACK_BYTES,
    check_observation,
    output_allowance,
)
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSON, digest_and_size, json_size
from toolfuzz_gate.core.jsonutil.pointer import without_members
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES

CEILING = 1 << 20
DETERMINISTIC = resolve_checks(deterministic=True)


def observe(arguments: JSON, *outcomes: Outcome) -> Observation:
    case = Case(InputKind.VALID, "valid", "", arguments, 0, "valid", True)
    first, replay, reordered = (*outcomes, *(outcomes[-1:] * 2))[:3]
    return Observation(case, first, replay, reordered)


def accepted(size: int, digest: str = "d", capped: bool = False) -> Outcome:
    return Outcome(
        OutcomeKind.ACCEPTED, output_digest=digest, output_bytes=size, output_capped=capped
    )


def unbounded(obs: Observation, tool: ToolSpec) -> list[Any]:
    return [f.error for f in check_observation(obs, tool) if f.failure is Failure.OUTPUT_UNBOUNDED]


# --- output-bounded --------------------------------------------------------------------------


def test_the_allowance_grows_with_the_input_and_stops_at_the_ceiling() -> None:
    assert output_allowance(0, CEILING) == OUTPUT_SLACK_BYTES
    assert output_allowance(1000, CEILING) == OUTPUT_FACTOR * 1000 + OUTPUT_SLACK_BYTES
    assert output_allowance(10**7, CEILING) == CEILING


def test_an_echo_of_a_130_kb_input_is_not_unbounded() -> None:
    arguments: JSON = {"text": "a" * 130_000}
    echo = json_size(arguments)
    assert (
        unbounded(observe(arguments, accepted(echo)), ToolSpec("t", max_output_bytes=CEILING)) == []
    )


def test_past_the_allowance_under_the_ceiling_is_unbounded_and_says_why() -> None:
    arguments: JSON = {"q": ""}
    allowed = OUTPUT_FACTOR * json_size(arguments) + OUTPUT_SLACK_BYTES
    tool = ToolSpec("t", max_output_bytes=CEILING)
    assert unbounded(observe(arguments, accepted(allowed)), tool) == []
    [error] = unbounded(observe(arguments, accepted(allowed + 1)), tool)
    assert error["limit"] == allowed
    assert error["reason"] == (
        f"output exceeded {allowed} bytes ({OUTPUT_FACTOR} x the input's"
        f" {json_size(arguments)} + {OUTPUT_SLACK_BYTES})"
    )


@pytest.mark.parametrize("outcome", [accepted(CEILING + 1), accepted(10, capped=True)])
def test_past_the_ceiling_is_unbounded_whatever_the_input(outcome: Outcome) -> None:
    arguments: JSON = {"text": "a" * CEILING}
    [error] = unbounded(observe(arguments, outcome), ToolSpec("t", max_output_bytes=CEILING))
    assert error == {
        "outcome": "accepted",
        "limit": CEILING,
        "reason": f"output exceeded {CEILING} bytes",
    }


def test_the_default_ceiling_reads_an_echo_of_a_long_input_whole() -> None:
    # By default a small input may answer 64 KiB, and an echo (or a shuffle) of a 130 KB input
    # is judged by the relative bound, not cut off by the ceiling.
    tool = ToolSpec("t")
    assert tool.max_output_bytes == DEFAULT_MAX_OUTPUT_BYTES > 2 * 130_000 + OUTPUT_SLACK_BYTES
    assert unbounded(observe({}, accepted(OUTPUT_SLACK_BYTES)), tool) == []
    assert len(unbounded(observe({}, accepted(70_000)), tool)) == 1
    echo: JSON = {"items": ["a" * 1000] * 130}
    assert unbounded(observe(echo, accepted(json_size(echo) + 20)), tool) == []
    assert len(unbounded(observe(echo, accepted(100 * json_size(echo))), tool)) == 1


# --- ignore_output ---------------------------------------------------------------------------


def test_members_at_the_pointers_are_removed_and_the_rest_kept() -> None:
    output: dict[str, JSON] = {
        "id": 7,
        "meta": {"a/b": 1, "keep": 2},
        "items": [{"at": 1, "v": 3}],
        "n": None,
    }
    stripped = without_members(output, ["/id", "/meta/a~1b", "/items/0/at", "/absent/x", "/n/y"])
    assert stripped == {"meta": {"keep": 2}, "items": [{"v": 3}], "n": None}
    assert output["id"] == 7  # the original is not touched


def test_the_digest_leaves_out_ignored_members_and_the_size_keeps_them() -> None:
    first: JSON = {"id": "a1", "value": 3}
    second: JSON = {"id": "b2-longer", "value": 3}
    ignore = ("/id",)
    assert digest_and_size(first, ignore)[0] == digest_and_size(second, ignore)[0]
    assert digest_and_size(first)[0] != digest_and_size(second)[0]
    assert digest_and_size(second, ignore)[1] == json_size(second)
    assert digest_and_size({"id": 1, "value": 4}, ignore)[0] != digest_and_size(first, ignore)[0]


def comparison_failures(outputs: list[JSON], ignore: tuple[str, ...]) -> list[Failure]:
    outcomes = [
        accepted(size, digest) for digest, size in (digest_and_size(o, ignore) for o in outputs)
    ]
    tool = ToolSpec("t", ignore_output=ignore, checks=DETERMINISTIC)
    return [f.failure for f in check_observation(observe({"a": 1}, *outcomes), tool)]


def test_a_fresh_id_per_call_is_replay_unstable_unless_ignored() -> None:
    outputs: list[JSON] = [{"id": n, "value": "x"} for n in range(3)]
    assert comparison_failures(outputs, ()) == [Failure.REPLAY_UNSTABLE]
    assert comparison_failures(outputs, ("/id",)) == []


def test_ignoring_a_member_keeps_a_real_difference_elsewhere() -> None:
    outputs: list[JSON] = [{"id": 1, "v": 1}, {"id": 2, "v": 1}, {"id": 3, "v": 2}]
    assert comparison_failures(outputs, ("/id",)) == [Failure.METAMORPHIC_KEY_ORDER]
