"""Saturation: a stream of cases that stopped adding anything new is stopped (pure).

Design note. Most of a campaign's findings come early: the default 200 valid cases and 200
near-misses of a small tool repeat the same shapes and the same answers long before the
last one. So each stream (valid cases, near-misses) keeps the set of what its cases have
shown so far, and stops once `window` cases in a row added nothing to it. What a case
shows is its *features*: for a valid case, the shape of its input (each member's place
in the schema, JSON type, size class and, for strings, the character classes it holds:
the classes handlers trip on), the class of its outcome (kind, rejection code) and the
identity of each finding it raised (class, path, family, cause); for a near-miss, its
operator with the class of its outcome and its findings. Counts, never time: the same
seed stops at the same case on every machine, so receipts stay byte-identical.

Near-misses start counting only once every operator has met its first bases
(`seed_run.BASES_PER_OPERATOR`), so no keyword goes untested because another was quiet.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.case import Observation
from toolfuzz_gate.core.campaign.findings import Finding
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.values import is_integer
from toolfuzz_gate.core.schema.conjoin import effective
from toolfuzz_gate.core.schema.node import Node

WINDOW_SHARE = 4
"""A stream stops after `runs // WINDOW_SHARE` quiet cases in a row (50 of 200)..."""
WINDOW_FLOOR = 25
"""...but never after fewer than this many (a small `runs` is left whole)."""

Feature = tuple[object, ...]


def window_for(runs: int) -> int:
    return max(WINDOW_FLOOR, runs // WINDOW_SHARE)


@dataclass
class Stream:
    """One stream's progress: cases run, and how many of them in a row added nothing."""

    planned: int
    ran: int = 0
    """Indices of the stream gone through (near-misses that did not apply included)."""
    quiet: int = 0
    stopped: bool = False

    def as_json(self) -> JSONObject:
        return {"planned": self.planned, "ran": self.ran, "saturated": self.stopped}


@dataclass
class Saturation:
    """What the streams have shown so far; `window` 0 runs every case (saturation off)."""

    window: int
    streams: dict[str, Stream] = field(default_factory=dict)
    _seen: set[Feature] = field(default_factory=set)

    def begin(self, name: str, planned: int) -> None:
        self.streams[name] = Stream(planned)

    def note(self, name: str, features: Iterator[Feature], counts: bool = True) -> None:
        """A case of stream `name` ran and showed `features`; `counts` False while the
        stream's first cases, which always run, are under way (they still teach)."""
        stream = self.streams[name]
        fresh = False
        for feature in features:
            if feature not in self._seen:
                self._seen.add(feature)
                fresh = True
        stream.quiet = 0 if fresh or not counts else stream.quiet + 1

    def saturated(self, name: str, index: int) -> bool:
        """Should stream `name` stop before its case `index` (and say so from now on)?"""
        stream = self.streams[name]
        stream.ran = index
        if self.window and stream.quiet >= self.window:
            stream.stopped = True
        return stream.stopped

    def finish(self, name: str) -> None:
        """Stream `name` went through every planned case."""
        self.streams[name].ran = self.streams[name].planned

    def as_json(self) -> JSONObject:
        """The receipt's `saturation`: the window, and each stream's planned and run cases."""
        described: JSONObject = {"window": self.window}
        for name, stream in self.streams.items():
            described[name] = stream.as_json()
        return described


def case_features(obs: Observation, found: list[Finding], root: Node) -> Iterator[Feature]:
    """What one case showed: see the module's design note."""
    case = obs.case
    where = (case.kind.value, case.family, case.path, case.label)
    outcome = obs.outcome
    if outcome is None:
        yield (*where, "not-run")
    else:
        yield (*where, outcome.kind.value, outcome.error_code, outcome.exhausted)
    for finding in found:
        yield ("finding", finding.failure.value, finding.path, finding.mutation, finding.cause)
    if case.family == "valid":
        yield from shape(case.input, root, "")


def shape(value: JSON, node: Node | None, place: str) -> Iterator[Feature]:
    """The shape of `value`: each member's place (a property the schema names, `*` for
    another, `[]` for an item), JSON type and size class; each character class a string
    holds (`CHARACTER_CLASSES`: whitespace only, whitespace, controls, non-ASCII, lone
    surrogates, outside the Basic Multilingual Plane)."""
    domain = effective(node).domain if node is not None else None
    if isinstance(value, dict):
        yield (place, "object", _size(len(value)))
        named = dict(domain.properties) if domain is not None else {}
        for key, member in value.items():
            child = named.get(key)
            yield from shape(member, child, f"{place}/{key if child is not None else '*'}")
    elif isinstance(value, list):
        yield (place, "array", _size(len(value)))
        items = domain.items if domain is not None else None
        for item in value:
            yield from shape(item, items, f"{place}/[]")
    elif isinstance(value, str):
        yield (place, "string", _size(len(value)))
        # Each class on its own: their combinations would never stop being new.
        for name, present in zip(CHARACTER_CLASSES, _characters(value), strict=True):
            if present:
                yield (place, "string", name)
    elif isinstance(value, bool) or value is None:
        yield (place, value)
    else:
        kind = "integer" if is_integer(value) else "number"
        yield (place, kind, (value > 0) - (value < 0), _size(int(min(abs(value), 1e18))))


def _size(count: int) -> int:
    """The size class: 0, 1, then one class per power of four."""
    size = 0
    while count:
        size += 1
        count //= 4
    return size


CHARACTER_CLASSES = ("blank", "space", "control", "non-ascii", "surrogate", "astral")


def _characters(text: str) -> tuple[bool, ...]:
    return (
        bool(text) and not text.strip(),
        any(c.isspace() for c in text),
        any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text),
        any(ord(c) > 0x7F for c in text),
        any(0xD800 <= ord(c) <= 0xDFFF for c in text),
        any(ord(c) > 0xFFFF for c in text),
    )
