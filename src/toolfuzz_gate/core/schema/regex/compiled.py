"""A compiled, checked pattern: the engine's reading, the reference's reading, sampling (pure).

`compile_pattern` parses the ECMA-262 text, refuses what could backtrack
catastrophically, translates it for the engine's own `check`, and compiles the
raw text with Python's `re` exactly as the reference `jsonschema` validator
will: a pattern that reader cannot compile is refused, since no verdict of the
reference could then be trusted. Every string handed out is verified against
both readings: matches must match under both, near-misses under neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from random import Random

import toolfuzz_gate.core.schema.regex.sample as sample
from toolfuzz_gate.core.schema.draw_modes import LOW, MIXED
from toolfuzz_gate.core.schema.regex.ast import Regex, anchored_end, anchored_start, length_range
from toolfuzz_gate.core.schema.regex.parse import parse
from toolfuzz_gate.core.schema.regex.reader import UNSUPPORTED, PatternError
from toolfuzz_gate.core.schema.regex.safety import check_safety
from toolfuzz_gate.core.schema.regex.translate import translate

ATTEMPTS = 24
NEAR_MISS_KINDS = ("char-outside-class", "part-dropped", "anchor-broken", "end-broken")


@dataclass(frozen=True)
class Pattern:
    """One accepted pattern. Equal when the source text is; `matches` is the ECMA reading."""

    source: str
    tree: Regex = field(compare=False, repr=False)
    ecma: re.Pattern[str] = field(compare=False, repr=False)
    python: re.Pattern[str] = field(compare=False, repr=False)

    def matches(self, text: str) -> bool:
        return self.ecma.search(text) is not None

    def agreed_match(self, text: str) -> bool:
        return self.matches(text) and self.python.search(text) is not None

    def agreed_miss(self, text: str) -> bool:
        return not self.matches(text) and self.python.search(text) is None

    @property
    def shortest(self) -> int:
        """The fewest code points a match can have."""
        return length_range(self.tree)[0]

    def fits(self, low: int, high: int | None) -> bool:
        """Whether some string of `low..high` code points could match, by length alone."""
        plo, phi = length_range(self.tree)
        if high is not None and plo > high:
            return False
        bounded = anchored_start(self.tree) and anchored_end(self.tree)
        return not (bounded and phi is not None and low > phi)

    def sample(self, rng: Random, low: int, high: int, mode: str) -> str | None:
        """A string both readings match, of `low..high` code points, or None after a few tries."""
        for attempt in range(ATTEMPTS):
            pieces = sample.draw(self.tree, rng, low, high, mode if attempt < 2 else MIXED)
            if pieces is not None:
                text = sample.text(pieces)
                if self.agreed_match(text):
                    return text
        return None

    def near_miss(self, rng: Random, low: int, high: int, kind: str) -> str | None:
        """A string neither reading matches, of `low..high` code points, made by `kind`."""
        for attempt in range(4):
            mode = LOW if attempt == 0 else MIXED
            pieces = sample.draw(self.tree, rng, low, high, mode)
            if pieces is None:
                continue
            for candidate in sample.iter_near_misses(self.tree, pieces, rng, kind):
                if low <= len(candidate) <= high and self.agreed_miss(candidate):
                    return candidate
        return None


@lru_cache(maxsize=512)
def compile_pattern(source: str) -> Pattern:
    """The accepted pattern, or `PatternError` naming the refused construct and its offset."""
    parsed = parse(source)
    tree = parsed.tree
    check_safety(tree)
    try:
        ecma = re.compile(translate(tree))
    except re.error as error:  # a translator defect; refuse rather than crash on user input
        raise PatternError(
            UNSUPPORTED, f"the engine cannot translate it ({error.msg})", 0
        ) from None
    if parsed.divergence is not None:
        reason, offset = parsed.divergence
        raise PatternError(UNSUPPORTED, f"{reason}, which the reference validator uses", offset)
    try:
        python = re.compile(source)
    except re.error as error:
        raise PatternError(
            UNSUPPORTED,
            f"Python's re, which the reference validator uses, cannot read it ({error.msg})",
            error.pos or 0,
        ) from None
    return Pattern(source, tree, ecma, python)


def sample_all(
    patterns: tuple[Pattern, ...], rng: Random, low: int, high: int, mode: str
) -> str | None:
    """A string every pattern matches under both readings, drawn from each in turn."""
    if len(patterns) == 1:
        return patterns[0].sample(rng, low, high, mode)
    for attempt in range(ATTEMPTS * len(patterns)):
        driver = patterns[attempt % len(patterns)]
        pieces = sample.draw(
            driver.tree, rng, low, high, mode if attempt < len(patterns) else MIXED
        )
        if pieces is not None:
            text = sample.text(pieces)
            if all(p.agreed_match(text) for p in patterns):
                return text
    return None
