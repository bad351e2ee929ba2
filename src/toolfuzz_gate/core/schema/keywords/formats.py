"""`format`: an annotation by default, an assertion when the options say so (pure).

Under the 2020-12 default (`SchemaOptions.format_assertion` false) `format` constrains
nothing: `check` accepts every instance, as the specification and both oracles do, and
there are no hostile near-misses; a known format still shapes generated strings, because
conforming strings are what callers send, and an unknown one says nothing. As an
assertion, `check` is the format's own checker (`core.schema.formats`), the `format` family
yields near-misses, and an unknown format is refused (`schema.unsupported-format`):
the engine cannot judge what it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from random import Random
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.formats import FORMATS, MIXED, Format, NearMiss, lookup, make_value
from toolfuzz_gate.core.schema.formats import length_range as format_lengths
from toolfuzz_gate.core.schema.keywords.keyword import (
    INVALID,
    STRINGS,
    Keyword,
    Maker,
    Merge,
    ParseContext,
    Recipe,
    RecipeContext,
)
from toolfuzz_gate.core.schema.limits import Limits
from toolfuzz_gate.core.schema.node import Domain, Node

FAMILY = "format"
ATTEMPTS = 8
"""Fresh valid values a near-miss may corrupt before it settles for its dry-run result."""


@dataclass(frozen=True)
class FormatArgument:
    """The parsed `format`: its name, the entry when known, and whether it asserts."""

    name: str
    entry: Format | None
    asserts: bool


def _parse(argument: Any, ctx: ParseContext) -> Any:
    if not isinstance(argument, str):
        ctx.problem("schema.invalid-keyword-value", "format", "format must be a string")
        return INVALID
    entry = lookup(argument, ctx.draft)
    asserts = ctx.options.format_assertion
    if asserts and entry is None:
        known = ", ".join(name for name, e in FORMATS.items() if ctx.draft in e.drafts)
        ctx.problem(
            "schema.unsupported-format",
            "format",
            f"the format {argument[:40]!r} is not supported when formats are assertions; "
            f"supported: {known}",
        )
        return INVALID
    return FormatArgument(argument, entry, asserts)


def _narrow(domain: Domain, argument: FormatArgument, merge: Merge) -> Domain:
    if argument.entry is None or argument.name in domain.formats:
        return domain
    return replace(domain, formats=tuple(sorted((*domain.formats, argument.name))))


def _check(node: Node, argument: FormatArgument, instance: JSON, recurse: object) -> bool:
    if not argument.asserts or argument.entry is None or not isinstance(instance, str):
        return True
    return argument.entry.check(instance)


def _near_miss(
    entry: Format, miss: NearMiss, rng: Random, low: int, high: int | None, cap: int
) -> str | None:
    """A corruption of a fresh valid value that stays within the length bounds."""
    value = make_value(entry.name, rng, MIXED, low, high, cap)
    if value is None:
        return None
    bad = miss.corrupt(value, rng)
    if bad is None or len(bad) < low or len(bad) > (cap if high is None else min(high, cap)):
        return None
    return None if entry.check(bad) else bad


def _recipe(entry: Format, miss: NearMiss, node: Node, limits: Limits) -> Recipe | None:
    low, high, cap = node.domain.min_length, node.domain.max_length, limits.max_string_bytes
    # A seeded dry run decides whether the variant applies here at all, and gives the
    # near-miss `make` falls back on (a str seed is hashed with sha512: stable everywhere).
    dry = Random(f"toolfuzz-format/{entry.name}/{miss.variant}/{node.pointer}")
    tries = (_near_miss(entry, miss, dry, low, high, cap) for _ in range(ATTEMPTS))
    fallback = next((bad for bad in tries if bad is not None), None)
    if fallback is None:
        return None

    def make(value: JSON, maker: Maker) -> JSON:
        for _ in range(ATTEMPTS):
            bad = _near_miss(entry, miss, maker.rng, low, high, cap)
            if bad is not None:
                return bad
        return fallback

    return Recipe(FAMILY, "format", f"{entry.name}:{miss.variant}", make)


def _recipes(node: Node, argument: FormatArgument, ctx: RecipeContext) -> Iterable[Recipe]:
    entry, d = argument.entry, node.domain
    if not argument.asserts or entry is None or "string" not in d.types or d.enum is not None:
        return ()
    made = (_recipe(entry, miss, node, ctx.limits) for miss in entry.near_misses)
    return [recipe for recipe in made if recipe is not None]


def contradictions(node: Node, limits: Limits) -> Iterator[str]:
    """Why an asserted format admits no string under the node's length bounds, if it does not."""
    argument = node.argument("format")
    if not isinstance(argument, FormatArgument) or not argument.asserts or argument.entry is None:
        return
    d = node.domain
    cap = limits.max_string_bytes
    if format_lengths(argument.name, d.min_length, d.max_length, cap) is not None:
        return
    high = "any number of" if d.max_length is None else f"at most {d.max_length}"
    yield (
        f"no {argument.name} value has at least {d.min_length} and {high} characters "
        "(minLength / maxLength), so no string can be valid"
    )


FORMAT = Keyword("format", _parse, _narrow, _check, FAMILY, _recipes, instance_types=STRINGS)
