"""`uuid`, `email`, `uri` and `uri-reference`: checkers, seeded makers, near-misses (pure).

`uuid` is RFC 4122's 8-4-4-4-12 hex spelling (any version and variant nibble). `email` is
the common subset of RFC 5321's Mailbox: a dot-string or quoted-string local part of at
most 64 characters, then a hostname or an IPv4 / `IPv6:` address literal, at most 254 in
all. `uri` is RFC 3986's `URI` (a scheme is required) and `uri-reference` its
`URI-reference`; both are checked against the ABNF itself, host literals included.
Every near-miss of `email` lacks the `@`: the `jsonschema` library checks nothing else.
"""

from __future__ import annotations

import re
from random import Random

from toolfuzz_gate.core.schema.draw_modes import HIGH, LOW, MIXED
from toolfuzz_gate.core.schema.formats.format_type import (
    ALNUM,
    Format,
    NearMiss,
    replace_at,
)
from toolfuzz_gate.core.schema.formats.network import (
    HOSTNAME,
    MAX_HOSTNAME,
    is_hostname,
    is_ipv4,
    is_ipv6,
)

UUID_RE = re.compile(r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}")
UUID_LENGTH = 36

_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
DOT_STRING_RE = re.compile(_ATOM + r"(?:\." + _ATOM + ")*")
QUOTED_RE = re.compile(r'"(?:[ !#-\[\]-~]|\\[ -~])*"')
MAX_LOCAL = 64
MAX_EMAIL = 254

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_SEGMENT = rf"{_PCHAR}*"
_SEGMENT_NZ = rf"{_PCHAR}+"
_SEGMENT_NZ_NC = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}@]|{_PCT})+"
_PATH_ABEMPTY = rf"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = rf"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_PATH_ROOTLESS = rf"{_SEGMENT_NZ}(?:/{_SEGMENT})*"
_PATH_NOSCHEME = rf"{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*"
_QUERY = rf"(?:{_PCHAR}|[/?])*"
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*"
_TAIL = rf"(?:\?{_QUERY})?(?:#{_QUERY})?"
URI_RE = re.compile(
    rf"{_SCHEME}:(?://(?P<authority>[^/?#]*){_PATH_ABEMPTY}"
    rf"|{_PATH_ABSOLUTE}|{_PATH_ROOTLESS}|){_TAIL}"
)
RELATIVE_RE = re.compile(
    rf"(?://(?P<authority>[^/?#]*){_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_NOSCHEME}|){_TAIL}"
)
_USERINFO_RE = re.compile(rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*")
_REG_NAME_RE = re.compile(rf"(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*")
_IPV_FUTURE_RE = re.compile(rf"[Vv][0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+")
_PORT_RE = re.compile(r"[0-9]*")


def is_uuid(text: str) -> bool:
    return UUID_RE.fullmatch(text) is not None


def _domain_ok(domain: str) -> bool:
    if domain.startswith("[IPv6:") and domain.endswith("]"):
        return is_ipv6(domain[6:-1])
    if domain.startswith("[") and domain.endswith("]"):
        return is_ipv4(domain[1:-1])
    return is_hostname(domain)


def is_email(text: str) -> bool:
    local, at, domain = text.rpartition("@")
    if not at or len(text) > MAX_EMAIL or len(local) > MAX_LOCAL:
        return False
    quoted = QUOTED_RE.fullmatch(local) is not None
    return (quoted or DOT_STRING_RE.fullmatch(local) is not None) and _domain_ok(domain)


def _authority_ok(authority: str | None) -> bool:
    if authority is None:
        return True
    userinfo, at, rest = authority.rpartition("@")
    if at and _USERINFO_RE.fullmatch(userinfo) is None:
        return False
    if rest.startswith("["):
        literal, bracket, port = rest[1:].partition("]")
        if not bracket or not (is_ipv6(literal) or _IPV_FUTURE_RE.fullmatch(literal)):
            return False
        return port == "" or (port[0] == ":" and _PORT_RE.fullmatch(port[1:]) is not None)
    host, _, port = rest.partition(":")
    return _REG_NAME_RE.fullmatch(host) is not None and _PORT_RE.fullmatch(port) is not None


def is_uri(text: str) -> bool:
    match = URI_RE.fullmatch(text)
    return match is not None and _authority_ok(match.group("authority"))


def is_uri_reference(text: str) -> bool:
    if is_uri(text):
        return True
    match = RELATIVE_RE.fullmatch(text)
    return match is not None and _authority_ok(match.group("authority"))


def _make_uuid(rng: Random, mode: str, length: int) -> str:
    if mode == LOW:
        digits = "0" * 32
    elif mode == HIGH:
        digits = "f" * 32
    else:
        digits = f"{rng.getrandbits(128):032x}"
        if rng.random() < 0.5:  # a version-4 shape, as most callers send
            digits = digits[:12] + "4" + digits[13:16] + rng.choice("89ab") + digits[17:]
        if rng.random() < 0.2:
            digits = digits.upper()
    return "-".join((digits[:8], digits[8:12], digits[12:16], digits[16:20], digits[20:]))


_LOCAL_CHARS = ALNUM + "_+-"


def _local(rng: Random, mode: str, size: int) -> str:
    if mode == LOW:
        return "a" * size
    if mode == HIGH:
        return "z" * size
    chars = [rng.choice(_LOCAL_CHARS) for _ in range(size)]
    for index in range(1, size - 1):  # inner dots, never two in a row
        if chars[index - 1] != "." and rng.random() < 0.1:
            chars[index] = "."
    return "".join(chars)


def _email_fits(length: int) -> bool:
    return 3 <= length <= MAX_EMAIL


def _make_email(rng: Random, mode: str, length: int) -> str:
    least = max(1, length - 1 - MAX_HOSTNAME)
    most = min(MAX_LOCAL, length - 2)
    if mode == LOW:
        size = least
    elif mode == HIGH:
        size = most
    else:
        size = rng.randint(least, most)
    return _local(rng, mode, size) + "@" + HOSTNAME.make(rng, mode, length - 1 - size)


_PAD = ALNUM + "-._~!$()*+,;="
# (prefix, suffix) around a run of path characters; every template is a valid URI as is.
URI_TEMPLATES = (
    ("a:", ""),
    ("urn:example:", ""),
    ("mailto:", "@example.com"),
    ("http://example.com/", ""),
    ("https://[::1]:8080/", "?q=1"),
    ("ftp://user:pass@203.0.113.9/", "#top"),
    ("https://user@example.com:65535/", "?q=a&r=b#frag"),
)
REFERENCE_TEMPLATES = (("", ""), ("/", ""), ("?", ""), ("#", ""), ("//example.com/", ""))


def _padded(rng: Random, mode: str, length: int, templates: tuple[tuple[str, str], ...]) -> str:
    fitting = [t for t in templates if len(t[0]) + len(t[1]) <= length]
    if mode == LOW:
        prefix, suffix = fitting[0]
    elif mode == HIGH:
        prefix, suffix = fitting[-1]
    else:
        prefix, suffix = rng.choice(fitting)
    size = length - len(prefix) - len(suffix)
    if mode == LOW:
        pad = "a" * size
    elif mode == HIGH:
        pad = "z" * size
    else:
        pad = "".join(rng.choice(_PAD) for _ in range(size))
    return prefix + pad + suffix


def _make_uri(rng: Random, mode: str, length: int) -> str:
    return _padded(rng, mode, length, URI_TEMPLATES)


def _make_uri_reference(rng: Random, mode: str, length: int) -> str:
    if mode == MIXED and rng.random() < 0.5 and length >= 2:
        return _make_uri(rng, mode, length)
    return _padded(rng, mode, length, REFERENCE_TEMPLATES)


def _uuid_bad_digit(value: str, rng: Random) -> str:
    spots = [i for i, c in enumerate(value) if c != "-"]
    return replace_at(value, rng.choice(spots), "g")


def _uuid_dash_moved(value: str, rng: Random) -> str:
    return value[:7] + "-" + value[7] + value[9:]


def _email_no_at(value: str, rng: Random) -> str:
    return value.replace("@", ".")


def _email_space_for_at(value: str, rng: Random) -> str:
    return value.replace("@", " ")


def _anywhere(new: str) -> NearMiss:
    """A character that RFC 3986 allows nowhere in a URI, anywhere in it."""

    def corrupt(value: str, rng: Random) -> str | None:
        return replace_at(value, rng.randrange(len(value)), new) if value else None

    return NearMiss({" ": "space", "\\": "backslash", '"': "double-quote"}[new], corrupt)


def _bad_percent(value: str, rng: Random) -> str | None:
    if len(value) < 2:
        return None
    return replace_at(value, rng.randrange(len(value) - 1), "%g")


def _scheme_digit(value: str, rng: Random) -> str:
    return replace_at(value, 0, "1")


_URI_MISSES = (
    _anywhere(" "),
    _anywhere("\\"),
    _anywhere('"'),
    NearMiss("bad-percent", _bad_percent),
)

UUID = Format(
    "uuid",
    is_uuid,
    _make_uuid,
    lambda n: n == UUID_LENGTH,
    UUID_LENGTH,
    UUID_LENGTH,
    UUID_LENGTH,
    (NearMiss("non-hex-digit", _uuid_bad_digit), NearMiss("dash-moved", _uuid_dash_moved)),
    frozenset({"2020-12"}),
    edges=(
        "00000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "A987FBC9-4BED-3078-CF07-9141BA07C9F3",
    ),
)
EMAIL = Format(
    "email",
    is_email,
    _make_email,
    _email_fits,
    3,
    MAX_EMAIL,
    40,
    (NearMiss("missing-at", _email_no_at), NearMiss("space-for-at", _email_space_for_at)),
    edges=(
        "o'brien@example.com",
        "first.last+tag@example.com",
        "user@xn--bcher-kva.example",
        "a@b.co",
        "x_y-z@sub.domain.example.org",
    ),
)
URI = Format(
    "uri",
    is_uri,
    _make_uri,
    lambda n: n >= 2,
    2,
    None,
    48,
    (*_URI_MISSES, NearMiss("scheme-starts-with-digit", _scheme_digit)),
    edges=(
        "https://user:pass@example.com:8080/",
        "http://example.com",
        "ftp://example.com:21",
        "http://[::1]:80/",
        "https://xn--bcher-kva.example/a/../b?q=1&r=%20#top",
        "file:///etc/passwd",
        "mailto:o'brien@example.com",
        "urn:isbn:0451450523",
    ),
)
URI_REFERENCE = Format(
    "uri-reference",
    is_uri_reference,
    _make_uri_reference,
    lambda n: n >= 0,
    0,
    None,
    40,
    _URI_MISSES,
    edges=("", "../x", "//host/path", "?q=1", "#top", "a:b", "./%2e%2e/x"),
)
