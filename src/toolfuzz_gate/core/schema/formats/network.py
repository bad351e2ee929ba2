"""`ipv4`, `ipv6` and `hostname`: checkers, seeded makers, near-misses (pure).

`ipv4` is the dotted quad of RFC 2673 without leading zeros (`01.2.3.4` is ambiguous: some
parsers read it as octal). `ipv6` is RFC 4291 section 2.2: eight groups of one to four hex
digits, one `::` standing for at least one zero group, an optional dotted-quad tail; no zone
and no brackets. `hostname` is RFC 1123 as the 2020-12 specification reads it: dot-separated
labels of letters, digits and inner hyphens, each at most 63 characters, at most 253 in all,
no trailing dot, no `--` in the third and fourth position unless the label is a valid
IDNA A-label (`xn--...`, checked with the `idna` package's IDNA 2008 tables).
"""

from __future__ import annotations

import re
from random import Random

import idna

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.formats.format_type import (
    ALNUM,
    HEX,
    LOWER,
    Format,
    NearMiss,
    replace_at,
    spread,
)

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
IPV4_RE = re.compile(_OCTET + r"(?:\." + _OCTET + "){3}")
_GROUP = re.compile(r"[0-9A-Fa-f]{1,4}")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
MAX_HOSTNAME = 253
MAX_LABEL = 63
IPV6_LONGEST = 45  # ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255


def is_ipv4(text: str) -> bool:
    return IPV4_RE.fullmatch(text) is not None


def _pieces(part: str, tail: bool) -> int | None:
    """How many 16-bit pieces a `:`-separated run spells, or None if it is malformed."""
    if not part:
        return 0
    fields = part.split(":")
    count = 0
    for index, field in enumerate(fields):
        if tail and index == len(fields) - 1 and "." in field:
            if not is_ipv4(field):
                return None
            count += 2
        elif _GROUP.fullmatch(field):
            count += 1
        else:
            return None
    return count


def is_ipv6(text: str) -> bool:
    head, compressed, rest = text.partition("::")
    if not compressed:
        return _pieces(text, tail=True) == 8
    if "::" in rest:
        return False
    left, right = _pieces(head, tail=False), _pieces(rest, tail=True)
    return left is not None and right is not None and left + right <= 7


def _a_label_ok(label: str) -> bool:
    try:
        idna.decode(label)
    except (idna.IDNAError, UnicodeError):
        return False
    return True


def is_hostname(text: str) -> bool:
    if not text or len(text) > MAX_HOSTNAME or not text.isascii():
        return False
    for label in text.split("."):
        if _LABEL.fullmatch(label) is None:
            return False
        if label[2:4] == "--" and not (label[:2].lower() == "xn" and _a_label_ok(label)):
            return False
    return True


def _octet(rng: Random, mode: str, digits: int) -> str:
    low, high = {1: (0, 9), 2: (10, 99), 3: (100, 255)}[digits]
    value = low if mode == LOW else high if mode == HIGH else rng.randint(low, high)
    return str(value)


def _make_ipv4(rng: Random, mode: str, length: int) -> str:
    sizes = spread(rng, mode, length - 3, 4, 1, 3)
    return ".".join(_octet(rng, mode, size) for size in sizes)


def _groups(rng: Random, mode: str, digits: int, count: int) -> list[str]:
    if count == 0:
        return []
    sizes = spread(rng, mode, digits, count, 1, 4)
    upper = mode == MIXED and rng.random() < 0.2
    groups = []
    for size in sizes:
        group = "".join(
            "0" if mode == LOW else "f" if mode == HIGH else rng.choice(HEX) for _ in range(size)
        )
        groups.append(group.upper() if upper else group)
    return groups


def _ipv6_shapes(length: int) -> list[tuple[str, int]]:
    """The spellings that reach exactly `length`: (`::` with n groups | full | dotted tail)."""
    shapes = [("compressed", n) for n in range(7) if 2 * n + 1 <= length <= 5 * n + 1]
    if length == 2:
        shapes.insert(0, ("compressed", 0))
    if 15 <= length <= 39:
        shapes.append(("full", 8))
    if 19 <= length <= IPV6_LONGEST:
        shapes.append(("dotted", 6))
    return shapes


def _make_ipv6(rng: Random, mode: str, length: int) -> str:
    shapes = _ipv6_shapes(length)
    kind, count = shapes[0] if mode == LOW else shapes[-1] if mode == HIGH else rng.choice(shapes)
    if kind == "full":
        return ":".join(_groups(rng, mode, length - 7, 8))
    if kind == "dotted":
        quad = min(15, length - 12) if mode == HIGH else max(7, length - 30)
        if mode == MIXED:
            quad = rng.randint(max(7, length - 30), min(15, length - 12))
        groups = _groups(rng, mode, length - 6 - quad, 6)
        return ":".join(groups) + ":" + _make_ipv4(rng, mode, quad)
    # Both sides non-empty costs one character less than `::` at an end.
    split = 0
    if mode == MIXED and count >= 2 and count <= length - count <= 4 * count:
        split = rng.randint(1, count - 1)
    if mode == HIGH and count >= 1:
        split = count
    digits = length - count - (0 if 0 < split < count else 1) if count else 0
    groups = _groups(rng, mode, digits, count)
    return ":".join(groups[:split]) + "::" + ":".join(groups[split:])


def _label(rng: Random, mode: str, size: int, last: bool) -> str:
    if mode == LOW:
        return "a" * size
    if mode == HIGH:
        return "z" * size
    chars = []
    for index in range(size):
        inner = 0 < index < size - 1 and index != 3  # never `--` in the 3rd and 4th position
        if index == 0 and last:
            chars.append(rng.choice(LOWER))  # a last label starting with a letter: not a number
        elif inner and rng.random() < 0.1:
            chars.append("-")
        else:
            chars.append(rng.choice(ALNUM))
    text = "".join(chars)
    return text.upper() if rng.random() < 0.1 else text


def _make_hostname(rng: Random, mode: str, length: int) -> str:
    fewest = -(-(length + 1) // (MAX_LABEL + 1))
    most = (length + 1) // 2
    count = fewest if mode != MIXED else rng.randint(fewest, min(most, fewest + 3))
    sizes = spread(rng, HIGH if mode == LOW else mode, length - (count - 1), count, 1, MAX_LABEL)
    return ".".join(_label(rng, mode, size, index == count - 1) for index, size in enumerate(sizes))


def _ipv4_octet_256(value: str, rng: Random) -> str:
    parts = value.split(".")
    parts[rng.randrange(4)] = "256"
    return ".".join(parts)


def _ipv4_leading_zero(value: str, rng: Random) -> str:
    parts = value.split(".")
    index = rng.randrange(4)
    parts[index] = "0" + parts[index]
    return ".".join(parts)


def _ipv4_three_parts(value: str, rng: Random) -> str:
    return value.rsplit(".", 1)[0]


def _ipv4_five_parts(value: str, rng: Random) -> str:
    return value + ".1"


def _ipv6_five_digits(value: str, rng: Random) -> str:
    return "12345" + (value if value.startswith(":") else value[5:])


def _ipv6_two_gaps(value: str, rng: Random) -> str:
    if "::" in value:
        return value.replace("::", "::0::", 1) if len(value) > 2 else "1::2::3"
    return "1::2::3"


def _ipv6_bad_digit(value: str, rng: Random) -> str | None:
    spots = [i for i, c in enumerate(value) if c in HEX or c in HEX.upper()]
    return replace_at(value, rng.choice(spots), "g") if spots else None


def _ipv6_too_many(value: str, rng: Random) -> str:
    return "1:2:3:4:5:6:7:8:9"


def _host_leading_hyphen(value: str, rng: Random) -> str:
    return replace_at(value, 0, "-")


def _host_trailing_hyphen(value: str, rng: Random) -> str:
    return value[:-1] + "-"


def _host_underscore(value: str, rng: Random) -> str:
    return replace_at(value, rng.randrange(len(value)), "_")


def _host_leading_dot(value: str, rng: Random) -> str:
    return replace_at(value, 0, ".")


def _host_label_too_long(value: str, rng: Random) -> str:
    long = "a" * (MAX_LABEL + 1)
    rest = value.split(".", 1)
    return long + ("." + rest[1] if len(rest) == 2 else "")


IPV4 = Format(
    "ipv4",
    is_ipv4,
    _make_ipv4,
    lambda n: 7 <= n <= 15,
    7,
    15,
    15,
    (
        NearMiss("octet-256", _ipv4_octet_256),
        NearMiss("leading-zero", _ipv4_leading_zero),
        NearMiss("three-parts", _ipv4_three_parts),
        NearMiss("five-parts", _ipv4_five_parts),
    ),
    edges=("0.0.0.0", "255.255.255.255", "127.0.0.1", "169.254.169.254", "10.0.0.1"),
)
IPV6 = Format(
    "ipv6",
    is_ipv6,
    _make_ipv6,
    lambda n: 2 <= n <= IPV6_LONGEST,
    2,
    IPV6_LONGEST,
    IPV6_LONGEST,
    (
        NearMiss("five-hex-digits", _ipv6_five_digits),
        NearMiss("two-double-colons", _ipv6_two_gaps),
        NearMiss("non-hex-digit", _ipv6_bad_digit),
        NearMiss("nine-groups", _ipv6_too_many),
    ),
    edges=(
        "::ffff:192.0.2.1",
        "::",
        "::1",
        "2001:db8::192.0.2.33",
        "64:ff9b::198.51.100.7",
        "fe80::1",
        "2001:DB8:0:0:0:0:0:1",
    ),
)
HOSTNAME = Format(
    "hostname",
    is_hostname,
    _make_hostname,
    lambda n: 1 <= n <= MAX_HOSTNAME,
    1,
    MAX_HOSTNAME,
    MAX_HOSTNAME,
    (
        NearMiss("leading-hyphen", _host_leading_hyphen),
        NearMiss("trailing-hyphen", _host_trailing_hyphen),
        NearMiss("underscore", _host_underscore),
        NearMiss("leading-dot", _host_leading_dot),
        NearMiss("label-too-long", _host_label_too_long),
    ),
    edges=("localhost", "xn--bcher-kva.example", "a", "a-b.c-d.example", "x" * 63 + ".example"),
)
