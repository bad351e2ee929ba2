"""A small geocoder with the two faults agent mode is for (an example, not a real service).

Its documentation leaves the country optional and says nothing of what happens without
one: the first city of that name in the table is returned, so "Paris" is Paris, Texas
(the ToolFuzz paper found the same in an OpenStreetMap tool). And its code looks the
country up without checking it: a country it does not know crashes the tool instead of
being refused cleanly (the planted runtime failure).
"""

from __future__ import annotations

from typing import Any

COUNTRY_CODES = {"france": "FR", "united states": "US", "germany": "DE"}
PLACES = [  # the order a search returns them in
    ("Paris", "US", 33.6609, -95.5555),
    ("Paris", "FR", 48.8566, 2.3522),
    ("Springfield", "US", 39.7817, -89.6501),
    ("Berlin", "DE", 52.52, 13.405),
]


class Refused(Exception):
    """A clean refusal, with its code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def geocode(city: Any = None, country: Any = None, limit: Any = 1, **other: Any) -> dict[str, Any]:
    if other:
        raise Refused("unknown_argument", f"unknown argument {sorted(other)[0]!r}")
    if not _text(city):
        raise Refused("invalid_city", "city must be a string of 1 to 40 characters")
    if country is not None and not _text(country):
        raise Refused("invalid_country", "country must be a string of 1 to 40 characters")
    whole = isinstance(limit, int | float) and not isinstance(limit, bool) and limit == int(limit)
    if not whole or not 1 <= limit <= 5:
        raise Refused("invalid_limit", "limit must be an integer from 1 to 5")
    code = None if country is None else COUNTRY_CODES[country.casefold()]  # the planted bug
    found = [
        {"city": name, "country": where, "lat": lat, "lon": lon}
        for name, where, lat, lon in PLACES
        if name.casefold() == city.casefold() and code in (None, where)
    ]
    if not found:
        raise Refused("not_found", f"no city {city!r}" + (f" in {country!r}" if country else ""))
    return {"results": found[: int(limit)]}


def _text(value: Any) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= 40
