"""A sequence of calls on one server, and running it with linked values bound (pure).

A `Call` is a tool, its arguments (schema-valid, generated or recorded), the links fixed
to earlier steps (`member <- step.output`, as a recorded or shrunk sequence holds them),
and the members to bind at run time from whatever the sequence has seen (`bind`, as a
planned sequence holds them). Running binds each call's linked members, calls the server
through the `Server` seam (the core's only view of it), and records each step: what was
sent, which values came from where, the outcome, the parsed output. A crash or a hang ends
the sequence: the server's state after it is unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.stateful.links import (
    Link,
    ServerTool,
    at_place,
    place_fits,
    place_of,
    scalar_items,
)
from toolfuzz_gate.core.campaign.stateful.tool_kinds import ToolKind
from toolfuzz_gate.core.campaign.stateful.value_pool import (
    Domains,
    Seen,
    harvest,
    listing_domain,
    output_value,
    rejection_domain,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.jsonutil.redact import present

QUERY_WORDS = frozenset(("query", "q", "search", "text", "keyword", "term", "pattern", "tag"))
"""Members of a search tool that take a string an earlier call sent (a title, a tag)."""


class Server(Protocol):
    """The tools of one server: call one, start again from a fresh state, or lay what every
    sequence starts with (`begin`: the tools' fixtures laid again; nothing else changes)."""

    def call(self, tool: str, arguments: JSONObject) -> Outcome: ...

    def fresh(self) -> None: ...

    def begin(self) -> None: ...


@dataclass(frozen=True)
class LinkRef:
    """`member` of a call takes `output` of step `step` (`origin`: what that step
    returned, or what it was sent)."""

    member: str
    step: int
    output: str
    origin: str = "output"

    def as_json(self) -> JSONObject:
        return {
            "member": self.member,
            "call": self.step + 1,
            "from": self.output,
            "origin": self.origin,
        }


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: JSONObject
    links: tuple[LinkRef, ...] = ()
    bind: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """One call as made: the arguments sent, the links bound, the outcome, the output."""

    call: Call
    outcome: Outcome
    output: JSON = None
    seen: tuple[Seen, ...] = ()

    @property
    def tool(self) -> str:
        return self.call.tool

    def linked(self, member: str) -> LinkRef | None:
        for link in self.call.links:
            if link.member == member:
                return link
        return None

    def as_json(self, failing: int | None, index: int) -> JSONObject:
        shown: JSONObject = {
            "tool": self.call.tool,
            "arguments": present(self.call.arguments),
            "outcome": self.outcome.summary(),
        }
        if self.call.links:
            shown["links"] = [link.as_json() for link in self.call.links]
        if failing == index:
            shown["failing"] = True
        return shown


@dataclass
class Context:
    """What running needs besides the server: the tools, the links between them (a certain
    link says exactly which output value an input takes), and the domains learned so far."""

    tools: Mapping[str, ServerTool]
    links: Sequence[Link] = ()
    domains: Domains = field(default_factory=Domains)


def run_sequence(server: Server, calls: Sequence[Call], context: Context) -> list[Step]:
    """Run `calls` in order on `server` as it is (the caller makes it fresh), after
    `server.begin()`: each sequence's calls see the tools' fixtures as the policy laid them."""
    server.begin()
    steps: list[Step] = []
    for call in calls:
        made = _bound(call, steps, context)
        outcome = server.call(made.tool, made.arguments)
        output = output_value(outcome)
        seen = tuple(
            harvest(output, len(steps), "output") + harvest(made.arguments, len(steps), "input")
        )
        steps.append(Step(made, outcome, output, seen))
        _learn(made, outcome, output, context)
        if outcome.kind in (OutcomeKind.CRASH, OutcomeKind.TIMEOUT):
            break
    return steps


def _bound(call: Call, steps: Sequence[Step], context: Context) -> Call:
    arguments = dict(call.arguments)
    links: list[LinkRef] = []
    for ref in call.links:
        value = _value_at(steps, ref)
        if value is not None:
            arguments[ref.member] = (
                [value] if isinstance(arguments.get(ref.member), list) else value
            )
            links.append(ref)
    taken = {ref.member for ref in links}
    tool = context.tools.get(call.tool)
    for member in call.bind:
        if member in taken or tool is None:
            continue
        found = _pick(member, tool, steps, context)
        if found is not None:
            ref, value = found
            arguments[member] = [value] if scalar_items(tool.inputs()[member]) else value
            links.append(ref)
    taken |= {ref.member for ref in links}
    for member, value in sorted(arguments.items()):
        domain = context.domains.for_member(member)
        if member not in taken and domain and isinstance(value, str) and value not in domain:
            arguments[member] = domain[0]
    return Call(call.tool, arguments, tuple(links))


def bound_value(step: Step, member: str) -> JSON:
    """The value a linked member of `step` took (an array's one item: the value itself)."""
    value = step.call.arguments.get(member)
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def source_of(steps: Sequence[Step], ref: LinkRef) -> Seen | None:
    """The value `ref` names in its step (None: it is not there)."""
    if ref.step >= len(steps):
        return None
    for seen in _shallow_first(steps[ref.step].seen):
        if seen.origin == ref.origin and seen.named_by(ref.output):
            return seen
    return None


def _value_at(steps: Sequence[Step], ref: LinkRef) -> JSON:
    seen = source_of(steps, ref)
    return None if seen is None else seen.value


def _shallow_first(seen: Sequence[Seen]) -> list[Seen]:
    """`seen` with the top-level values first, in document order otherwise."""
    return sorted(seen, key=lambda item: len(item.path))


def _pick(
    member: str, tool: ServerTool, steps: Sequence[Step], context: Context
) -> tuple[LinkRef, JSON] | None:
    """The most recent value an earlier creating step returned that fits `member`, else
    the most recent any step returned (creates hand out the values; a listing echoes them
    in its own order); for a search tool's query, the most recent string a creating or
    updating call sent."""
    schema = tool.inputs().get(member, {})
    wants = (scalar_items(schema) or schema).get("type")
    certain = [
        link
        for link in context.links
        if link.certain and link.consumer == tool.name and link.input == member
    ]
    for creating_only in (True, False):
        for step in reversed(steps):
            producer = context.tools.get(step.tool)
            if step.outcome.kind is not OutcomeKind.ACCEPTED or producer is None:
                continue
            if creating_only and producer.shape.kind is not ToolKind.CREATES:
                continue
            # a certain link names the very value; else any value whose place fits
            named = [link.output for link in certain if link.producer == step.tool]
            for seen in _shallow_first(step.seen):
                if seen.origin != "output" or not _typed(seen.value, wants):
                    continue
                if named:
                    fitting = any(at_place(seen.path, output) for output in named)
                else:
                    place = place_of(seen.path)
                    fitting = place_fits(place, producer.shape.nouns, member, tool.shape.nouns)
                if fitting:
                    return LinkRef(member, seen.step, seen.reference), seen.value
    if tool.shape.kind is ToolKind.SEARCHES and member.lower() in QUERY_WORDS:
        for step in reversed(steps):
            producer = context.tools.get(step.tool)
            if producer is None or producer.shape.kind not in (ToolKind.CREATES, ToolKind.UPDATES):
                continue
            for seen in step.seen:
                if seen.origin == "input" and isinstance(seen.value, str) and seen.value.strip():
                    return LinkRef(member, seen.step, seen.reference, "input"), seen.value
    return None


def _typed(value: JSON, wants: object) -> bool:
    if wants in ("string", ["string", "null"]):
        return isinstance(value, str)
    if wants in ("integer", ["integer", "null"]):
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _learn(call: Call, outcome: Outcome, output: JSON, context: Context) -> None:
    """Domain values: what a rejection names as valid choices, what a listing returns."""
    named = rejection_domain(outcome, call.arguments)
    if named is not None:
        context.domains.learn(*named)
    tool = context.tools.get(call.tool)
    if tool is None or tool.shape.kind is not ToolKind.LISTS or output is None:
        return
    for other in context.tools.values():
        if other.name == tool.name:
            continue
        found = listing_domain(tool.shape.nouns, output, other.inputs())
        if found is not None:
            context.domains.learn(*found)
