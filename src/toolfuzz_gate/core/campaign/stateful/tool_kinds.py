"""What a tool does to a server's state, read from its name and MCP annotations (pure).

A tool's kind (creates, reads, updates, deletes, lists, searches, or other) shapes the
sequences a stateful campaign tries (`sequence_plan`) and decides which checks across
calls apply (`sequence_checks`). The name's first verb decides, the annotations correct it:
a tool that declares `readOnlyHint: true` never creates, updates or deletes, whatever its
name says. A policy may set a kind outright (`stateful.kinds`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ToolKind(StrEnum):
    CREATES = "creates"
    READS = "reads"
    UPDATES = "updates"
    DELETES = "deletes"
    LISTS = "lists"
    SEARCHES = "searches"
    OTHER = "other"


WRITING = frozenset((ToolKind.CREATES, ToolKind.UPDATES, ToolKind.DELETES))

VERBS: Mapping[str, ToolKind] = {
    **dict.fromkeys(
        ("create", "add", "new", "insert", "make", "register", "save", "upload", "append"),
        ToolKind.CREATES,
    ),
    **dict.fromkeys(
        ("get", "read", "open", "fetch", "show", "view", "describe", "load", "retrieve"),
        ToolKind.READS,
    ),
    **dict.fromkeys(
        ("update", "edit", "set", "modify", "patch", "rename", "change", "replace", "write"),
        ToolKind.UPDATES,
    ),
    **dict.fromkeys(
        ("delete", "remove", "drop", "destroy", "purge", "erase", "trash", "clear"),
        ToolKind.DELETES,
    ),
    **dict.fromkeys(("list", "enumerate", "browse", "all"), ToolKind.LISTS),
    **dict.fromkeys(("search", "find", "query", "lookup", "filter"), ToolKind.SEARCHES),
}
_READ_ONLY_KINDS = frozenset((ToolKind.READS, ToolKind.LISTS, ToolKind.SEARCHES))
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def words(name: str) -> tuple[str, ...]:
    """A name's words, lower case: `createNote`, `create_note`, `create-note` alike."""
    return tuple(word.lower() for word in _WORD.findall(name))


def singular(word: str) -> str:
    """A plural noun's singular, well enough for member names (`notes`, `entities`)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


@dataclass(frozen=True)
class ToolShape:
    """One tool as a stateful campaign sees it: its kind, the nouns of its name (what it
    acts on: `note` for `create_note`), and whether a policy set the kind."""

    name: str
    kind: ToolKind
    nouns: tuple[str, ...]
    read_only: bool = False
    idempotent: bool = False
    declared: bool = False


def classify(
    name: str, annotations: Mapping[str, Any] | None = None, declared: str | None = None
) -> ToolShape:
    """The shape of tool `name`; `declared` is a kind the policy set (it wins)."""
    hints = annotations or {}
    read_only = hints.get("readOnlyHint") is True
    idempotent = hints.get("idempotentHint") is True
    tokens = words(name)
    kind = ToolKind.OTHER
    verb_at = -1
    for index, token in enumerate(tokens):
        if token in VERBS:
            kind, verb_at = VERBS[token], index
            break
    nouns = tuple(singular(t) for t in tokens[verb_at + 1 :] if t not in VERBS)
    if read_only and kind not in _READ_ONLY_KINDS:
        kind = ToolKind.READS if kind is not ToolKind.OTHER else ToolKind.OTHER
    if declared is not None:
        return ToolShape(name, ToolKind(declared), nouns, read_only, idempotent, True)
    return ToolShape(name, kind, nouns, read_only, idempotent)
