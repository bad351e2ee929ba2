"""Compile-time proof that merged nodes can be generated: build a few, check them (pure).

`allOf`, `$ref`, `anyOf`, `oneOf` and the sides of `if` and of dependent schemas are merged
by folding keyword domains (see `core.schema.conjoin`), which is exact for most real schemas
but not all: a closed object in one `allOf` branch and a property in another, say. Rather
than discover that as oracle disagreements mid-run, the compiler builds values for every
such node at its low end, its high end and a few seeded mixes, and checks each with the
engine's own validator. None valid, each for a reason that proves the node empty (a part
compiled as empty, no type every part admits, no usable branch), is a contradiction; none
valid otherwise is `schema.unbuildable` (the engine could not build a value, which says
nothing against the schema); some but not all means the engine cannot generate for this
combination reliably, and it says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from toolfuzz_gate.core.engine.arguments import ROOT_NOT_OBJECT, admits_object, arguments_node
from toolfuzz_gate.core.engine.generate import Generator
from toolfuzz_gate.core.engine.scalars import NoValue
from toolfuzz_gate.core.engine.seeds import stable_int
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.validate import validate_node
from toolfuzz_gate.errors import SchemaProblem

COMPOSED = frozenset(
    {"allOf", "anyOf", "oneOf", "$ref", "patternProperties", "propertyNames", "not"}
)
"""Keywords whose generation merges schemas (a key's property and pattern schemas, say) or
rejects values (`not`)."""
TRIAL_MODES = (LOW, HIGH, MIXED, MIXED, MIXED, MIXED)


def _trials(node: Node, limits: Limits) -> Iterator[tuple[str, bool] | None]:
    """For each trial, None when it built a valid value, else why it did not and whether
    that proves the node has no value."""
    for index, mode in enumerate(TRIAL_MODES):
        maker = Generator(stable_int("toolfuzz-trial", node.pointer, index), index, mode, limits)
        try:
            value = maker.valid(node)
        except NoValue as error:
            yield error.why, error.proven
            continue
        broke = ("a merged value broke one of the parts", False)
        yield None if validate_node(node, value) else broke


def check_generation(nodes: Iterable[Node], limits: Limits) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    for node in nodes:
        chosen = {choice.keyword for choice in node.domain.choices}
        keywords = [name for name, _ in node.keywords if name in COMPOSED | chosen]
        if keywords and not node.never:
            problems.extend(_check(node, limits, ", ".join(dict.fromkeys(keywords)), keywords[0]))
    return problems


def root_problem(root: Node, limits: Limits) -> SchemaProblem | None:
    """Why `root` cannot be fuzzed as a tool's arguments (None: it can): it admits no object,
    or it also admits other values and its objects cannot be built (`type: ["null",
    "object"]` beside `required` names that `maxProperties` leaves no room for)."""
    if not admits_object(root):
        return ROOT_NOT_OBJECT
    arguments = arguments_node(root)
    if arguments is root:
        return None  # the compiler has judged it already
    return next(iter(_check(arguments, limits, "an object", "type")), None)


def _check(node: Node, limits: Limits, named: str, keyword: str) -> list[SchemaProblem]:
    """A contradiction only when every trial failed and each failure proves the node empty;
    `schema.unbuildable` when every trial failed without a proof; an unsupported combination
    when only some did."""
    failed = [trial for trial in _trials(node, limits) if trial is not None]
    if not failed:
        return []
    failures = [why for why, _ in failed]
    if len(failed) == len(TRIAL_MODES) and all(proven for _, proven in failed):
        code, message = "schema.contradiction", f"no value satisfies {named} here ({failures[0]})"
    elif len(failed) == len(TRIAL_MODES):
        code = "schema.unbuildable"
        message = (
            f"the engine could not build any value for {named} here ({failures[0]}); "
            "the schema may well be satisfiable, but it cannot be fuzzed as written"
        )
    else:
        code = "schema.unsupported-combination"
        message = (
            f"the engine cannot reliably build values for {named} here "
            f"({len(failures)} of {len(TRIAL_MODES)} attempts failed: {failures[0]}); "
            "simplify the combination"
        )
    return [SchemaProblem(code, node.pointer, message, keyword)]


def prove_empty(node: Node, merged: Node) -> SchemaProblem | None:
    """A contradiction the parts of a composed `node` prove (`merged` is its merged
    reading), or None: the cases merging alone cannot show."""
    # Every value is an object with each required name; a branch closed by
    # `additionalProperties: false` allows only the names it knows itself (merging branches
    # only widens what they know, so this never claims too much).
    for index, branch in enumerate(node.argument("allOf") or ()):
        closed = effective(branch).domain
        if closed.additional or not merged.domain.types <= {"object"}:
            continue
        for name in merged.domain.required:
            if closed.property_node(name) is None and not any(
                pattern.matches(name) for pattern, _ in closed.pattern_properties
            ):
                return SchemaProblem(
                    "schema.contradiction",
                    node.pointer,
                    f"{name!r} is required, but allOf/{index} is a closed object that does "
                    "not allow it",
                    "allOf",
                )
    branches = node.argument("oneOf") or ()
    if sum(1 for b in branches if not b.keywords and not b.never) >= 2:  # `true` twice
        return SchemaProblem(
            "schema.contradiction",
            node.pointer,
            "two oneOf branches admit every value, so no value satisfies exactly one",
            "oneOf",
        )
    return None
