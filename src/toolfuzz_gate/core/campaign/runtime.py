"""Runtime failures: schema-valid calls the handler does not keep, and the schema fix (pure).

Design note. A crash, timeout or undeclared rejection on a schema-valid call means
the schema promises more than the handler keeps. Starting from the shrunk input,
`locate` finds the one member that matters: deepest first, it swaps each member
for the simplest valid alternative (absent when optional, the low end, the high
end) and keeps the first swap that makes the failure go away. `propose` then asks
what the handler really accepts at that member, by bisection over lengths, numbers
or item counts, or by testing character classes and enum members one at a time,
and phrases the answer as a JSON Patch against the schema plus one sentence.
Every question goes through `probe`, which runs the handler and answers True
(still fails the same way), False (passes) or None (not schema-valid: no answer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.engine.generate import Generator
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact
from toolfuzz_gate.core.jsonutil.values import copy_json, is_integer, is_number
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.node import Node

RUNTIME_FAILURES = frozenset(
    {
        Failure.CRASH,
        Failure.INTERNAL_ERROR,
        Failure.TIMEOUT,
        Failure.VALID_REJECTED,
        Failure.UNDER_SPECIFIED,
        Failure.RESOURCE_EXHAUSTION,
    }
)
BISECTION_STEPS = 60
ENUM_PROBES = 32
"""The longest enum whose members are each tried on the handler to suggest which to remove:
a country list of 250 would cost 250 calls per counterexample."""
ABSENT: Any = object()

Token = str | int
Probe = Callable[[JSON], "bool | None"]


@dataclass(frozen=True)
class Culprit:
    tokens: tuple[Token, ...]
    node: Node
    value: JSON
    required: bool
    fixed_by: str
    """Which swap made the failure go away: `absent`, `low` or `high`."""
    passing: JSON
    """The value that made it go away (ABSENT for an absent member)."""

    @property
    def path(self) -> str:
        return jp.from_parts(self.tokens)


@dataclass(frozen=True)
class Proposal:
    patch: list[JSONObject]
    sentence: str
    changes_generation: bool
    """True for bounds and removals (re-running can verify them); False for prose."""


def _members(
    value: JSON, node: Node, tokens: tuple[Token, ...], required: bool
) -> Iterator[tuple[tuple[Token, ...], Node, JSON, bool]]:
    """Every member of `value` with its node, children before their parents."""
    node = effective(node)
    d = node.domain
    if isinstance(value, dict):
        for name, child in d.properties:
            if name in value:
                yield from _members(value[name], child, (*tokens, name), name in d.required)
    elif isinstance(value, list) and d.items is not None:
        for index, item in enumerate(value):
            yield from _members(item, d.items, (*tokens, index), True)
    if tokens:
        yield tokens, node, value, required


def with_member(document: JSON, tokens: tuple[Token, ...], value: Any) -> JSON:
    """A copy of `document` with the member at `tokens` replaced (or removed: ABSENT)."""
    result = copy_json(document)
    parent: Any = result
    for token in tokens[:-1]:
        parent = parent[token]
    if value is ABSENT:
        del parent[tokens[-1]]
    else:
        parent[tokens[-1]] = value
    return result


def locate(
    minimal: JSON, root: Node, low: Generator, high: Generator, probe: Probe
) -> Culprit | None:
    for tokens, node, value, required in _members(minimal, root, (), True):
        swaps: list[tuple[str, Any]] = [] if required else [("absent", ABSENT)]
        swaps += [("low", low.valid(node)), ("high", high.valid(node))]
        for how, alternative in swaps:
            if alternative is not ABSENT and canonical_compact(alternative) == canonical_compact(
                value
            ):
                continue
            if probe(with_member(minimal, tokens, alternative)) is False:
                return Culprit(tokens, node, value, required, how, alternative)
    return None


def _bisect(passing: int, failing: int, passes: Callable[[int], bool | None]) -> int | None:
    """The integer nearest `failing` that still passes, between the two."""
    steps = 0
    while abs(failing - passing) > 1 and steps < BISECTION_STEPS:
        middle = (passing + failing) // 2
        answer = passes(middle)
        if answer is None:
            return None
        passing, failing = (middle, failing) if answer else (passing, middle)
        steps += 1
    return passing


def _keyword_patch(document: JSON, node: Node, keyword: str, value: JSON) -> list[JSONObject]:
    schema = _schema_at(document, node.pointer)
    op = "replace" if isinstance(schema, dict) and keyword in schema else "add"
    return [{"op": op, "path": jp.join(node.pointer, keyword), "value": value}]


def _schema_at(document: JSON, pointer: str) -> JSON:
    current: Any = document
    for token in jp.split(pointer):
        current = current[token]
    return current  # type: ignore[no-any-return]


def _describe(document: JSON, node: Node, sentence: str) -> list[JSONObject]:
    schema = _schema_at(document, node.pointer)
    if not isinstance(schema, dict):
        return []
    existing = schema.get("description")
    text = f"{existing} {sentence}" if isinstance(existing, str) and existing else sentence
    return _keyword_patch(document, node, "description", text)


CHARACTER_CLASSES: tuple[tuple[str, Callable[[str], bool], str], ...] = (
    (
        "astral-plane",
        lambda c: ord(c) > 0xFFFF,
        "characters outside the Basic Multilingual Plane (emoji)",
    ),
    (
        "control",
        lambda c: ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0,
        "NUL and other control characters",
    ),
    ("non-ascii", lambda c: ord(c) > 0x7F, "non-ASCII characters"),
)


def _string(document: JSON, culprit: Culprit, minimal: JSON, probe: Probe) -> Proposal | None:
    value = culprit.value
    assert isinstance(value, str)
    node, path = culprit.node, culprit.path

    def passes(text: str) -> bool | None:
        answer = probe(with_member(minimal, culprit.tokens, text))
        return None if answer is None else not answer

    plain = passes("a" * len(value))
    if plain is False:  # the length alone fails
        shortest = node.domain.min_length
        longest = node.domain.max_length
        if len(value) > shortest and passes("a" * shortest):
            good = _bisect(shortest, len(value), lambda n: passes("a" * n))
            if longest is not None and longest > len(value) and passes("a" * longest):
                return _isolated(document, culprit, value)
            if good is not None:
                return Proposal(
                    _keyword_patch(document, node, "maxLength", good),
                    f"Declare maxLength {good} at {path}: the handler fails on longer values.",
                    True,
                )
        if longest is not None and len(value) < longest and passes("a" * longest):
            good = _bisect(longest, len(value), lambda n: passes("a" * n))
            if shortest < len(value) and passes("a" * shortest):
                return _isolated(document, culprit, value)
            if good is not None:
                return Proposal(
                    _keyword_patch(document, node, "minLength", good),
                    f"Declare minLength {good} at {path}: the handler fails on shorter values.",
                    True,
                )
        return None
    if plain is not True:
        return None
    if value and not value.strip() and passes("a" * len(value)):
        sentence = "Whitespace-only values are not supported."
        return Proposal(
            _describe(document, node, sentence),
            f"Document at {path}: {sentence} (a pattern such as \\S would say it formally)",
            False,
        )
    for name, matches, words in CHARACTER_CLASSES:
        cleaned = "".join("a" if matches(c) else c for c in value)
        if cleaned != value and passes(cleaned):
            sentence = f"Values with {words} are not supported."
            return Proposal(
                _describe(document, node, sentence),
                f"Document at {path}: {sentence} (class: {name})",
                False,
            )
    return None


def _number(document: JSON, culprit: Culprit, minimal: JSON, probe: Probe) -> Proposal | None:
    value, passing = culprit.value, culprit.passing
    if not is_number(value) or not is_number(passing):
        return None
    assert isinstance(value, int | float) and isinstance(passing, int | float)
    node, path = culprit.node, culprit.path

    def passes(number: float) -> bool | None:
        answer = probe(with_member(minimal, culprit.tokens, number))
        return None if answer is None else not answer

    if is_integer(value) and is_integer(passing):
        good: float | None = _bisect(int(passing), int(value), passes)
    else:
        low, high = float(passing), float(value)
        for _ in range(BISECTION_STEPS):
            middle = (low + high) / 2
            answer = passes(middle)
            if answer is None:
                return None
            low, high = (middle, high) if answer else (low, middle)
        good = low
    if good is None:
        return None
    upward = value > passing
    keyword, side = ("maximum", "larger") if upward else ("minimum", "smaller")
    far = node.domain.hi if upward else node.domain.lo
    if far is not None and far != value and passes(far) is True:
        return _isolated(document, culprit, value)
    return Proposal(
        _keyword_patch(document, node, keyword, good),
        f"Declare {keyword} {good} at {path}: the handler fails on {side} values.",
        True,
    )


def _isolated(document: JSON, culprit: Culprit, value: JSON) -> Proposal:
    """The failing value has passing values on both sides: no bound says that."""
    shown = canonical_compact(value)
    if len(shown) > 40:
        shown = shown[:39] + "…"
    sentence = f"The value {shown} is not supported."
    return Proposal(
        _describe(document, culprit.node, sentence),
        f"Document at {culprit.path}: {sentence} (values on both sides of it pass, so no "
        "bound expresses it)",
        False,
    )


def _array(document: JSON, culprit: Culprit, minimal: JSON, probe: Probe) -> Proposal | None:
    value = culprit.value
    if not isinstance(value, list) or culprit.fixed_by != "low":
        return None

    def passes(count: int) -> bool | None:
        answer = probe(with_member(minimal, culprit.tokens, value[:count]))
        return None if answer is None else not answer

    fewest = culprit.node.domain.min_items
    if not passes(fewest):
        return None
    good = _bisect(fewest, len(value), passes)
    if good is None:
        return None
    return Proposal(
        _keyword_patch(document, culprit.node, "maxItems", good),
        f"Declare maxItems {good} at {culprit.path}: the handler fails on more items.",
        True,
    )


def _enum(document: JSON, culprit: Culprit, minimal: JSON, probe: Probe) -> Proposal | None:
    members = culprit.node.domain.enum
    if members is None or len(members) > ENUM_PROBES:
        return None
    failing = [m for m in members if probe(with_member(minimal, culprit.tokens, m)) is True]
    kept = [m for m in members if m not in failing]
    if not failing or not kept:
        return None
    shown = ", ".join(canonical_compact(m) for m in failing)
    return Proposal(
        _keyword_patch(document, culprit.node, "enum", kept),
        f"Remove {shown} from the enum at {culprit.path} (or implement them): the handler "
        "fails on them.",
        True,
    )


def _optional(document: JSON, culprit: Culprit, minimal: JSON, probe: Probe) -> Proposal | None:
    if culprit.fixed_by != "absent":
        return None
    parent_pointer = culprit.node.pointer
    return Proposal(
        [{"op": "remove", "path": parent_pointer}],
        f"Remove the optional property {culprit.path} from the schema (or implement it): "
        "calls that give it fail.",
        True,
    )


def propose(document: JSON, culprit: Culprit, minimal: JSON, probe: Probe) -> Proposal | None:
    """The schema change that would make the schema promise only what the handler keeps."""
    for reader in (_enum, _string, _number, _array, _optional):
        if reader is _string and not isinstance(culprit.value, str):
            continue
        proposal = reader(document, culprit, minimal, probe)
        if proposal is not None:
            return proposal
    return None
