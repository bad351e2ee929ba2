"""Saturation: a stream of cases that stopped adding anything new is stopped (pure).

Design note. Most of a campaign's findings come early: the default 200 valid cases and 200
near-misses of a small tool repeat the same shapes and the same answers long before the
last one. So each stream (valid cases, near-misses) keeps the set of what its cases have
shown so far, and stops once `window` cases in a row added nothing to it. What a case
shows is its *features*: for a valid case, the shape of its input (each member's place
in the schema, JSON type, size class and, for strings, the character classes it holds:
the classes handlers trip on), the class of its outcome (kind, rejection code) and the
identity of each finding it raised (class, path, family, cause) and each entry of the
troublesome-strings dictionary it drew (`core.engine.dictionary`: a quote, a template
directive, markup, ... each breaks its own kind of handler code, so a stream goes on while
it still draws entries it has not tried); for a near-miss, its operator with the class of
its outcome and its findings. A valid stream also goes on while the boundary ledger
(`core.engine.ledger`) has an edge left to aim at: quiet cases do not prove that an empty
array three levels down, or a title with `!`, was ever given. Counts, never time: the same
seed stops at the same case on every machine, so receipts stay byte-identical.

Near-misses start counting only once every operator has met its first bases
(`seed_run.BASES_PER_OPERATOR`), so no keyword goes untested because another was quiet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.case import Observation
from toolfuzz_gate.core.campaign.findings import Finding
from toolfuzz_gate.core.campaign.receipt_ledgers import SaturationRecord, StreamRun
from toolfuzz_gate.core.jsonutil.canonical import JSON
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

    def record(self) -> StreamRun:
        return StreamRun(self.planned, self.ran, self.stopped)


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
        stream.quiet = 0 if self._any_new(features) or not counts else stream.quiet + 1

    def learn(self, name: str, features: Iterator[Feature]) -> None:
        """What stream `name`'s last case showed beyond its run (the troublesome strings it
        drew): a feature never seen makes that case fresh after all."""
        if self._any_new(features):
            self.streams[name].quiet = 0

    def _any_new(self, features: Iterator[Feature]) -> bool:
        """Remember `features`; whether any was not seen before."""
        fresh = False
        for feature in features:
            if feature not in self._seen:
                self._seen.add(feature)
                fresh = True
        return fresh

    def listening(self, name: str) -> bool:
        """Does stream `name` still need to know what its cases show?"""
        return self.window > 0 and not self.streams[name].stopped

    def saturated(self, name: str, index: int, edges_open: bool = False) -> bool:
        """Should stream `name` stop before its case `index` (and say so from now on)?
        Never while `edges_open`: the boundary ledger still has an edge to aim at."""
        stream = self.streams[name]
        stream.ran = index
        if self.window and stream.quiet >= self.window and not edges_open:
            stream.stopped = True
        return stream.stopped

    def finish(self, name: str) -> None:
        """Stream `name` went through every planned case."""
        self.streams[name].ran = self.streams[name].planned

    def record(self) -> SaturationRecord:
        """The receipt's `saturation`: the window, and each stream's planned and run cases."""
        return SaturationRecord(
            self.window, {name: stream.record() for name, stream in self.streams.items()}
        )


def case_features(obs: Observation, found: list[Finding], places: Places) -> Iterator[Feature]:
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
        yield from places.shape(case.input)


class Places:
    """The shape of a schema's values (`shape`), with each node's members looked up once."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self._members: dict[int, tuple[dict[str, Node], Node | None]] = {}

    def _of(self, node: Node) -> tuple[dict[str, Node], Node | None]:
        known = self._members.get(id(node))
        if known is None:
            domain = effective(node).domain
            known = self._members[id(node)] = (dict(domain.properties), domain.items)
        return known

    def shape(self, value: JSON) -> Iterator[Feature]:
        return self._shape(value, self.root, "")

    def _shape(self, value: JSON, node: Node | None, place: str) -> Iterator[Feature]:
        """The shape of `value`: each member's place (a property the schema names, `*` for
        another, `[]` for an item), JSON type and size class; each character class a string
        holds (`CHARACTER_CLASSES`: whitespace only, whitespace, controls, non-ASCII, lone
        surrogates, outside the Basic Multilingual Plane)."""
        if isinstance(value, dict):
            yield (place, "object", _size(len(value)))
            named = self._of(node)[0] if node is not None else {}
            for key, member in value.items():
                child = named.get(key)
                where = f"{place}/{key if child is not None else '*'}"
                yield from self._shape(member, child, where)
        elif isinstance(value, list):
            yield (place, "array", _size(len(value)))
            items = self._of(node)[1] if node is not None else None
            for item in value:
                yield from self._shape(item, items, f"{place}/[]")
        elif isinstance(value, str):
            yield (place, "string", _size(len(value)))
            # Each class on its own: their combinations would never stop being new.
            for name in _characters(value):
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
_SPACE = re.compile(r"\s")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _characters(text: str) -> Iterator[str]:
    """The `CHARACTER_CLASSES` `text` holds (a search each, in C)."""
    if text and text.isspace():
        yield "blank"
    if _SPACE.search(text):
        yield "space"
    if _CONTROL.search(text):
        yield "control"
    if not text.isascii():
        yield "non-ascii"
        if _SURROGATE.search(text):
            yield "surrogate"
        if _ASTRAL.search(text):
            yield "astral"
