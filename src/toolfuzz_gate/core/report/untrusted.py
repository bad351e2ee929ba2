"""The escaping rules for untrusted text in reports, one function per rule (pure).

Everything that comes from schemas, handlers and inputs (tool names, paths, reasons, error
codes, file names, inputs) is untrusted: it may try to close a fence, forge the comment's
hidden marker, mention people, link issues or URLs, reorder text with bidi overrides, hide
words from people with format characters (zero-width spaces and joiners, tag characters)
that language-model reviewers still read, or start a workflow command. Renderers pass every
such field through these functions and nothing else.
"""

from __future__ import annotations

import json
import re
import shlex
import unicodedata

from toolfuzz_gate.core.jsonutil.canonical import JSON

FIELD_CAP = 200
"""Characters kept of one untrusted field outside fences (an ellipsis marks a cut)."""
BLOCK_CAP = 4000
"""Characters kept of one fenced block's content (a minimized input, a replay command)."""
ELLIPSIS = "\u2026"
MENTION_SIGNS = {"@": "\uff20", "#": "\uff03"}
"""`@` and `#` in untrusted text are shown as their fullwidth forms (visible, and not what
GitHub reads as a mention or an issue reference): `\uff20name` mentions nobody."""
_LINKS = re.compile(r"://|(?i:www)\.")
"""What GitHub autolinks in text: `scheme://...` and `www.` (e-mail addresses need an `@`)."""

_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_LINE_SEPARATORS = frozenset((0x2028, 0x2029))
_NONCHARACTERS = frozenset((0xFFFE, 0xFFFF))
_TAGS = range(0xE0000, 0xE0080)
_MARKDOWN_SPECIALS = frozenset("\\|*_[]`~")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def _dropped(code: int, keep_newlines: bool) -> bool:
    if code in (0x0A, 0x0D) and keep_newlines:
        return False
    if code == 0x09:
        return False
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or code in _BIDI
        or code in _LINE_SEPARATORS
        or code in _NONCHARACTERS
        or 0xD800 <= code <= 0xDFFF
        or code in _TAGS
        or unicodedata.category(chr(code)) == "Cf"
    )


def clean(text: str, *, keep_newlines: bool = False) -> str:
    """`text` without C0/C1 controls, format characters (bidi overrides and marks,
    zero-width spaces and joiners, BOM, tag characters), line separators, lone surrogates.

    Tabs stay; CR and LF stay only with `keep_newlines`, otherwise each becomes a space (a
    field then stays on one line, e.g. in a table cell).
    """
    out: list[str] = []
    for char in text:
        code = ord(char)
        if code in (0x0A, 0x0D) and not keep_newlines:
            out.append(" ")
        elif not _dropped(code, keep_newlines):
            out.append(char)
    return "".join(out)


def cap(text: str, limit: int = FIELD_CAP) -> str:
    """At most `limit` characters; a cut one ends with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + ELLIPSIS


def field(value: object, limit: int = FIELD_CAP) -> str:
    """An untrusted scalar as one clean, capped line (not yet escaped for any format)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return cap(clean(text), limit)


def markdown_text(value: object, limit: int = FIELD_CAP) -> str:
    """An untrusted field as inert Markdown text, safe in a table cell and in running text.

    HTML specials become entities (so no comment, tag or marker can be forged), Markdown
    specials are backslash-escaped, `@` and `#` become their fullwidth forms so that no
    `@mention`, `#123` or `owner/repo#123` reference is linked, and bare URLs are defanged
    (`https[:]//`, `www[.]`) so that none is autolinked.
    """
    out: list[str] = []
    for char in defang(field(value, limit)):
        if char in _HTML:
            out.append(_HTML[char])
        elif char in _MARKDOWN_SPECIALS:
            out.append("\\" + char)
        else:
            out.append(MENTION_SIGNS.get(char, char))
    return "".join(out)


def defang(text: str) -> str:
    """`text` with `://` written `[:]//` and `www.` written `www[.]`: read the same by
    people, linked by nobody."""
    return _LINKS.sub(lambda found: "[:]//" if found[0] == "://" else found[0][:-1] + "[.]", text)


def longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def fence(content: str, info: str) -> str:
    """A fenced code block around `content`: a backtick run longer than any inside (min 3).

    The content is cleaned (newlines kept) and capped first; `info` is the renderer's own
    word (`json`, `sh`), never untrusted.
    """
    kept = clean(content, keep_newlines=True).replace("\r\n", "\n").replace("\r", "\n")
    body = cap(kept, BLOCK_CAP)
    ticks = "`" * max(3, longest_backtick_run(body) + 1)
    return f"{ticks}{info}\n{body}\n{ticks}"


def json_block_text(value: JSON) -> str:
    """`value` as indented JSON whose risky characters are written as `\\u` hex escapes.

    The text still parses to the same value, but holds no `<`, `>`, `&` (no marker or tag
    even if a reader ignores the fence), no bidi override, control or lone surrogate.
    """
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in "<>&" or (char not in "\n" and _dropped(code, keep_newlines=False)):
            out.append(_json_escape(code))
        else:
            out.append(char)
    return "".join(out)


def _json_escape(code: int) -> str:
    """`\\uXXXX`, or the surrogate pair JSON spells an astral character with."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def shell_word(value: str) -> str:
    """An untrusted value as one shell word on one line (controls dropped, then quoted)."""
    return shlex.quote(cap(clean(value), FIELD_CAP))


def comment_key(key: str) -> str:
    """The comment key as it goes into the hidden marker: `[A-Za-z0-9._-]`, at most 64."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in key)
    return safe[:64] or "default"


def workflow_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped, other controls dropped."""
    kept = clean(text, keep_newlines=True)
    return kept.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A workflow command's property value: as data, and `:` and `,` escaped too."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def utf16_units(text: str) -> int:
    """Length as GitHub counts a comment body: UTF-16 code units."""
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2
