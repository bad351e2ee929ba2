"""Known-troublesome strings: a generation source for plain strings (pure data and a draw).

Handlers break on the characters a letters-and-digits alphabet never draws: a quote in
SQL built by string formatting (`O'Brien`), a brace in a `str.format` template, `../`
in a path join, `;` or `$(` in a shell line, `<` or `&` in markup, `"` or `\\` in JSON
built by concatenation, Unicode that normalises to something else. Each entry is one
such string, written for this project, with a stable id (ids are recorded in receipts:
add entries, never rename one). A draw takes a category first (the caller cycles
through them, so every kind of trouble comes round however many entries a category has),
then an entry in it at random, and fits the entry to the length bounds by repeating or
cutting it; the caller checks patterns.
"""

from __future__ import annotations

from random import Random

ENTRIES: dict[str, tuple[tuple[str, str], ...]] = {
    "quote": (
        ("apostrophe-name", "O'Brien"),
        ("apostrophe", "'"),
        ("double-quote", '"'),
        ("quoted-word", 'the "best" one'),
        ("backtick", "`id`"),
        ("mixed-quotes", 'it\'s "fine"'),
    ),
    "escape": (
        ("backslash-path", "C:\\Users\\notes"),
        ("backslash-n", "line\\nbreak"),
        ("backslash-u", "\\u0000"),
        ("trailing-backslash", "end\\"),
        ("backslash-quote", "\\'\\\""),
        ("json-in-string", '{"a": [1, "b"]}'),
    ),
    "template": (
        ("brace-index", "{0}"),
        ("brace-name", "{name}"),
        ("brace-open", "{"),
        ("brace-close", "}"),
        ("double-brace", "{{7*7}}"),
        ("percent-s", "%s"),
        ("percent-mapping", "%(name)s"),
        ("percent-text", "50% off"),
        ("dollar-brace", "${HOME}"),
        ("attribute-lookup", "{0.__class__}"),
    ),
    "path": (
        ("dot-dot", ".."),
        ("dot-dot-slash", "../"),
        ("traversal", "../../etc/passwd"),
        ("inner-traversal", "a/../../b"),
        ("absolute", "/etc/passwd"),
        ("root", "/"),
        ("traversal-windows", "..\\..\\boot.ini"),
        ("home", "~/notes"),
        ("encoded-traversal", "%2e%2e%2f"),
        ("double-slash", "a//b/./c"),
    ),
    "shell": (
        ("semicolon", "a; ls"),
        ("pipe", "a | cat"),
        ("subshell", "$(id)"),
        ("and", "a && b"),
        ("redirect", "> out.txt"),
        ("glob", "*"),
        ("option", "-rf"),
        ("long-option", "--help"),
    ),
    "markup": (
        ("script-tag", "<script>alert(1)</script>"),
        ("ampersand", "Tom & Jerry"),
        ("less-than", "a < b"),
        ("comment-open", "<!--"),
        ("cdata-end", "]]>"),
        ("markdown-link", "[x](javascript:alert(1))"),
        ("markdown-marks", "**b** _i_ `c` # h"),
        ("entity", "&amp;&lt;"),
    ),
    "sql": (
        ("or-true", "' OR '1'='1"),
        ("drop", "x'); DROP TABLE t;--"),
        ("comment", "-- "),
        ("like-wildcards", "100%_"),
        ("statement-end", ";"),
        ("nul-word", "NULL"),
    ),
    "literal": (
        ("null", "null"),
        ("true", "true"),
        ("none", "None"),
        ("nan", "NaN"),
        ("undefined", "undefined"),
        ("zero", "0"),
        ("minus-one", "-1"),
        ("huge-number", "1e309"),
    ),
    "unicode": (
        ("nfd", "Cafe\u0301"),
        ("nfc", "Caf\u00e9"),
        ("full-width", "\uff21\uff22\uff23\uff11\uff12"),
        ("combining-stack", "Z\u0351\u0357\u0350\u0346"),
        ("right-to-left", "\u05e9\u05dc\u05d5\u05dd abc"),
        ("rtl-override", "\u202etxt.exe"),
        ("zero-width", "a\u200bb\u200dc\u2060"),
        ("byte-order-mark", "\ufeffmark"),
        ("ligature", "\ufb01le"),
        ("dotted-capital-i", "\u0130stanbul"),
        ("sharp-s", "Stra\u00dfe"),
        ("kelvin-sign", "\u212a"),
        ("emoji-sequence", "\U0001f469\u200d\U0001f4bb"),
        ("line-separator", "a\u2028b\u2029"),
    ),
    "long": (
        ("long-token", "Supercalifragilisticexpialidocious" * 12),
        ("long-digits", "9" * 400),
        ("long-path", "a/" * 200),
    ),
}
CATEGORIES = tuple(ENTRIES)
SIZE = sum(len(entries) for entries in ENTRIES.values())
_BY_TURN = tuple(tuple((f"{c}/{name}", text) for name, text in ENTRIES[c]) for c in CATEGORIES)
"""Per category, in order: each entry as (id, text), the id made once."""


def fit(text: str, low: int, high: int) -> str | None:
    """`text` repeated or cut to a length in `low..high` code points, or None if none is."""
    size = len(text)
    if low <= size <= high and size:
        return text
    if high < low or high <= 0 or not size:
        return None
    target = low if size < low else high
    return (text * (target // size + 1))[:target]


def draw(rng: Random, turn: int, low: int, high: int) -> tuple[str, str] | None:
    """An entry of category number `turn` (cycled): its id (`category/name`) and its text
    fitted to `low..high`, or None."""
    entries = _BY_TURN[turn % len(_BY_TURN)]
    entry, text = entries[int(rng.random() * len(entries))]
    fitted = fit(text, low, high)
    return None if fitted is None else (entry, fitted)
