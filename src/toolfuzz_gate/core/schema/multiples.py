"""Exact `multipleOf` arithmetic, and the values on which every validator agrees (pure).

A float in a schema means the decimal it is written as (`0.01` is one hundredth):
that is the specification's reading, and jsonschema-rs's. The `jsonschema`
library divides in binary floating point instead (`0.07 / 0.01` is not a whole
number there, `(2**53 - 1) / 1.5` is), so `agrees` holds only for values that
both readings accept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

SEARCH_STEPS = 64
"""How far from the chosen multiple `nearest_agreeing` looks for one all readings accept."""
FAR_WINDOWS = 48
FAR_WINDOW = 8
"""Past `SEARCH_STEPS`, windows of 2 * FAR_WINDOW + 1 multiples at doubling distances."""
MAX_DIGITS = 400
"""A common multiple with more digits than this is not searched for (untrusted schemas)."""


def exact(number: int | float) -> Fraction:
    """The decimal a JSON number is written as (`0.1` is 1/10, not the nearest binary)."""
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def is_multiple(value: int | float, factor: int | float) -> bool:
    """The specification's reading: `value / factor` is a whole number, computed exactly."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return (exact(value) / exact(factor)).denominator == 1


def _float_reading(value: int | float, factor: int | float) -> bool:
    """The `jsonschema` library's reading: binary division, exact only on overflow."""
    if isinstance(factor, float):
        try:
            quotient = value / factor
        except OverflowError:
            return False
        try:
            return int(quotient) == quotient
        except (OverflowError, ValueError):
            return (Fraction(value) / Fraction(factor)).denominator == 1
    return not value % factor


def agrees(value: int | float, factors: Iterable[int | float]) -> bool:
    """`value` is a multiple of every factor under every reading the oracles use."""
    return all(is_multiple(value, f) and _float_reading(value, f) for f in factors)


def common_multiple(factors: Iterable[int | float], integer: bool) -> Fraction | None:
    """The least positive common multiple (of 1 too when `integer`), or None past `MAX_DIGITS`."""
    result = Fraction(1) if integer else None
    for factor in factors:
        f = exact(factor)
        if result is None:
            result = f
            continue
        numerator = math.lcm(result.numerator, f.numerator)
        denominator = math.gcd(result.denominator, f.denominator)
        result = Fraction(numerator, denominator)
        if len(str(result.numerator)) + len(str(result.denominator)) > MAX_DIGITS:
            return None
    return result


def multiple_range(lo: int | float, hi: int | float, step: Fraction) -> tuple[int, int]:
    """The whole k with lo <= k * step <= hi (empty when the first exceeds the second)."""
    return math.ceil(exact(lo) / step), math.floor(exact(hi) / step)


def as_json(k: int, step: Fraction, integer: bool) -> int | float:
    """k * step as a JSON number: an int when it is whole, the nearest float otherwise."""
    product = k * step
    if product.denominator == 1 and (integer or abs(product.numerator) < 2**53):
        return product.numerator
    return float(product)


def nearest_agreeing(
    start: int,
    k_range: tuple[int, int],
    step: Fraction,
    factors: tuple[int | float, ...],
    integer: bool,
) -> int | float | None:
    """A multiple k * step that `agrees`: the closest to `start` within `SEARCH_STEPS`,
    else one in small windows at doubling distances (agreeing multiples come in
    clusters with wide gaps between them), else 0 or +-1 times the step."""
    low, high = k_range
    for distance in range(SEARCH_STEPS):
        for k in (start + distance, start - distance) if distance else (start,):
            if low <= k <= high and agrees(value := as_json(k, step, integer), factors):
                return value
    for power in range(FAR_WINDOWS):
        for centre in (start + SEARCH_STEPS * 2**power, start - SEARCH_STEPS * 2**power):
            for k in range(centre - FAR_WINDOW, centre + FAR_WINDOW + 1):
                if low <= k <= high and agrees(value := as_json(k, step, integer), factors):
                    return value
    for k in (0, 1, -1):
        if low <= k <= high and agrees(value := as_json(k, step, integer), factors):
            return value
    return None
