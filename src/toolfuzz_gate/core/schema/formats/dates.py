"""RFC 3339 `date-time`, `date` and `time`: checkers, seeded makers, near-misses (pure).

The checkers follow RFC 3339 section 5.6 as the 2020-12 specification reads it: four-digit
years, months and days within the (proleptic Gregorian) calendar, `T`/`Z` in either case,
numeric offsets up to 23:59, and a leap second (`:60`) only at 23:59 UTC once the offset is
taken away. The makers never produce a leap second or the year 0000: the `jsonschema`
library's checker refuses both, and a generated value must pass every validator.
"""

from __future__ import annotations

import calendar
import re
from random import Random

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.formats.format_type import (
    DIGITS,
    Corrupt,
    Format,
    NearMiss,
    replace_at,
)

_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
DATE_RE = re.compile(_DATE)
TIME_RE = re.compile(_TIME)
DATE_TIME_RE = re.compile(_DATE + "[Tt]" + _TIME)

DATE_LENGTH = 10
TIME_BASE = 8  # HH:MM:SS
DATE_TIME_BASE = 19  # YYYY-MM-DDTHH:MM:SS
LAST_MINUTE = 23 * 60 + 59
MINUTES_PER_DAY = 24 * 60

DATE_EDGES = ((2000, 2, 29), (2024, 2, 29), (1970, 1, 1), (1999, 12, 31), (2100, 2, 28))
TIME_EDGES = ((0, 0, 0), (23, 59, 59), (12, 0, 0))
OFFSET_EDGES = ("Z", "z", "+00:00", "-00:00", "+23:59", "-23:59")


def _date_ok(year: str, month: str, day: str) -> bool:
    m = int(month)
    if not 1 <= m <= 12:
        return False
    return 1 <= int(day) <= calendar.monthrange(int(year) or 2000, m)[1]


def _time_ok(groups: tuple[str | None, ...]) -> bool:
    hour, minute, second, zulu, sign, off_hour, off_minute = groups
    assert hour is not None and minute is not None and second is not None
    h, m, s = int(hour), int(minute), int(second)
    if h > 23 or m > 59 or s > 60:
        return False
    offset = 0
    if zulu is None:
        assert off_hour is not None and off_minute is not None
        if int(off_hour) > 23 or int(off_minute) > 59:
            return False
        offset = (int(off_hour) * 60 + int(off_minute)) * (1 if sign == "+" else -1)
    # A leap second is the last second of a UTC day: 23:59:60 once the offset is removed.
    return s < 60 or (h * 60 + m - offset) % MINUTES_PER_DAY == LAST_MINUTE


def is_date(text: str) -> bool:
    match = DATE_RE.fullmatch(text)
    return match is not None and _date_ok(*match.groups())


def is_time(text: str) -> bool:
    match = TIME_RE.fullmatch(text)
    return match is not None and _time_ok(match.groups())


def is_date_time(text: str) -> bool:
    match = DATE_TIME_RE.fullmatch(text)
    if match is None:
        return False
    groups = match.groups()
    return _date_ok(*groups[:3]) and _time_ok(groups[3:])


def _date(rng: Random, mode: str) -> str:
    if mode == LOW:
        year, month, day = 1, 1, 1
    elif mode == HIGH:
        year, month, day = 9999, 12, 31
    elif rng.random() < 0.5:
        year, month, day = rng.choice(DATE_EDGES)
    else:
        year, month = rng.randint(1, 9999), rng.randint(1, 12)
        day = rng.randint(1, calendar.monthrange(year, month)[1])
    return f"{year:04d}-{month:02d}-{day:02d}"


def _clock(rng: Random, mode: str) -> str:
    if mode == LOW:
        hour, minute, second = TIME_EDGES[0]
    elif mode == HIGH:
        hour, minute, second = TIME_EDGES[1]
    elif rng.random() < 0.5:
        hour, minute, second = rng.choice(TIME_EDGES)
    else:
        hour, minute, second = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
    return f"{hour:02d}:{minute:02d}:{second:02d}"


def _offset(rng: Random, mode: str, numeric: bool) -> str:
    if not numeric:
        return "z" if mode == MIXED and rng.random() < 0.2 else "Z"
    if mode == LOW:
        return "+00:00"
    if mode == HIGH:
        return "+23:59"
    if rng.random() < 0.5:
        return rng.choice([e for e in OFFSET_EDGES if len(e) > 1])
    sign = rng.choice("+-")
    return f"{sign}{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"


def _tail_fits(rest: int) -> bool:
    """After HH:MM:SS: an offset (1 or 6 characters) and an optional `.d+` fraction."""
    return rest == 1 or rest >= 3


def _tail(rng: Random, mode: str, rest: int) -> str:
    """An offset and fraction of exactly `rest` characters (`_tail_fits(rest)`)."""
    numeric = mode == HIGH or (mode == MIXED and rng.random() < 0.5)
    if numeric and not (rest == 6 or rest >= 8):
        numeric = False
    if not numeric and not (rest == 1 or rest >= 3):
        numeric = True
    size = rest - (6 if numeric else 1)
    fraction = ""
    if size:
        digits = "".join(
            "0" if mode == LOW else "9" if mode == HIGH else rng.choice(DIGITS)
            for _ in range(size - 1)
        )
        fraction = "." + digits
    return fraction + _offset(rng, mode, numeric)


def _make_date(rng: Random, mode: str, length: int) -> str:
    return _date(rng, mode)


def _make_time(rng: Random, mode: str, length: int) -> str:
    return _clock(rng, mode) + _tail(rng, mode, length - TIME_BASE)


def _make_date_time(rng: Random, mode: str, length: int) -> str:
    separator = "t" if mode == MIXED and rng.random() < 0.1 else "T"
    return _date(rng, mode) + separator + _make_time(rng, mode, length - DATE_LENGTH - 1)


# Near-misses. Each keeps the value's length where it can, so minLength/maxLength still hold.
def _overwrite(start: int, new: str) -> Corrupt:
    def corrupt(value: str, rng: Random) -> str:
        return replace_at(value, start, new)

    return corrupt


def _slashes(value: str, rng: Random) -> str:
    return replace_at(replace_at(value, 4, "/"), 7, "/")


def _space_for_t(value: str, rng: Random) -> str:
    return replace_at(value, DATE_LENGTH, " ")


def _wrong_leap_second(start: int) -> NearMiss:
    # 12:00:60 is a leap second only under an offset of +12:01; the recipe re-checks.
    return NearMiss("leap-second-wrong-minute", _overwrite(start, "12:00:60"))


def _no_offset(start: int) -> NearMiss:
    def corrupt(value: str, rng: Random) -> str:
        return value[: start + TIME_BASE]

    return NearMiss("no-offset", corrupt)


def _offset_hour_24(value: str, rng: Random) -> str:
    if value[-1] in "Zz":
        return value[:-1] + "+24:00"  # six characters for one: the recipe checks the length
    return replace_at(value, len(value) - 5, "24")


def _time_misses(start: int) -> tuple[NearMiss, ...]:
    return (
        NearMiss("hour-24", _overwrite(start, "24")),
        NearMiss("minute-60", _overwrite(start + 3, "60")),
        NearMiss("second-61", _overwrite(start + 6, "61")),
        _wrong_leap_second(start),
        NearMiss("offset-hour-24", _offset_hour_24),
        _no_offset(start),
    )


_DATE_MISSES = (
    NearMiss("month-13", _overwrite(5, "13")),
    NearMiss("day-32", _overwrite(8, "32")),
    NearMiss("february-30", _overwrite(5, "02-30")),
    NearMiss("not-a-leap-year", _overwrite(0, "2021-02-29")),
    NearMiss("slash-separated", _slashes),
)

DATE = Format(
    "date",
    is_date,
    _make_date,
    lambda n: n == DATE_LENGTH,
    DATE_LENGTH,
    DATE_LENGTH,
    DATE_LENGTH,
    _DATE_MISSES,
    edges=("2024-02-29", "2000-02-29", "1900-02-28", "2100-02-28", "1999-12-31", "1970-01-01"),
)
TIME = Format(
    "time",
    is_time,
    _make_time,
    lambda n: _tail_fits(n - TIME_BASE),
    TIME_BASE + 1,
    None,
    TIME_BASE + 13,
    _time_misses(0),
    edges=("23:59:59.999999Z", "00:00:00+14:00", "23:59:59-12:00", "12:30:00+05:45", "00:00:00z"),
)
DATE_TIME = Format(
    "date-time",
    is_date_time,
    _make_date_time,
    lambda n: _tail_fits(n - DATE_TIME_BASE),
    DATE_TIME_BASE + 1,
    None,
    DATE_TIME_BASE + 13,
    (*_DATE_MISSES, NearMiss("space-for-T", _space_for_t), *_time_misses(DATE_LENGTH + 1)),
    edges=(
        "2024-02-29T23:59:59.999999+14:00",
        "2000-02-29T00:00:00Z",
        "1999-12-31T23:59:59-12:00",
        "2024-12-31T23:59:59.5+05:45",
        "1970-01-01T00:00:00.000Z",
        "2100-02-28T23:59:59-00:00",
        "2024-03-10T02:30:00-05:00",
    ),
)
