"""What the receipts' `reach` ledgers say about a run: tools no valid call got past, and
servers that answer their rejections as successes (pure).

A tool is *unreached* when valid calls ran, none was reached (`core.campaign.reach`:
accepted with an answer that does not read as an error, and not the one answer the tool
gives every call), and most were stopped at its door (`at_the_door`: rejected, answered
with error words, answered alike with an answer that reads as an error). One answer to every
call that reads as none ("Entities deleted successfully", an empty list from a lookup on an
empty store) may be a tool doing what it says: it is a note (`answering_alike`), never a
failure. A server *answers rejections as successes* when one of its tools accepted at least
`MIN_CALLS` hostile calls and at least half of them with error words, gave at least
`MIN_CALLS` valid calls error-worded answers and no reached ones, or answers every call
alike with an answer that reads as an error (`alike_as_error`: "Task not found"; a delete
that answers "Entities deleted successfully" to every name does what it says and rejects
nothing, so it is not one). Servers are told apart by `server_of` (the handler's kind and
the names of what it starts, without directories: base and head run from different
worktrees).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.reach import error_worded
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_ledgers import ReachLedger

UNREACHED = "unreached"
"""The `fail_on` value of the check below (`unreached_check`)."""
MIN_CALLS = 3
"""Hostile (or valid) calls answered with error words before a server is said to answer
its rejections as successes: one odd answer is not a habit."""


def server_of(receipt: Receipt | None) -> str:
    """The server (or module, or command) a receipt's handler is: its kind and the base
    names of its command, without the tool."""
    if receipt is None:
        return ""
    label: Any = receipt.handler
    if isinstance(label.get("mcp"), Mapping):
        return "mcp " + _names(label["mcp"].get("command"))
    if "command" in label:
        return "command " + _names(label.get("command"))
    if "http" in label:
        server = label.get("server")
        return "http " + (_names(server) if server else str(label.get("http"))[:200])
    spec = str(label.get("spec", ""))
    return spec.rpartition(":")[0] or spec


def _names(argv: object) -> str:
    words = argv if isinstance(argv, list) else []
    return " ".join(posixpath.basename(str(word)) or str(word) for word in words)[:300]


@dataclass(frozen=True)
class Unreached:
    """A tool none of whose valid calls got through, and the commonest way they did not."""

    tool: str
    server: str
    calls: int
    count: int
    outcome: str
    said: str
    cause: str

    def sentence(self) -> str:
        """`never got past: Unknown vault (200 of 200)`."""
        what = self.said or self.cause or self.outcome
        return f"never got past: {what} ({self.count} of {self.calls})"

    def as_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "server": self.server,
            "calls": self.calls,
            "count": self.count,
            "outcome": self.outcome,
            "said": self.said,
            "cause": self.cause,
        }


@dataclass(frozen=True)
class Answering:
    """A server that answers rejections as successes: its tools that showed it, and one
    answer as evidence."""

    server: str
    tools: tuple[str, ...]
    said: str
    calls: int

    def as_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "tools": list(self.tools),
            "said": self.said,
            "calls": self.calls,
        }


Entry = tuple[str, str, ReachLedger]
"""(tool, server, reach ledger)."""


def entries_of(receipts: Iterable[Receipt]) -> list[Entry]:
    """(tool, server, reach) of every receipt that has a reach ledger."""
    return [
        (receipt.tool, server_of(receipt), receipt.reach)
        for receipt in receipts
        if receipt.reach is not None
    ]


def unreached(entries: Iterable[Entry]) -> list[Unreached]:
    """Every tool whose valid calls ran and none was reached, by tool name."""
    found = []
    for tool, server, reach in entries:
        valid = reach.valid
        if not valid.calls or valid.reached or 2 * at_the_door(reach) <= valid.calls:
            continue
        way = reach.commonest
        found.append(
            Unreached(
                tool,
                server,
                valid.calls,
                way.count if way is not None else valid.calls,
                way.outcome if way is not None else "",
                way.said if way is not None else "",
                way.cause if way is not None else "",
            )
        )
    return sorted(found, key=lambda item: (item.tool, item.server))


def at_the_door(reach: ReachLedger) -> int:
    """Valid calls stopped at the tool's door: rejected, answered with error words, or
    answered alike when the one answer reads as an error. A tool whose valid calls mostly
    crashed or timed out is not unreached (those are counterexamples of their own)."""
    valid = reach.valid
    alike = (valid.answered_alike or 0) if alike_as_error(reach) else 0
    return valid.rejected + valid.error_answers + alike


def answering_alike(entries: Iterable[Entry]) -> list[str]:
    """The tools that answered every valid call with one answer that reads as no error
    (and hostile calls with it too): whether their logic ran cannot be told, so it is
    said, as a note."""
    found = []
    for tool, _, reach in entries:
        said = _one_answer(reach)
        if said is not None and not error_worded(said):
            calls = f"({reach.valid.answered_alike} of {reach.valid.calls})"
            found.append(f"{tool} answers every call {said[:200]!r} {calls}")
    return sorted(found)


def alike_as_error(reach: ReachLedger) -> bool:
    """Does the tool answer every call alike, with an answer that reads as an error?"""
    said = _one_answer(reach)
    return said is not None and error_worded(said)


def _one_answer(reach: ReachLedger) -> str | None:
    """The one answer the tool gave every valid call, where the ledger names it (None: it
    gave none, or another way was commoner, whose words are not the one answer's)."""
    commonest = reach.commonest
    if not reach.valid.answered_alike or commonest is None:
        return None
    return commonest.said if commonest.outcome == "answered-alike" else None


def answers_as_successes(reach: ReachLedger) -> bool:
    """Does one tool's ledger show its server answering rejections as successes?"""
    hostile, valid = reach.hostile, reach.valid
    if hostile.accepted >= MIN_CALLS and 2 * hostile.error_answers >= hostile.accepted:
        return True
    if alike_as_error(reach):
        return True
    return valid.error_answers >= MIN_CALLS and not valid.reached


def answering(entries: Iterable[Entry]) -> list[Answering]:
    """Every server one of whose tools answers rejections as successes, by server."""
    by_server: dict[str, list[tuple[str, ReachLedger]]] = {}
    for tool, server, reach in entries:
        if answers_as_successes(reach):
            by_server.setdefault(server, []).append((tool, reach))
    found = []
    for server, tools in sorted(by_server.items()):
        tools.sort(key=lambda item: item[0])
        said = next((r.error_answer for _, r in tools if r.error_answer), "")
        calls = sum(r.hostile.error_answers + r.valid.error_answers for _, r in tools)
        found.append(Answering(server, tuple(t for t, _ in tools), said, calls))
    return found


def unreached_check(
    may_be_unreached: Callable[[str], bool], entries: Sequence[Entry]
) -> tuple[list[str], list[str]]:
    """`fail_on: unreached`: the failures (tools none of whose valid calls got past the
    handler's door) and notes (those the policy's `allow-unreached` names, and the tools
    answering every call alike with no error: `answering_alike`)."""
    failing: list[str] = []
    allowed: list[str] = []
    for item in unreached(entries):
        said = f"{item.tool}: {item.sentence()}"
        (allowed if may_be_unreached(item.tool) else failing).append(said)
    failed = [f"unreached: {len(failing)} tool(s) no valid call got past: {'; '.join(failing)}"]
    notes = [f"unreached: allowed by the policy: {'; '.join(allowed)}"] if allowed else []
    alike = answering_alike(entries)
    if alike:
        notes.append(
            "reach: one answer to every call, so whether the tool's logic ran cannot be told: "
            + "; ".join(alike)
        )
    return failed if failing else [], notes
