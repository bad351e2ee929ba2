"""Strings: `pattern`, an ECMA-262 regular expression searched for in the string (pure)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from random import Random
from typing import Any

from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.keywords.keyword import (
    INAPPLICABLE,
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
from toolfuzz_gate.core.schema.regex import (
    HIGH,
    LOW,
    NEAR_MISS_KINDS,
    Pattern,
    PatternError,
    compile_pattern,
)

FAMILY = "pattern"
PROBE_SEED = 0x5EED
SHOWN = 60
NEAR_MISS_EXTRA_LENGTH = 24
"""Without a maxLength, near-misses stay within this many code points beyond minLength."""


def read_pattern(argument: Any, ctx: ParseContext, keyword: str, *tokens: str | int) -> Any:
    """The compiled pattern, or INVALID after reporting why it is refused."""
    if not isinstance(argument, str):
        ctx.problem("schema.invalid-keyword-value", keyword, "a pattern must be a string", *tokens)
        return INVALID
    try:
        return compile_pattern(argument)
    except PatternError as error:
        shown = argument if len(argument) <= SHOWN else argument[:SHOWN] + "..."
        ctx.problem(
            error.code,
            keyword,
            f"pattern {shown!r} is refused at offset {error.offset}: {error.reason}",
            *tokens,
        )
        return INVALID


def _parse(argument: Any, ctx: ParseContext) -> Any:
    return read_pattern(argument, ctx, "pattern")


def _narrow(domain: Domain, argument: Pattern, merge: Merge) -> Domain:
    if argument in domain.patterns:
        return domain
    return replace(domain, patterns=(*domain.patterns, argument))


def _check(node: Node, argument: Pattern, instance: JSON, recurse: object) -> bool:
    return not isinstance(instance, str) or argument.matches(instance)


def open_high(domain: Domain, extra: int) -> int:
    """The most code points a string is drawn with when no `maxLength` bounds it: `extra`
    past `minLength`, or past the shortest string every pattern can match when that is
    longer (a uuid pattern's 36 characters); a window that reaches the patterns' lengths is
    left as it was, so the strings drawn from it stay the same."""
    low = domain.min_length
    shortest = max((pattern.shortest for pattern in domain.patterns), default=0)
    return low + extra if shortest <= low + extra else shortest + extra


def length_bounds(node: Node, limits: Limits) -> tuple[int, int]:
    """The code-point bounds a near-miss at `node` must keep (so only `pattern` fails)."""
    d = node.domain
    high = d.max_length if d.max_length is not None else open_high(d, NEAR_MISS_EXTRA_LENGTH)
    return d.min_length, min(high, limits.max_string_bytes)


def length_contradiction(pattern: Pattern, domain: Domain) -> str | None:
    """Why no string within the domain's length bounds can match, or None: a proof by
    length arithmetic (the pattern's shortest and longest matches against the bounds)."""
    high = "no maxLength" if domain.max_length is None else f"maxLength {domain.max_length}"
    if not pattern.fits(domain.min_length, domain.max_length):
        shown = pattern.source[:SHOWN]
        return f"no string of minLength {domain.min_length} and {high} can match pattern {shown!r}"
    return None


def unbuildable(pattern: Pattern, domain: Domain, limits: Limits) -> str | None:
    """Why the engine cannot build a matching string within the domain's length bounds, or
    None. The simplest and the longest draws are tried; failing both proves nothing about
    the schema (`a^b` has no match, but neither has a draw the sampler gets wrong), so this
    is `schema.unbuildable`, not a contradiction."""
    low = domain.min_length
    top = domain.max_length
    if top is None:
        top = open_high(domain, NEAR_MISS_EXTRA_LENGTH)
    top = min(top, limits.max_string_bytes)
    if low > top:
        return None  # minLength beyond the string limit is reported on its own
    if all(pattern.sample(Random(PROBE_SEED), low, top, mode) is None for mode in (LOW, HIGH)):
        high = "no maxLength" if domain.max_length is None else f"maxLength {domain.max_length}"
        return (
            f"the engine could not build a string of minLength {low} and {high} that pattern "
            f"{pattern.source[:SHOWN]!r} matches; the pattern may well match some string, but "
            "the tool cannot be fuzzed until the engine can build one"
        )
    return None


def _recipes(node: Node, argument: Pattern, ctx: RecipeContext) -> Iterable[Recipe]:
    low, high = length_bounds(node, ctx.limits)
    recipes = []
    for kind in NEAR_MISS_KINDS:
        # Offer only the kinds a near-miss can be found for within the length bounds.
        if argument.near_miss(Random(PROBE_SEED), low, high, kind) is None:
            continue
        recipes.append(Recipe(FAMILY, "pattern", kind, _maker(argument, kind, low, high), "string"))
    return recipes


def _maker(pattern: Pattern, kind: str, low: int, high: int) -> Any:
    def make(value: JSON, maker: Maker) -> JSON:
        found = pattern.near_miss(maker.rng, low, high, kind)
        if found is None:
            found = pattern.near_miss(Random(PROBE_SEED), low, high, kind)
        return INAPPLICABLE if found is None else found

    return make


PATTERN = Keyword("pattern", _parse, _narrow, _check, FAMILY, _recipes, instance_types=STRINGS)
