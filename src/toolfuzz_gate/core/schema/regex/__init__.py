"""ECMA-262 regular expressions for `pattern` and `patternProperties` (pure).

`parse` reads a pattern into a small tree (`ast`) with a `reader` and its `escapes`,
`safety` refuses catastrophic backtracking (with `ambiguity` deciding whether a repeated
group can read one string in two ways), `translate` writes the engine's Python
reading, `sample` draws matching strings and near-misses, and `compiled.Pattern` ties
them together.
"""

from __future__ import annotations

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.regex.compiled import (
    NEAR_MISS_KINDS,
    Pattern,
    compile_pattern,
    sample_all,
)
from toolfuzz_gate.core.schema.regex.parse import Parsed, parse
from toolfuzz_gate.core.schema.regex.reader import INVALID, UNSUPPORTED, PatternError

__all__ = [
    "HIGH",
    "INVALID",
    "LOW",
    "MIXED",
    "NEAR_MISS_KINDS",
    "UNSUPPORTED",
    "Parsed",
    "Pattern",
    "PatternError",
    "compile_pattern",
    "parse",
    "sample_all",
]
