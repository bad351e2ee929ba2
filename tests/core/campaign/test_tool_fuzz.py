"""`core.campaign.tool_fuzz`: the whole engine over the in-process built-in handler and tiny
in-process
handlers. Every reported input is re-judged here with the `jsonschema` library."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.documents import doc
from tests.profiles import examples
from tests.strategies import subset_schemas
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.minimize import Counterexample
from toolfuzz_gate.core.campaign.oracle import JsonschemaOracle
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.run_defaults import BUILTIN_RUNS as DEFAULT_RUN_RUNS
from toolfuzz_gate.core.campaign.seed_run import BASES_PER_OPERATOR, Campaign
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, FuzzResult, fuzz
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.engine.mutate import iter_operators
from toolfuzz_gate.core.engine.probes import iter_probes
from toolfuzz_gate.core.jsonutil.canonical import (
    JSONObject,
    canonical_compact,
    digest_and_size,
    json_size,
)
from toolfuzz_gate.core.jsonutil.redact import present
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.edges.handlers.builtin import BuiltinPosterHandler

FAMILIES = ("type", "enum", "bounds", "length", "array-size", "required", "additionalProperties")
"""The mutation families the poster schema reaches; the ledger marks the rest not applicable."""
POSTER_TOOL = ToolSpec(
    poster.TOOL_NAME,
    expected_rejections=poster.EXPECTED_REJECTIONS,
    error_codes=poster.ERROR_CODES,
    dry_run=poster.DRY_RUN,
)


class AcceptAll:
    """A handler with no validation at all: whatever arrives is accepted."""

    def __init__(self) -> None:
        self.calls = 0

    def call(self, arguments: JSONObject) -> Outcome:
        self.calls += 1
        output_digest, size = digest_and_size(arguments)
        return Outcome(OutcomeKind.ACCEPTED, output_digest=output_digest, output_bytes=size)


class CrashOnNonAsciiTitle(BuiltinPosterHandler):
    def call(self, arguments: JSONObject) -> Outcome:
        title = arguments.get("title")
        if isinstance(title, str) and not title.isascii():
            return Outcome(OutcomeKind.CRASH, message="UnicodeEncodeError")
        return super().call(arguments)


class CommitsOnDryRun(BuiltinPosterHandler):
    """Validates correctly, but a dry run still commits."""

    def call(self, arguments: JSONObject) -> Outcome:
        outcome = super().call(arguments)
        if outcome.kind is OutcomeKind.ACCEPTED and arguments.get("dryRun") is True:
            return outcome._replace(effects_after={"committed": -1})
        return outcome


def run_fuzz(
    handler: Any,
    *,
    seed: int = 41,
    runs: int = DEFAULT_RUN_RUNS,
    document: Any = poster.SCHEMA,
    tool: ToolSpec = POSTER_TOOL,
    oracle: str = "auto",
) -> FuzzResult:
    return fuzz(
        document,
        handler,
        tool,
        FuzzConfig(seed, runs, oracle=oracle),
        handler_label={"spec": type(handler).__name__},
        replay_command="toolfuzz-gate run",
    )


def _pointer(parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _sites(validator: Draft202012Validator, instance: Any) -> list[tuple[str, str]]:
    return [(str(e.validator), _pointer(e.absolute_path)) for e in validator.iter_errors(instance)]


def _check_reported_input(reference: Draft202012Validator, example: Counterexample) -> None:
    """The minimized input stays on the same side of the schema, for the same reason."""
    found, case = example.finding, example.case
    sites = _sites(reference, example.minimal)
    if case.valid:
        assert sites == [], (found.failure, example.minimal, sites)
        return
    assert sites, f"{found.failure} at {found.path!r}: minimized input became valid"
    if found.input_kind.value == "hostile":
        assert (found.keyword, found.path) in sites, (example.minimal, sites)
        assert {at for _, at in sites} == {found.path}, (example.minimal, sites)


def _check_sizes(example: Counterexample) -> None:
    sizes = example.sizes
    assert sizes == sorted(sizes, reverse=True), sizes
    assert sizes[0] == json_size(example.case.input)
    assert sizes[-1] == json_size(example.minimal)


# --- the built-in handler is correct ---------------------------------------------------


@pytest.mark.parametrize("seeds", [range(1, 26), range(26, 51)], ids=["1-25", "26-50"])
def test_correct_builtin_handler_has_no_counterexamples(seeds: range) -> None:
    for seed in seeds:
        result = run_fuzz(BuiltinPosterHandler(), seed=seed)
        failures = [
            (c["failure"], c["path"], c["input"]) for c in doc(result.receipt)["counterexamples"]
        ]
        assert failures == [], f"seed {seed}: {failures}"
        assert all(doc(result.receipt)["invariants"].values()), (
            seed,
            doc(result.receipt)["invariants"],
        )
        coverage = doc(result.receipt)["coverage"]
        assert {family for family, state in coverage.items() if state == "tested"} == set(
            FAMILIES
        ), seed
        assert set(coverage.values()) == {"tested", "not-applicable"}, seed


def test_builtin_run_with_the_reference_oracle_agrees() -> None:
    result = run_fuzz(BuiltinPosterHandler(), oracle="jsonschema")
    assert doc(result.receipt)["counterexamples"] == []
    assert doc(result.receipt)["engine"]["oracle"]["name"] == "jsonschema"


def test_builtin_run_counts_every_case() -> None:
    result = run_fuzz(BuiltinPosterHandler(), seed=41)
    operators = list(iter_operators(compile_schema(poster.SCHEMA), DEFAULT_LIMITS))
    cases = doc(result.receipt)["cases"]
    assert cases["valid"] == DEFAULT_RUN_RUNS
    # Every operator on at least two bases; the poster checks its arguments before its
    # business rules, so no near-miss meets a business code and none is retried.
    assert cases["hostile"] == max(DEFAULT_RUN_RUNS, BASES_PER_OPERATOR * len(operators))
    assert cases["seam"] == len(doc(result.receipt)["probes"]) > 0
    ledger = doc(result.receipt)["mutationCounts"]
    for family, counters in ledger.items():
        assert counters["generated"] == (
            counters["confirmed"] + counters["discarded"] + counters["inapplicable"]
        ), family
        assert counters["retried"] == 0, family
    assert cases["hostile"] == sum(c["confirmed"] + c["retried"] for c in ledger.values())


# --- an always-accepting handler on the poster ------------------------------------------


@pytest.fixture(scope="module")
def lax_poster() -> FuzzResult:
    return run_fuzz(AcceptAll(), seed=41)


def test_lax_handler_gets_hostile_accepted_in_every_family(lax_poster: FuzzResult) -> None:
    examples = doc(lax_poster.receipt)["counterexamples"]
    assert {c["failure"] for c in examples} == {"hostile-accepted"}
    assert set(FAMILIES) <= {c["mutation"] for c in examples}
    invariants = doc(lax_poster.receipt)["invariants"]
    assert invariants["hostile-rejected"] is False
    assert all(held for name, held in invariants.items() if name != "hostile-rejected")


def test_lax_handler_counterexamples_stay_invalid_where_reported(lax_poster: FuzzResult) -> None:
    reference = Draft202012Validator(poster.SCHEMA)
    assert lax_poster.counterexamples
    for example in lax_poster.counterexamples:
        _check_reported_input(reference, example)
        _check_sizes(example)


def test_lax_handler_counterexamples_are_recorded_as_minimized(lax_poster: FuzzResult) -> None:
    by_fingerprint = {c.fingerprint: c for c in lax_poster.counterexamples}
    for recorded in doc(lax_poster.receipt)["counterexamples"]:
        example = by_fingerprint[recorded["fingerprint"]]
        assert recorded["input"] == present(example.minimal)
        assert recorded["originalInput"] == present(example.case.input)
        assert recorded["sizes"] == example.sizes
        assert set(recorded) >= {
            "fingerprint",
            "failure",
            "path",
            "mutation",
            "input",
            "originalInput",
            "sizes",
            "error",
            "replay",
        }


def test_shrinking_reaches_small_hostile_inputs(lax_poster: FuzzResult) -> None:
    by_site: dict[tuple[str, str], Any] = {
        (c.finding.mutation, c.finding.path): c.minimal for c in lax_poster.counterexamples
    }
    # Missing required member: everything else at its simplest valid value.
    missing = by_site[("required", "")]
    assert set(missing) == set(doc(poster.SCHEMA)["required"]) - {"title"}
    assert missing["width"] == 64 and missing["height"] == 64
    assert by_site[("bounds", "/width")]["width"] < 64


def test_replay_coordinates_regenerate_the_original_input(lax_poster: FuzzResult) -> None:
    """`replay` (seed, runs, stream, case) regenerates each counterexample's original input.

    The hostile mapping is the campaign's own (`Campaign.hostile_case`), rebuilt here from
    the replay coordinates alone, without running any handler.
    """
    compiled = compile_schema(poster.SCHEMA)
    reference = JsonschemaOracle(poster.SCHEMA)
    for example in lax_poster.counterexamples:
        [replay] = [
            c["replay"]
            for c in doc(lax_poster.receipt)["counterexamples"]
            if c["fingerprint"] == example.fingerprint
        ]
        seed, runs, index = replay["seed"], replay["runs"], replay["case"]
        assert (seed, runs) == (41, DEFAULT_RUN_RUNS)
        campaign = Campaign(
            compiled, AcceptAll(), reference, POSTER_TOOL, seed, runs, DEFAULT_LIMITS
        )
        campaign.operators = list(iter_operators(compiled, DEFAULT_LIMITS))
        campaign.valid_inputs = [generate(compiled, seed, i, DEFAULT_LIMITS) for i in range(runs)]
        if replay["stream"] == "hostile":
            operator, again = campaign.hostile_case(index)
            assert operator.label == example.case.label
        elif replay["stream"] == "seam":
            probes = list(iter_probes(compiled, campaign.valid_inputs[0], seed, DEFAULT_LIMITS))
            again = probes[index].input
        else:
            assert replay["stream"] == "valid"
            again = campaign.valid_inputs[index]
        assert canonical_compact(again) == canonical_compact(example.case.input), replay


def test_fingerprints_do_not_depend_on_the_seed(lax_poster: FuzzResult) -> None:
    other = run_fuzz(AcceptAll(), seed=12345)
    assert {c["fingerprint"] for c in doc(other.receipt)["counterexamples"]} == {
        c["fingerprint"] for c in doc(lax_poster.receipt)["counterexamples"]
    }


# --- handlers with one fault each ------------------------------------------------------


def test_a_crash_on_valid_input_shrinks_to_a_valid_minimal_input() -> None:
    result = run_fuzz(CrashOnNonAsciiTitle(), seed=41)
    crashes = [c for c in result.counterexamples if c.finding.failure.value == "crash"]
    assert crashes, doc(result.receipt)["counterexamples"]
    reference = Draft202012Validator(poster.SCHEMA)
    valid_crash = [c for c in crashes if c.case.valid]
    assert valid_crash
    for example in valid_crash:
        _check_reported_input(reference, example)
        _check_sizes(example)
        assert example.finding.error["inputValid"] is True
        title = doc(example.minimal)["title"]
        assert len(title) == 1 and not title.isascii(), title


def test_a_dry_run_that_commits_is_reported_at_the_flag() -> None:
    result = run_fuzz(CommitsOnDryRun(), seed=41)
    found = [(c["failure"], c["path"]) for c in doc(result.receipt)["counterexamples"]]
    assert ("dry-run-mutation", "/dryRun") in found
    assert {failure for failure, _ in found} == {"dry-run-mutation"}
    [example] = result.counterexamples
    assert doc(example.minimal)["dryRun"] is True
    assert Draft202012Validator(poster.SCHEMA).is_valid(example.minimal)


# --- random schemas ----------------------------------------------------------------------


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(schema=subset_schemas(max_properties=5), seed=st.integers(0, 2**31 - 1))
def test_lax_handler_on_random_schemas_finds_only_hostile_accepted(
    schema: dict[str, Any], seed: int
) -> None:
    """No oracle disagreement (an engine bug), and every report re-judged by `jsonschema`."""
    result = run_fuzz(AcceptAll(), seed=seed, runs=4, document=schema, tool=ToolSpec("random"))
    failures = {c["failure"] for c in doc(result.receipt)["counterexamples"]}
    assert failures <= {"hostile-accepted"}, doc(result.receipt)["counterexamples"]
    reference = Draft202012Validator(schema)
    for example in result.counterexamples:
        _check_reported_input(reference, example)
        _check_sizes(example)


def test_the_poster_takes_an_integral_float_as_the_integer_it_is() -> None:
    # The generator gives integers as `332.0` now and then (JSON Schema counts them as integers).
    service = poster.PosterService()
    output = service.render_poster(
        title="Harbour", format="png", width=332.0, height=64, palette=["navy"]
    )
    assert output["size"] == {"width": 332, "height": 64}
    with pytest.raises(poster.ToolError):
        service.render_poster(
            title="Harbour", format="png", width=332.5, height=64, palette=["navy"]
        )
