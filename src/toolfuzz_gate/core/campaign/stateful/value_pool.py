"""The values a sequence has seen, as candidates for later calls' inputs (pure).

Three sources: what accepted calls returned (their `structuredContent`, or JSON in their
text), what earlier calls sent (a title, a tag: candidates for a search query or a tag
filter), and the domain values a server names itself, in a listing's output
(`list_available_vaults` -> `vault`) or in a rejection that lists the valid choices
("Unknown vault: x. Available vaults: a, b"), which become candidates for the argument the
rejection was about (the one whose value it echoed), so that a campaign gets past a gate it
cannot guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.stateful.tool_kinds import singular, words
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

MAX_HARVEST = 200
"""Values kept from one output: an output is untrusted and may be huge."""
MAX_VALUE_CHARS = 256
MAX_DOMAIN = 16
_CHOICES = re.compile(
    r"(?i)\b(?:available|valid|allowed|supported|known|possible|expected)\b[\w\s]{0,30}?"
    r"(?:\bare\b|\bis\b|:|\bone of\b)\s*:?\s*(.{1,600})"
)
_SPLIT = re.compile(r"\s*(?:,|;|\||\bor\b|\n)\s*")
_STRIP = "\"'`[](){}<>. "


@dataclass(frozen=True)
class Seen:
    """One value seen in a sequence: at which step, under which member name, from where
    (`output` or `input`), and where in the value (`path`: members and array indices)."""

    step: int
    member: str
    value: JSON
    origin: str
    path: tuple[str | int, ...] = ()

    @property
    def reference(self) -> str:
        """How a link names this value: a top-level member by its name (`id`), a deeper one
        by its JSON Pointer (`/note/id`, `/notes/2/id`)."""
        if len(self.path) <= 1:
            return self.member
        return jp.from_parts(self.path)

    def named_by(self, reference: str) -> bool:
        """Is this the value `reference` (`Seen.reference`) names?"""
        return self.reference == reference or (
            not reference.startswith("/") and self.member == reference
        )


@dataclass
class Domains:
    """Domain values learned for input members, by member name (the campaign keeps them
    across sequences; what a rejection or a listing said about one member)."""

    by_member: dict[str, list[str]] = field(default_factory=dict)

    def learn(self, member: str, values: list[str]) -> bool:
        """Add `values` for `member`; True when something was new."""
        known = self.by_member.setdefault(member, [])
        added = False
        for value in values:
            if value not in known and len(known) < MAX_DOMAIN:
                known.append(value)
                added = True
        return added

    def for_member(self, member: str) -> list[str]:
        return self.by_member.get(member, [])


def output_value(outcome: Outcome) -> JSON:
    """What an accepted call returned, as JSON: its `structuredContent`, else the JSON its
    text content holds, else the text itself (None when nothing was kept)."""
    if outcome.kind is not OutcomeKind.ACCEPTED:
        return None
    if outcome.has_structured and outcome.structured is not None:
        return outcome.structured
    text = outcome.output_text
    if text is None:
        return None
    try:
        content = json.loads(text)
    except ValueError:
        return text
    if isinstance(content, list):
        texts = [
            block.get("text")
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
        if len(texts) == 1 and isinstance(texts[0], str):
            try:
                parsed: JSON = json.loads(texts[0])
            except ValueError:
                return texts[0]
            return parsed
    return content  # type: ignore[no-any-return]


def harvest(value: JSON, step: int, origin: str) -> list[Seen]:
    """The scalar leaves of `value` under their member names (an array's items under the
    array's singular name), at most MAX_HARVEST, in document order."""
    found: list[Seen] = []
    for member, leaf, path in _leaves(value, "", ()):
        if len(found) >= MAX_HARVEST:
            break
        if isinstance(leaf, str) and len(leaf) > MAX_VALUE_CHARS:
            continue
        found.append(Seen(step, member, leaf, origin, path))
    return found


def _leaves(
    value: JSON, member: str, path: tuple[str | int, ...]
) -> Iterator[tuple[str, JSON, tuple[str | int, ...]]]:
    if len(path) > 6:
        return
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _leaves(item, name, (*path, name))
    elif isinstance(value, list):
        name = "_".join(singular(w) for w in words(member)) if member else member
        for index, item in enumerate(value):
            yield from _leaves(item, name, (*path, index))
    elif member and (isinstance(value, (str, int)) and not isinstance(value, bool)):
        yield member, value, path


def choices_named(message: str) -> list[str]:
    """The valid choices a rejection message lists ("Available vaults: a, b" -> a, b)."""
    match = _CHOICES.search(message)
    if match is None:
        return []
    picked = []
    for token in _SPLIT.split(match.group(1)):
        token = token.strip(_STRIP)
        if token and len(token) <= 64 and " " not in token:
            picked.append(token)
        if len(picked) >= MAX_DOMAIN:
            break
    return picked


def rejection_domain(outcome: Outcome, arguments: JSONObject) -> tuple[str, list[str]] | None:
    """(member, choices) when a rejection lists valid choices and echoes exactly one
    string argument's value or names exactly one member: that argument's domain."""
    if outcome.kind is not OutcomeKind.REJECTED or not outcome.message:
        return None
    choices = choices_named(outcome.message)
    if not choices:
        return None
    text = outcome.message
    echoed = [k for k, v in arguments.items() if isinstance(v, str) and v and v in text]
    if len(echoed) != 1:
        lowered = text.lower()
        echoed = [k for k in arguments if isinstance(arguments[k], str) and k.lower() in lowered]
    if len(echoed) != 1:
        return None
    member = echoed[0]
    choices = [c for c in choices if c != arguments.get(member)]
    return (member, choices) if choices else None


def listing_domain(
    nouns: tuple[str, ...], output: JSON, members: Mapping[str, object]
) -> tuple[str, list[str]] | None:
    """(member, values) when a listing tool about `nouns` returned plain strings (or
    objects' `name`s) and one of `members` (another tool's inputs) is named by a noun."""
    values: list[str] = []
    for seen in harvest(output, 0, "output"):
        if isinstance(seen.value, str) and (
            seen.member in ("name", "id") or singular(seen.member) in nouns
        ):
            values.append(seen.value)
    if isinstance(output, list):
        values += [x for x in output if isinstance(x, str)]
    if not values:
        return None
    for member in members:
        if tuple(singular(w) for w in words(member))[-1:] and singular(words(member)[-1]) in nouns:
            return member, values[:MAX_DOMAIN]
    return None
