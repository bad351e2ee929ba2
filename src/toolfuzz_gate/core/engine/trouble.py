"""The troublesome-value classes a free string must show, and the traversal values of a
path-like argument (pure data and their fitting).

Each class is one kind of character handler code trips on, with a sample that holds it and
a search that says whether a string does; the boundary ledger (`core.engine.boundaries`)
makes each class an edge of every free string (no `pattern`, `format` or `enum`), so a
default run gives each string each class at least once, whatever the random draws did.

A path-like argument (its property named like a path, file, folder, dir or destination, or
`format: uri-reference`) also gets the traversal values below as edges, deterministic and the
same in every run. They are written for the per-run working tree a handler is confined to
(`edges/handlers/workspace.py`): the allowed root is `box/root`, so `..` lands in `box` and
`../..` beside it, both watched for writes. Ids are recorded in receipts: add, never rename.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

FILLER = "a"
"""What pads a sample up to a `minLength`."""


@dataclass(frozen=True)
class TroubleClass:
    name: str
    sample: str
    """A plain string holding the class (taken when it fits the length bounds)."""
    marker: str
    """The shortest string holding it (taken when the sample is too long)."""
    finds: re.Pattern[str]

    def holds(self, text: str) -> bool:
        return self.finds.search(text) is not None


TROUBLE_CLASSES: tuple[TroubleClass, ...] = (
    TroubleClass("quote", 'O\'Brien said "hi"', "'", re.compile("['\"`]")),
    TroubleClass("brace", "{name} and {0}", "{", re.compile("[{}]")),
    TroubleClass("backslash", "C:\\notes\\new", "\\", re.compile(r"\\")),
    TroubleClass("bang", "Ship it!", "!", re.compile("!")),
    TroubleClass("percent", "100% of %s", "%", re.compile("%")),
    TroubleClass("newline", "first line\nsecond line", "\n", re.compile("[\n\r\u2028\u2029]")),
    TroubleClass(
        "astral",
        "launch \U0001f680 \U0001d538",
        "\U0001f680",
        re.compile("[\U00010000-\U0010ffff]"),
    ),
    TroubleClass(
        "combining",
        "Cafe\u0301 Z\u0351\u0357",
        "e\u0301",
        re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"),
    ),
    TroubleClass(
        "rtl",
        "\u05e9\u05dc\u05d5\u05dd abc \u202etxt",
        "\u05e9",
        re.compile("[\u0590-\u08ff\u200f\u202b\u202e\u2067\ufb1d-\ufdff\ufe70-\ufeff]"),
    ),
    TroubleClass("nul", "before\x00after", "\x00", re.compile("\x00")),
    TroubleClass("markup", "<b>Tom & Jerry</b>", "<", re.compile("[<>&]")),
    TroubleClass("shell", "a; echo $(id) | cat", ";", re.compile("[;|$`]")),
)
"""Quotes, braces, backslash, `!`, `%`, newline, astral, combining, right-to-left, NUL,
markup (`<`, `>`, `&`) and shell metacharacters (`;`, `|`, `$`, a backtick)."""

SANDBOX_LINK = "toolfuzz-link"
"""The symbolic link a sandbox lays in the allowed root, pointing out of it (to the watched
`../../outside`): a handler that follows links where it refuses `..` writes outside."""

TRAVERSALS: tuple[tuple[str, str], ...] = (
    ("dot-dot", "../toolfuzz-escape"),
    ("deep", "../../outside/toolfuzz-escape"),
    ("inner", "sub/../../toolfuzz-escape"),
    ("sibling", "../root-sibling/toolfuzz-escape"),
    ("absolute", "/tmp/toolfuzz-gate-escape"),
    ("home", "~/toolfuzz-escape"),
    ("symlink", f"{SANDBOX_LINK}/toolfuzz-escape"),
    ("empty", ""),
)
"""(id, value): a relative escape one and two levels up, one hidden behind a subdirectory,
one into the sibling a prefix check lets through, an absolute path, the home directory, a
name under the link out of the root a sandbox lays (`SANDBOX_LINK`), and the empty path (the
root itself)."""

PATH_WORDS = frozenset(
    {"path", "paths", "file", "files", "filename", "filepath", "folder", "folders", "dir"}
    | {"dirs", "directory", "dirname", "destination", "dest"}
)
"""Words of a property name that make it path-like (`outputPath`, `target_dir`, `file`)."""
PATH_FORMATS = frozenset({"uri-reference"})
_WORDS = re.compile("[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def fitted(sample: str, marker: str, low: int, high: int) -> str | None:
    """`sample` padded to `low`, or `marker` when the sample is too long, or None when even
    the marker does not fit `low..high` code points."""
    for text in (sample, marker):
        if len(text) <= high:
            return text + FILLER * (low - len(text)) if len(text) < low else text
    return None


def is_path_like(pointer: str, formats: tuple[str, ...]) -> bool:
    """Whether a string at `pointer` names a place in a file system: by the words of the
    property it is (or is an item of), or by its format."""
    if PATH_FORMATS.intersection(formats):
        return True
    tokens = pointer.split("/")
    names = [token for before, token in itertools.pairwise(tokens) if before == "properties"]
    if not names:
        return False
    return any(word.lower() in PATH_WORDS for word in _WORDS.findall(names[-1]))
