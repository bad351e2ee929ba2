"""The format registry: each checker's reading, the makers' edges and bounds, and the
law that matters most: every generated value passes, and every near-miss fails, the
engine's checker, `jsonschema` (with its format checker) and `jsonschema-rs` alike."""

from __future__ import annotations

from random import Random
from typing import Any

import jsonschema
import jsonschema_rs
import pytest

from toolfuzz_gate.core.schema.formats import FORMATS, length_range, lookup, make_string, make_value
from toolfuzz_gate.core.schema.keywords.formats import _near_miss

SEEDS = 400
CAP = 4096
BOUNDS = ((0, None), (0, 12), (5, 30), (20, None), (36, 36), (40, 80), (100, 300))

ACCEPTED: dict[str, tuple[str, ...]] = {
    "date-time": (
        "1963-06-19T08:30:06.283185Z",
        "2024-02-29T00:00:00Z",  # leap day
        "1998-12-31T23:59:60Z",  # leap second
        "1998-12-31T15:59:60.123-08:00",  # leap second at 23:59 UTC
        "9999-12-31T23:59:59+23:59",
        "0001-01-01T00:00:00-23:59",
        "1963-06-19t08:30:06z",
    ),
    "date": ("2000-02-29", "0400-02-29", "0001-01-01", "9999-12-31"),
    "time": ("23:59:60Z", "00:29:60-23:30", "08:30:06.1+23:59", "12:34:56-00:00"),
    "email": (
        "a@b",
        "joe.bloggs@example.com",
        '"joe@bloggs"@example.com',
        "joe@[127.0.0.1]",
        "joe@[IPv6:::1]",
        "x" * 64 + "@example.com",
    ),
    "uri": ("a:", "urn:x:y", "https://[::1]:8080/p?q#f", "mailto:a@b.c", "http://087.1.0.1/"),
    "uri-reference": ("", "/a", "?q", "#f", "//host", "./a:b", "a/b:c"),
    "uuid": ("00000000-0000-0000-0000-000000000000", "2EB8AA08-aa98-11ea-b4aa-73b441d16380"),
    "ipv4": ("0.0.0.0", "255.255.255.255", "10.20.30.40"),
    "ipv6": ("::", "::1", "1::", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "1:2:3:4:5:6:7::"),
    "hostname": (
        "a",
        "1host",
        "a--b.com",
        "xn--9n2bp8q.xn--9t4b11yi5a",
        "a" * 63 + ".com",
        ".".join(["b" * 63] * 3 + ["c" * 61]),  # 253 characters
    ),
}

REJECTED: dict[str, tuple[str, ...]] = {
    "date-time": (
        "1990-13-01T00:00:00Z",  # month 13
        "1990-02-30T00:00:00Z",  # February 30
        "1990-12-31 15:59:59Z",  # missing T
        "1990-12-31T24:00:00Z",
        "1998-12-31T23:58:60Z",  # leap second on the wrong minute
        "1990-12-31T15:59:59+24:00",
        "1990-12-31T15:59:59",  # no offset
        "1985-04-12T23:20:50Z\n",
        "1963-06-1\u09eaT00:00:00Z",  # a Bengali digit
    ),
    "date": ("2021-02-29", "2100-02-29", "1998-13-01", "2020-1-01", "2020/01/01", "2020-01-01\n"),
    "time": ("24:00:00Z", "12:00:00", "23:59:60+01:00", "08:30:06 PST", "1\u09e8:00:00Z"),
    # (first: no `@`, which is all the jsonschema library's email checker looks for)
    "email": ("a.b.c", "a@", "@b.c", ".a@b.c", "a..b@c.d", "a b@c.d", "a@b_c.d", "a@-b.c"),
    "uri": ("/relative", "abc", "http:// x", "1http://a", "http://a/%zz", "http://a/\\b", ""),
    "uri-reference": ("/a b", "\\a", "%g", "1:b", "//a@b@c/", "//[::ffff:1.2.3.04]/"),
    "uuid": (
        "2eb8aa08-aa98-11ea-b4ga-73b441d16380",  # a bad hex digit
        "2eb8aa08aa9811eab4aa73b441d16380",
        "2eb8aa08-aa98-11ea-b4aa-73b441d16380\n",
        "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
    ),
    "ipv4": ("256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1.2.3.4\n", "\uff11.2.3.4"),
    "ipv6": ("12345::", "1::2::3", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7", "::1%eth0", "[::1]"),
    "hostname": (
        "-host",  # a label starting with a hyphen
        "host-",
        "host_name",
        "example.",
        "a" * 64,
        "ab--cd",
        "xn--X",
        "\u212aelvin.example",
        ".".join(["b" * 63] * 3 + ["c" * 62]),  # 254 characters
    ),
}


def _python_checker(name: str) -> Any:
    schema = {"format": name}
    cls = jsonschema.Draft202012Validator
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _rust_checker(name: str) -> Any:
    return jsonschema_rs.Draft202012Validator({"format": name}, validate_formats=True)


def test_every_format_has_its_examples() -> None:
    assert set(ACCEPTED) == set(FORMATS) == set(REJECTED)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_checker_reads_the_rfc(name: str) -> None:
    check = FORMATS[name].check
    assert [v for v in ACCEPTED[name] if not check(v)] == []
    assert [v for v in REJECTED[name] if check(v)] == []


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_the_python_oracle_really_checks_the_format(name: str) -> None:
    """jsonschema skips a format silently when its optional package is missing."""
    assert name in jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers
    assert not _python_checker(name).is_valid(REJECTED[name][0])


def test_draft_07_has_no_uuid() -> None:
    assert lookup("uuid", "draft-07") is None
    assert lookup("uuid", "2020-12") is FORMATS["uuid"]
    assert lookup("date", "draft-07") is FORMATS["date"]
    assert lookup("int32", "2020-12") is None


EDGES = {
    "date-time": ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999+23:59"),
    "date": ("0001-01-01", "9999-12-31"),
    "time": ("00:00:00Z", "23:59:59.999999+23:59"),
    "uuid": ("00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
    "ipv4": ("0.0.0.0", "255.255.255.255"),
    "ipv6": ("::", "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255"),
    "uri": ("a:", None),
    "uri-reference": ("", None),
    "email": ("a@a", None),
    "hostname": ("a", ".".join(["z" * 63] * 3 + ["z" * 61])),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_low_and_high_reach_the_ends(name: str) -> None:
    low, high = EDGES[name]
    assert make_value(name, Random(0), "low", 0, None, CAP) == low
    made = make_value(name, Random(0), "high", 0, None, CAP)
    assert made is not None and FORMATS[name].check(made)
    if high is not None:
        assert made == high


def test_mixed_reaches_the_interesting_values() -> None:
    def mixed(name: str) -> set[str]:
        return {make_value(name, Random(s), "mixed", 0, None, CAP) or "" for s in range(300)}

    assert any(v.endswith("-02-29") for v in mixed("date"))
    assert any("-02-29T" in v for v in mixed("date-time"))
    assert any(v.endswith(("+23:59", "-23:59")) for v in mixed("time"))
    assert "::" in mixed("ipv6") and any("." in v for v in mixed("ipv6"))
    assert any(max(len(label) for label in v.split(".")) == 63 for v in mixed("hostname"))
    # a quarter of the mixed draws are edge values; the rest stay distinct
    assert len(mixed("uuid")) > 200


def test_mixed_reaches_the_edge_values() -> None:
    def mixed(name: str) -> set[str]:
        return {make_value(name, Random(s), "mixed", 0, None, CAP) or "" for s in range(300)}

    assert "2024-02-29T23:59:59.999999+14:00" in mixed("date-time")
    assert any(v.endswith("-12:00") for v in mixed("time"))
    assert "::ffff:192.0.2.1" in mixed("ipv6")
    assert "https://user:pass@example.com:8080/" in mixed("uri")
    assert "" in mixed("uri-reference")
    assert "o'brien@example.com" in mixed("email")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_edge_values_conform_and_fit(name: str) -> None:
    entry = FORMATS[name]
    assert entry.edges, "every format has edge values"
    for value in entry.edges:
        assert entry.check(value) and entry.fits(len(value)), value
        assert entry.longest is None or len(value) <= entry.longest


def test_edge_values_keep_the_length_bounds() -> None:
    # only edges whose length fits are drawn: a date-time of exactly 20 is never the 32 one
    for seed in range(200):
        value = make_value("date-time", Random(seed), "mixed", 20, 20, CAP)
        assert value is not None and len(value) == 20


@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize(("low", "high"), BOUNDS)
def test_values_respect_length_bounds(name: str, low: int, high: int | None) -> None:
    lengths = length_range(name, low, high, CAP)
    for seed in range(20):
        for mode in ("low", "high", "mixed"):
            value = make_value(name, Random(seed), mode, low, high, CAP)
            if lengths is None:
                assert value is None
                continue
            assert value is not None
            assert low <= len(value) and (high is None or len(value) <= high)
            assert FORMATS[name].check(value), value


def test_impossible_lengths() -> None:
    assert length_range("date", 0, 9, CAP) is None
    assert length_range("date", 11, None, CAP) is None
    assert length_range("time", 10, 10, CAP) is None  # HH:MM:SSZ is 9; a fraction needs 2 more
    assert length_range("ipv4", 16, None, CAP) is None
    assert length_range("uuid", 0, 35, CAP) is None
    assert length_range("hostname", 254, None, CAP) is None
    assert length_range("uri", 1000, None, CAP) == range(1000, 1001)


def test_a_merged_node_gets_a_value_of_every_format() -> None:
    for seed in range(50):
        value = make_string(("uri", "uri-reference"), Random(seed), "mixed", 0, None, CAP)
        assert value is not None and FORMATS["uri"].check(value)
    assert make_string(("date", "ipv4"), Random(0), "low", 0, None, CAP) is None


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_all_three_validators_agree_on_values_and_near_misses(name: str) -> None:
    entry = FORMATS[name]
    python, rust = _python_checker(name), _rust_checker(name)
    disputed: list[str] = []
    made: dict[str, int] = {}
    for seed in range(SEEDS):
        rng = Random(seed)
        low, high = BOUNDS[seed % len(BOUNDS)]
        for mode in ("low", "high", "mixed"):
            value = make_value(name, rng, mode, low, high, CAP)
            if value is not None:
                verdicts = (entry.check(value), python.is_valid(value), rust.is_valid(value))
                if verdicts != (True, True, True):
                    disputed.append(f"valid {value!r}: {verdicts}")
        for miss in entry.near_misses:
            bad = _near_miss(entry, miss, rng, 0, None, CAP)
            if bad is None:
                continue
            made[miss.variant] = made.get(miss.variant, 0) + 1
            verdicts = (entry.check(bad), python.is_valid(bad), rust.is_valid(bad))
            if verdicts != (False, False, False):
                disputed.append(f"{miss.variant} {bad!r}: {verdicts}")
    assert disputed == []
    # Every variant applies to most values (some need a value with, say, a hex letter).
    assert {m.variant for m in entry.near_misses} == set(made)
    assert min(made.values()) > SEEDS // 2, made
