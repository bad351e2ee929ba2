"""Compile-time proof that merged nodes can be generated: build a few, check them (pure).

`allOf`, `$ref`, `anyOf` and `oneOf` are merged by folding keyword domains (see
`core.schema.conjoin`), which is exact for most real schemas but not all: a closed object
in one `allOf` branch and a property in another, say. Rather than discover that as
oracle disagreements mid-run, the compiler builds values for every such node at
its low end, its high end and a few seeded mixes, and checks each with the
engine's own validator. None valid is a contradiction; some but not all means
the engine cannot generate for this combination reliably, and it says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from toolfuzz_gate.core.engine.arguments import ROOT_NOT_OBJECT, admits_object, arguments_node
from toolfuzz_gate.core.engine.generate import Generator, NoValue
from toolfuzz_gate.core.engine.seeds import stable_int
from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Node
from toolfuzz_gate.core.schema.validate import validate_node
from toolfuzz_gate.errors import SchemaProblem

COMPOSED = frozenset({"allOf", "anyOf", "oneOf", "$ref", "patternProperties", "propertyNames"})
"""Keywords whose generation merges schemas (a key's property and pattern schemas, say)."""
TRIAL_MODES = (LOW, HIGH, MIXED, MIXED, MIXED, MIXED)


def _trials(node: Node, limits: Limits) -> Iterator[str | None]:
    """For each trial, None when it built a valid value, else why it did not."""
    for index, mode in enumerate(TRIAL_MODES):
        maker = Generator(stable_int("toolfuzz-trial", node.pointer, index), index, mode, limits)
        try:
            value = maker.valid(node)
        except NoValue as error:
            yield error.why
            continue
        yield None if validate_node(node, value) else "a merged value broke one of the parts"


def check_generation(nodes: Iterable[Node], limits: Limits) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    for node in nodes:
        keywords = [name for name, _ in node.keywords if name in COMPOSED]
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
    failures = [why for why in _trials(node, limits) if why is not None]
    if not failures:
        return []
    if len(failures) == len(TRIAL_MODES):
        return [
            SchemaProblem(
                "schema.contradiction",
                node.pointer,
                f"no value satisfies {named} here ({failures[0]})",
                keyword,
            )
        ]
    return [
        SchemaProblem(
            "schema.unsupported-combination",
            node.pointer,
            f"the engine cannot reliably build values for {named} here "
            f"({len(failures)} of {len(TRIAL_MODES)} attempts failed: {failures[0]}); "
            "simplify the combination",
            keyword,
        )
    ]
