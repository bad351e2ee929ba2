"""Fuzzing the engine itself (issue 15): random schemas from the supported vocabulary, far
outside what `tests/strategies.py` keeps satisfiable, through compile, generate, mutate
and shrink.

The law: the engine either refuses the schema cleanly (a `SchemaError` whose every problem
has a `schema.*` code and a JSON Pointer) or runs a campaign in which every valid case is
valid and every hostile near-miss invalid under the reference validator (the `jsonschema`
library) and the engine's own oracle never disagrees with its generator. Any other
exception is a bug. The strategy leans on what broke on real schemas: `const`/`enum` inside
`oneOf` branches with nothing in common, `uniqueItems` beside `items: {"$ref": ...}`,
`$ref` cycles, `not` beside the keywords it negates, bounds at the ends of the float range,
patterns and names in odd Unicode, `if`/`then`/`else` (often on one tagged member) and
`dependentSchemas`.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from tests.profiles import examples
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig, fuzz
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, digest_and_size
from toolfuzz_gate.errors import SchemaError

Schema = Any

RUNS = 3
SHRINK_BUDGET = 40
DEFS = ("A", "B", "C")

# Values enum, const and bounds are drawn from: few enough that intersections (empty and
# not) are common, wide enough to reach the float range's ends and the integer edges.
MEMBER_POOL: list[Any] = [None, True, False, 0, 1, -1, 1.0, 2.5, 2**53, "", "a", "b", "A"]
MEMBER_POOL += ["é", "🙂", [], [1], {}, {"k": "a"}]
MEMBERS = st.sampled_from(MEMBER_POOL)
NUMBERS = st.sampled_from(
    [0, 1, -1, 2, 7, 0.5, -0.5, 1e-300, 5e-324, 1e308, -1e308, 2**53, 2**53 + 1, -(2**63)]
)
STEPS = st.sampled_from([1, 2, 3, 0.5, 0.01, 0.07, 1e-9, 7.5, 1e300])
LENGTHS = st.sampled_from([0, 1, 2, 3, 5, 20, 4096, 5000])
COUNTS = st.sampled_from([0, 1, 2, 3, 5, 40])
# Patterns the engine accepts (and a few it refuses), with non-ASCII literals and classes.
PATTERNS = st.sampled_from(
    [
        "^[a-z]+$",
        "^$",
        "é+",
        "^\\d{2,4}$",
        "^(ab|cd)*$",
        "^[\u4e00-\u9fff]{1,3}$",
        "🙂",
        "^[^a]?$",
        "x|y",
        "^.{3}$",
        "^[A-Z][a-z]*(-[a-z]+)?$",
        "(a+)+",
        "^(?:[a-z0-9](?:[a-z0-9-]{0,3}[a-z0-9])?\\.)+[a-z]{2,}$",
        "^\\p{L}$",
    ]
)
NAME_POOL = ["a", "b", "k", "a/b", "t~1", "~0", "", " ", "é", "e\u0301", "名前", "🙂", "\u200b"]
NAME_POOL += ["\u202eRTL", "$ref", "type"]
REFUSED_NAMES = ["__proto__", "\ud800", "a\udc00b"]  # refused (unsafe, lone surrogates)
NAMES = st.sampled_from(NAME_POOL * 8 + REFUSED_NAMES)  # one refused name in about 40
FORMATS = st.sampled_from(["date-time", "date", "email", "uri", "uuid", "ipv4", "hostname"])
REFERENCES = st.sampled_from([f"#/$defs/{name}" for name in DEFS] + ["#"]).map(
    lambda target: {"$ref": target}
)
TYPES = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])


def _keywords(draw: st.DrawFn, depth: int) -> Schema:
    """One schema object: a few keywords, each drawn independently, so that contradictions
    and empty intersections come up as often as consistent combinations."""
    schema: dict[str, Any] = {}
    if draw(st.booleans()):
        types = draw(st.lists(TYPES, min_size=1, max_size=3, unique=True))
        schema["type"] = types[0] if len(types) == 1 else types
    picks = draw(st.sets(st.sampled_from(sorted(_OPTIONS)), max_size=3))
    for name in sorted(picks):
        schema.update(_OPTIONS[name](draw, depth))
    containers = picks & {"array", "object"}
    if len(containers) == 1 and "type" not in schema and draw(st.booleans()):
        schema["type"] = containers.pop()  # what the array and object checks need to run
    return schema


def _scalar_options(draw: st.DrawFn, depth: int, name: str) -> Schema:
    if name == "enum":
        return {"enum": draw(st.lists(MEMBERS, min_size=1, max_size=4))}
    if name == "const":
        return {"const": draw(MEMBERS)}
    if name == "bounds":
        keys = draw(
            st.sets(
                st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
                min_size=1,
            )
        )
        if draw(st.booleans()):  # equal bounds: one value, or none with an exclusive end
            value = draw(NUMBERS)
            return dict.fromkeys(keys, value)
        return {key: draw(NUMBERS) for key in sorted(keys)}
    if name == "multipleOf":
        return {"multipleOf": draw(STEPS)}
    if name == "string":
        found: dict[str, Any] = {}
        if draw(st.booleans()):
            found["minLength"] = draw(LENGTHS)
        if draw(st.booleans()):
            found["maxLength"] = draw(LENGTHS)
        if draw(st.booleans()):
            found["pattern"] = draw(PATTERNS)
        if draw(st.booleans()):
            found["format"] = draw(FORMATS)
        return found
    raise AssertionError(name)


def _container_options(draw: st.DrawFn, depth: int, name: str) -> Schema:
    if name == "array":
        found: dict[str, Any] = {}
        if draw(st.booleans()):  # often a model: pydantic's `list[M]` and `set[M]`
            found["items"] = draw(st.one_of(_schemas(depth + 1), REFERENCES))
        if draw(st.booleans()):
            found["prefixItems"] = draw(st.lists(_schemas(depth + 1), min_size=1, max_size=2))
        if draw(st.booleans()):
            found["minItems"] = draw(COUNTS)
        if draw(st.booleans()):
            found["maxItems"] = draw(COUNTS)
        if draw(st.booleans()):
            found["uniqueItems"] = True
        if draw(st.booleans()):
            found["contains"] = draw(_schemas(depth + 1))
            if draw(st.booleans()):
                found["minContains"] = draw(COUNTS)
            if draw(st.booleans()):
                found["maxContains"] = draw(COUNTS)
        return found
    if name == "object":
        names = draw(st.lists(NAMES, max_size=3, unique=True))
        found = {"properties": {n: draw(_schemas(depth + 1)) for n in names}}
        if draw(st.booleans()):
            found["required"] = draw(st.lists(NAMES, max_size=3, unique=True))
        if draw(st.booleans()):
            found["additionalProperties"] = draw(st.one_of(st.booleans(), _schemas(depth + 1)))
        if draw(st.booleans()):
            found["patternProperties"] = {draw(PATTERNS): draw(_schemas(depth + 1))}
        if draw(st.booleans()):
            found["propertyNames"] = draw(_schemas(depth + 1))
        if draw(st.booleans()):
            found["minProperties"] = draw(COUNTS)
        if draw(st.booleans()):
            found["maxProperties"] = draw(COUNTS)
        if draw(st.booleans()) and names:
            found["dependentRequired"] = {names[0]: draw(st.lists(NAMES, max_size=2, unique=True))}
        return found
    raise AssertionError(name)


def _composition(draw: st.DrawFn, depth: int, name: str) -> Schema:
    if name == "$ref":
        return draw(REFERENCES)
    if name == "not":  # often a type or a const to avoid, sometimes a whole schema
        return {"not": draw(st.one_of(TYPES.map(lambda t: {"type": t}), _schemas(depth + 1)))}
    if name == "union":  # pydantic's and zod's tagged unions: a `const` member per branch
        tag = draw(NAMES)
        values = draw(st.lists(MEMBERS, min_size=2, max_size=3))
        return {
            draw(st.sampled_from(["oneOf", "anyOf"])): [
                {
                    "type": "object",
                    "properties": {tag: {"const": value}, **draw(_properties(depth + 1))},
                    "required": [tag],
                }
                for value in values
            ]
        }
    if name == "conditional":  # CrewAI's Daytona tools: `if` on one member, `then` requiring others
        found: dict[str, Any] = {}
        if draw(st.booleans()):
            tag = draw(NAMES)
            found["if"] = {"properties": {tag: {"const": draw(MEMBERS)}}, "required": [tag]}
        elif draw(st.integers(0, 4)):
            found["if"] = draw(_schemas(depth + 1))
        for side in ("then", "else"):
            if draw(st.booleans()):
                found[side] = draw(_schemas(depth + 1))
        return found
    if name == "dependentSchemas":
        names = draw(st.lists(NAMES, min_size=1, max_size=2, unique=True))
        return {"dependentSchemas": {n: draw(_schemas(depth + 1)) for n in names}}
    if name == "choice" and depth + 1 < MAX_DEPTH:  # branches of enums and consts
        options = st.sampled_from(["enum", "const"]).map(lambda k: _OPTIONS[k](draw, depth))
        return {draw(st.sampled_from(["oneOf", "anyOf"])): draw(st.lists(options, min_size=2))}
    branches = draw(st.lists(_schemas(depth + 1), min_size=1, max_size=3))
    return {"oneOf" if name == "choice" else name: branches}


@st.composite
def _properties(draw: st.DrawFn, depth: int) -> dict[str, Schema]:
    names = draw(st.lists(NAMES, max_size=2, unique=True))
    return {name: draw(_schemas(depth)) for name in names}


_OPTIONS = {
    "enum": lambda draw, depth: _scalar_options(draw, depth, "enum"),
    "const": lambda draw, depth: _scalar_options(draw, depth, "const"),
    "bounds": lambda draw, depth: _scalar_options(draw, depth, "bounds"),
    "multipleOf": lambda draw, depth: _scalar_options(draw, depth, "multipleOf"),
    "string": lambda draw, depth: _scalar_options(draw, depth, "string"),
    "array": lambda draw, depth: _container_options(draw, depth, "array"),
    "object": lambda draw, depth: _container_options(draw, depth, "object"),
    "allOf": lambda draw, depth: _composition(draw, depth, "allOf"),
    "anyOf": lambda draw, depth: _composition(draw, depth, "anyOf"),
    "oneOf": lambda draw, depth: _composition(draw, depth, "oneOf"),
    "$ref": lambda draw, depth: _composition(draw, depth, "$ref"),
    "not": lambda draw, depth: _composition(draw, depth, "not"),
    "union": lambda draw, depth: _composition(draw, depth, "union"),
    "choice": lambda draw, depth: _composition(draw, depth, "choice"),
    "conditional": lambda draw, depth: _composition(draw, depth, "conditional"),
    "dependentSchemas": lambda draw, depth: _composition(draw, depth, "dependentSchemas"),
}
MAX_DEPTH = 3


@st.composite
def _schemas(draw: st.DrawFn, depth: int) -> Schema:
    if depth >= MAX_DEPTH or draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.booleans(), st.builds(dict), TYPES.map(lambda t: {"type": t})))
    return _keywords(draw, depth)


@st.composite
def tool_schemas(draw: st.DrawFn) -> Schema:
    """An object-rooted schema (usually: a root of another type is a refusal to check too),
    with `$defs` that refer to each other and to the root."""
    root = _keywords(draw, 0)
    if draw(st.integers(0, 9)):
        root["type"] = "object"
    if draw(st.integers(0, 9)):  # every `$ref` resolves, mostly
        root["$defs"] = {name: draw(_schemas(1)) for name in DEFS}
    elif used := draw(st.sets(st.sampled_from(DEFS))):
        root["$defs"] = {name: draw(_schemas(1)) for name in sorted(used)}
    return root


class AcceptEverything:
    """A handler that accepts every call: every confirmed near-miss is then a finding the
    shrinker and the reference re-check work on."""

    def __init__(self) -> None:
        self.digest, self.size = digest_and_size({"ok": True})

    def call(self, arguments: JSONObject) -> Outcome:
        return Outcome(OutcomeKind.ACCEPTED, output_digest=self.digest, output_bytes=self.size)


def _assert_clean_refusal(error: SchemaError) -> None:
    assert error.problems
    for problem in error.problems:
        assert problem.code.startswith("schema."), problem
        assert problem.pointer == "" or problem.pointer.startswith("/"), problem
        assert problem.message, problem


def note_event(name: str, value: str) -> None:
    """Hypothesis' `event` inside a property test; nothing in a plain test."""
    try:
        event(name, value)
    except InvalidArgument:
        pass


@pytest.mark.slow
def test_a_redraw_inside_a_recursive_schema_still_meets_the_depth_limit() -> None:
    # found by Hypothesis (RecursionError): `contains` redraws an item of a self-referencing
    # array with a variant generator, which counted its `$ref` depth from 0 again
    recursive = {
        "$ref": "#/$defs/C",
        "items": {"$ref": "#/$defs/B"},
        "maxItems": 1,
        "contains": {"type": "number"},
        "oneOf": [{}],
    }
    document = {
        "type": "object",
        "properties": {"b": {"$ref": "#/$defs/B"}},
        "$defs": {"B": recursive, "C": {"type": ["object", "array"]}},
    }
    check_engine(document, 0)


def test_a_recursive_schema_that_meets_itself_while_merged_is_fuzzed() -> None:
    # found by Hypothesis (RecursionError in CI): merging T conjoins its two `items`, each
    # of them T itself, whose merged form was being computed
    recursive = {
        "allOf": [
            {"items": {"$ref": "#/$defs/T"}, "maxItems": 2},
            {"items": {"$ref": "#/$defs/T"}},
        ],
        "type": ["array", "integer"],
    }
    document = {
        "type": "object",
        "properties": {"t": {"$ref": "#/$defs/T"}},
        "$defs": {"T": recursive},
    }
    for seed in range(4):
        check_engine(document, seed)


def check_engine(document: Schema, seed: int) -> None:
    """Compile, generate, mutate and shrink `document`; assert the law above."""
    records: list[JSONObject] = []
    try:
        result = fuzz(
            document,
            AcceptEverything(),
            ToolSpec("t"),
            FuzzConfig(seed, RUNS, shrink_budget=SHRINK_BUDGET),
            handler_label={"spec": "test:accept-everything"},
            replay_command="test",
            sink=records.append,
        )
    except SchemaError as error:
        _assert_clean_refusal(error)
        note_event("refused", error.problems[0].code)
        return
    note_event("fuzzed", "yes")
    reference = jsonschema.Draft202012Validator(document)
    for record in records:
        family, value = record["family"], record["input"]
        if family == "valid":
            assert reference.is_valid(value), ("a valid case the reference rejects", value)
        elif family != "seam":
            assert not reference.is_valid(value), ("a near-miss the reference accepts", record)
    for example in result.counterexamples:
        assert example.finding.failure is not Failure.ORACLE_DISAGREEMENT, example.finding
        if example.finding.failure is Failure.HOSTILE_ACCEPTED:
            # shrinking keeps the failure: the minimal input is still a near-miss
            assert not reference.is_valid(example.minimal), example.minimal


@pytest.mark.slow  # about 10 s under the dev profile, 40 s under ci, on two cores
@settings(
    max_examples=examples(1500),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tool_schemas(), st.integers(0, 3))
def test_the_engine_refuses_cleanly_or_fuzzes_soundly(document: Schema, seed: int) -> None:
    check_engine(document, seed)


@pytest.mark.parametrize(
    "document",
    [
        {
            "type": "array",
            "items": {"$ref": "#"},
            "anyOf": [{"items": {"$ref": "#"}}, {"type": "array"}],
        },
        {
            "items": {"$ref": "#"},
            "oneOf": [{"items": {"items": {"$ref": "#"}}}, {"items": {"$ref": "#"}}],
        },
    ],
)
def test_a_recursive_array_meeting_itself_in_a_branch_is_refused_not_a_crash(
    document: dict[str, Any],
) -> None:
    """Hypothesis found it in CI: conjoining a recursive `items` with a branch's recursive
    `items` merged without end (RecursionError, exit 3). It is now a clean refusal."""
    with pytest.raises(SchemaError) as refused:
        compile_schema(document)
    problems = refused.value.problems
    assert {p.code for p in problems} <= {"schema.unbuildable", "schema.unsupported-combination"}
    assert any("recursive parts never ends" in p.message for p in problems), problems
