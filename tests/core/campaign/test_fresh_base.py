"""`core.campaign.fresh_base` and the retry it serves in `core.campaign.seed_run`: which members
are identity-like, fresh values that stay valid, plain and new, and a near-miss built again
on a fresh base when a declared business code refused it (bounded)."""

from __future__ import annotations

from random import Random
from typing import Any

from jsonschema import Draft202012Validator

from toolfuzz_gate.core.campaign.fresh_base import (
    LETTERS_AND_DIGITS,
    FreshBases,
    fresh_string,
    identity_members,
)
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.seed_run import FUTILE_RETRIES, RETRIES, Campaign
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS

NAME = {"type": "string", "minLength": 1, "maxLength": 40}
NOTE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": NAME,
        "priority": {"type": "integer", "minimum": 1, "maximum": 3},
        "kind": {"enum": ["text", "list"]},
        "due": {"type": "string", "format": "date"},
        "owner": {
            "type": "object",
            "properties": {"login": {"type": "string", "pattern": "^[a-z]+$"}},
            "required": ["login"],
        },
        "folder": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["name", "priority", "kind", "due", "owner", "folder", "tags", "either"],
    "additionalProperties": False,
}


def bases(schema: dict[str, Any], runs: int, fixed: frozenset[str] = frozenset()) -> FreshBases:
    compiled = compile_schema(schema)
    valid = [generate(compiled, 41, index, DEFAULT_LIMITS) for index in range(runs)]
    return FreshBases(compiled.root, valid, 41, DEFAULT_LIMITS, fixed)


def test_identity_like_members_are_free_strings_of_objects() -> None:
    """Names (at any depth of objects) yes; integers, enums, formats, array items, members
    under anyOf and fixed arguments no."""
    compiled = compile_schema(NOTE)
    case0 = generate(compiled, 41, 0, DEFAULT_LIMITS)
    found = [at for at, _ in identity_members(compiled.root, case0, frozenset())]
    assert sorted(found) == ["/folder", "/name", "/owner/login"]
    fixed = [at for at, _ in identity_members(compiled.root, case0, frozenset({"/folder"}))]
    assert sorted(fixed) == ["/name", "/owner/login"]


def test_fresh_bases_are_valid_new_and_otherwise_case_0() -> None:
    fresh = bases(NOTE, 60)
    validator = Draft202012Validator(NOTE)
    case0: Any = fresh.base
    seen = {
        at: {v[at.strip("/")] for v in fresh.earlier if isinstance(v, dict)}
        for at in ("/name", "/folder")
    }
    made: list[Any] = [fresh.next() for _ in range(30)]
    for base in made:
        validator.validate(base)
        for member in ("priority", "kind", "due", "tags", "either"):
            assert base[member] == case0[member], member
        for at, earlier in seen.items():
            value = base[at.strip("/")]
            assert value not in earlier, (at, value)
            assert set(value) <= set(LETTERS_AND_DIGITS) and 1 <= len(value) <= 2
        assert base["owner"]["login"] != case0["owner"]["login"]
    for member in ("name", "folder"):
        assert len({base[member] for base in made}) == len(made)
    # seeded: the same campaign makes the same fresh bases
    again = bases(NOTE, 60)
    assert [again.next() for _ in range(30)] == made


def test_a_fresh_value_grows_when_short_ones_run_out_and_gives_up_when_none_is_left() -> None:
    compiled = compile_schema({"type": "string", "pattern": "^[ab]+$", "maxLength": 2})
    node = compiled.root
    used = {"a", "b"}
    grown = fresh_string(node, Random(1), used, DEFAULT_LIMITS)
    assert grown in {"aa", "ab", "ba", "bb"}
    assert fresh_string(node, Random(1), used | {"aa", "ab", "ba", "bb"}, DEFAULT_LIMITS) is None


def test_a_base_without_identity_like_members_has_no_fresh_base() -> None:
    fresh = bases(
        {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}, 3
    )
    assert fresh.next() is None


class Notebook:
    """Refuses a taken name before it reads the priority (a KeyError outside 1..3)."""

    def __init__(self, code: str = "already-exists") -> None:
        self.names: set[str] = set()
        self.code = code

    def call(self, arguments: JSONObject) -> Outcome:
        name, priority = arguments.get("name"), arguments.get("priority")
        if set(arguments) != {"name", "priority"} or not isinstance(name, str) or not name:
            return Outcome(OutcomeKind.REJECTED, error_code="invalid-params")
        if type(priority) is not int:
            return Outcome(OutcomeKind.REJECTED, error_code="invalid-params")
        if name in self.names:
            return Outcome(OutcomeKind.REJECTED, error_code=self.code)
        if priority not in (1, 2, 3):
            return Outcome(OutcomeKind.CRASH, message="KeyError", cause="KeyError")
        self.names.add(name)
        output_digest, size = digest_and_size(arguments)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


class NeverFound:
    """A tool that needs the thing to exist: every call is refused `not-found`."""

    def call(self, arguments: JSONObject) -> Outcome:
        return Outcome(OutcomeKind.REJECTED, error_code="not-found")


NOTEBOOK: dict[str, Any] = {
    "type": "object",
    "properties": {"name": NAME, "priority": {"type": "integer", "minimum": 1, "maximum": 3}},
    "required": ["name", "priority"],
    "additionalProperties": False,
}


def campaign(
    handler: Any, declared: tuple[str, ...], runs: int = 24
) -> tuple[Campaign, list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []
    run = Campaign(
        compile_schema(NOTEBOOK),
        handler,
        JsonschemaOracle(NOTEBOOK),
        ToolSpec("notebook", expected_rejections=declared),
        41,
        runs,
        DEFAULT_LIMITS,
        records.append,
    )
    run.run()
    return run, records


def test_a_near_miss_refused_for_its_name_is_built_again_on_a_fresh_base() -> None:
    run, records = campaign(Notebook(), ("already-exists",))
    crashes = [(f.path, case.stream) for f, case in run.findings if f.failure.value == "crash"]
    assert crashes and set(crashes) == {("/priority", "retry")}
    retried = sum(counts["retried"] for counts in run.mutation_counts.values())
    confirmed = sum(counts["confirmed"] for counts in run.mutation_counts.values())
    assert 0 < retried <= RETRIES * confirmed
    assert run.counts["hostile"] == confirmed + retried
    # The crash was met on a name no valid call used, with case 0's priority broken.
    taken = {r["input"]["name"] for r in records if r["family"] == "valid"}
    crashed = [r["input"] for r in records if r["outcome"]["kind"] == "crash"]
    assert crashed and all(value["name"] not in taken for value in crashed)


def test_undeclared_codes_are_not_retried_and_the_bug_stays_hidden() -> None:
    run, _ = campaign(Notebook(), ())
    assert all(counts["retried"] == 0 for counts in run.mutation_counts.values())
    assert not [f for f, _ in run.findings if f.failure.value == "crash"]


def test_retrying_stops_when_fresh_bases_meet_the_business_code_again() -> None:
    run, _ = campaign(NeverFound(), ("not-found",))
    assert sum(counts["retried"] for counts in run.mutation_counts.values()) == FUTILE_RETRIES


def test_every_operator_meets_two_bases_even_when_operators_outnumber_runs() -> None:
    run, records = campaign(NeverFound(), (), runs=2)
    hostile = [r for r in records if r["family"] != "valid" and r["family"] != "seam"]
    by_operator: dict[str, list[Any]] = {}
    for record in hostile:
        by_operator.setdefault(record["label"], []).append(record["input"])
    assert len(run.operators) > 1 and set(by_operator) == {op.label for op in run.operators}
    assert all(len(inputs) == 2 and inputs[0] != inputs[1] for inputs in by_operator.values())
