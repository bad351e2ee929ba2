"""The checks across the calls of a sequence, each a named check with a failure class of its
own (pure).

- `no-crash` (always): no call of a sequence crashes or hangs.
- `resource-availability`: a read of what a create just returned is accepted.
- `use-after-delete`: a read or a second delete of what was just deleted is a clean
  rejection, and a listing made right after the delete no longer holds it.
- `update-visible`: the read after an idempotent update returns what the update wrote.

The last three judge only links that are certain (`links.Link.certain`: declared by the
producer's `outputSchema` or by the policy), and only when nothing between the two calls
could have changed the answer: a value the campaign merely guessed fits would make every
rejection look like a bug.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from toolfuzz_gate.core.campaign.cause import cause_of
from toolfuzz_gate.core.campaign.findings import Failure
from toolfuzz_gate.core.campaign.outcome import OutcomeKind
from toolfuzz_gate.core.campaign.stateful.links import Link, ServerTool
from toolfuzz_gate.core.campaign.stateful.sequence import Step, bound_value, source_of
from toolfuzz_gate.core.campaign.stateful.tool_kinds import WRITING, ToolKind
from toolfuzz_gate.core.jsonutil.canonical import JSON


@dataclass(frozen=True)
class SequenceFinding:
    """One check failed at step `step` of a sequence (`cause`: stable words)."""

    failure: Failure
    step: int
    tool: str
    cause: str
    message: str = ""

    @property
    def identity(self) -> tuple[str, str, str]:
        """What shrinking keeps: the class, the failing tool and the cause."""
        return (self.failure.value, self.tool, self.cause)


@dataclass(frozen=True)
class Graph:
    tools: Mapping[str, ServerTool]
    links: Sequence[Link]

    def certain(self, consumer: str, member: str, producer: str) -> bool:
        return any(
            link.certain
            and link.consumer == consumer
            and link.input == member
            and link.producer == producer
            for link in self.links
        )

    def kind(self, tool: str) -> ToolKind:
        found = self.tools.get(tool)
        return found.shape.kind if found is not None else ToolKind.OTHER


Check = Callable[[Sequence[Step], Graph], Iterator[SequenceFinding]]


def check_no_crash(steps: Sequence[Step], graph: Graph) -> Iterator[SequenceFinding]:
    for index, step in enumerate(steps):
        kind = step.outcome.kind
        if kind is OutcomeKind.CRASH:
            cause = cause_of(step.outcome, step.call.arguments)
            yield SequenceFinding(
                Failure.SEQUENCE_CRASH, index, step.tool, cause, step.outcome.message
            )
        elif kind is OutcomeKind.TIMEOUT:
            yield SequenceFinding(
                Failure.SEQUENCE_TIMEOUT, index, step.tool, "timeout", step.outcome.message
            )


def check_resource_availability(steps: Sequence[Step], graph: Graph) -> Iterator[SequenceFinding]:
    for index, step in enumerate(steps):
        if (
            graph.kind(step.tool) is not ToolKind.READS
            or step.outcome.kind is not OutcomeKind.REJECTED
        ):
            continue
        tool = graph.tools.get(step.tool)
        bound = {link.member for link in step.call.links}
        if tool is None or not bound or not tool.required() <= bound:
            continue
        sources = [_certain_source(steps, index, link.member, graph) for link in step.call.links]
        if not all(
            s is not None and graph.kind(steps[s].tool) is ToolKind.CREATES for s in sources
        ):
            continue
        first = min(s for s in sources if s is not None)
        if _between(steps, first, index, graph, WRITING - {ToolKind.CREATES}):
            continue
        cause = cause_of(step.outcome, step.call.arguments)
        yield SequenceFinding(
            Failure.RESOURCE_UNAVAILABLE, index, step.tool, cause, step.outcome.message
        )


def check_use_after_delete(steps: Sequence[Step], graph: Graph) -> Iterator[SequenceFinding]:
    for index, step in enumerate(steps):
        if (
            graph.kind(step.tool) is not ToolKind.DELETES
            or step.outcome.kind is not OutcomeKind.ACCEPTED
        ):
            continue
        for link in step.call.links:
            if _certain_source(steps, index, link.member, graph) is None:
                continue
            source = source_of(steps, link)
            value = bound_value(step, link.member)
            member = link.output if source is None else source.member
            yield from _after_delete(steps, index, member, value, graph)


def _after_delete(
    steps: Sequence[Step], deleted_at: int, output: str, value: JSON, graph: Graph
) -> Iterator[SequenceFinding]:
    for later in range(deleted_at + 1, len(steps)):
        step = steps[later]
        kind = graph.kind(step.tool)
        if kind is ToolKind.CREATES:
            return
        tool = graph.tools.get(step.tool)
        if kind in (ToolKind.READS, ToolKind.DELETES):
            # One thing named (not a batch, which may skip what is missing), and a read that
            # returned it: a read may answer "nothing here" as a success.
            same = any(
                step.call.arguments.get(link.member) == value and link.step < later
                for link in step.call.links
            )
            if not same or step.outcome.kind is not OutcomeKind.ACCEPTED:
                continue
            if kind is ToolKind.DELETES and tool is not None and tool.shape.idempotent:
                continue
            if kind is ToolKind.READS and not _returned(step, value):
                continue
            what = "read" if kind is ToolKind.READS else "deleted again"
            yield SequenceFinding(
                Failure.USE_AFTER_DELETE,
                later,
                step.tool,
                f"{what} after delete",
                f"{step.tool} accepted a value {steps[deleted_at].tool} had deleted",
            )
            return
        if (
            kind in (ToolKind.LISTS, ToolKind.SEARCHES)
            and step.outcome.kind is OutcomeKind.ACCEPTED
        ):
            if tool is None or output not in tool.outputs():
                continue
            if any(
                seen.member == output and seen.value == value and seen.origin == "output"
                for seen in step.seen
            ):
                yield SequenceFinding(
                    Failure.USE_AFTER_DELETE,
                    later,
                    step.tool,
                    "listed after delete",
                    f"{step.tool} still lists a value {steps[deleted_at].tool} had deleted",
                )
                return


def check_update_visible(steps: Sequence[Step], graph: Graph) -> Iterator[SequenceFinding]:
    for index, step in enumerate(steps):
        tool = graph.tools.get(step.tool)
        if tool is None or tool.shape.kind is not ToolKind.UPDATES or not tool.shape.idempotent:
            continue
        if step.outcome.kind is not OutcomeKind.ACCEPTED or not step.call.links:
            continue
        keys = {link.member for link in step.call.links}
        written = {k: v for k, v in step.call.arguments.items() if k not in keys and _scalar(v)}
        ids = [bound_value(step, k) for k in keys]
        for later in range(index + 1, len(steps)):
            reader = steps[later]
            kind = graph.kind(reader.tool)
            if kind in WRITING:
                break
            read_tool = graph.tools.get(reader.tool)
            if (
                kind is not ToolKind.READS
                or read_tool is None
                or reader.outcome.kind is not OutcomeKind.ACCEPTED
            ):
                continue
            if not any(bound_value(reader, link.member) in ids for link in reader.call.links):
                continue
            declared = set(read_tool.outputs())
            for member, value in sorted(written.items()):
                shown = [
                    s.value for s in reader.seen if s.origin == "output" and s.member == member
                ]
                if member in declared and shown and value not in shown:
                    yield SequenceFinding(
                        Failure.UPDATE_NOT_VISIBLE,
                        later,
                        reader.tool,
                        f"{member} not as written",
                        f"{step.tool} wrote {member} and {reader.tool} returned another value",
                    )
                    return
            break


CHECKS: Mapping[str, tuple[Check, tuple[Failure, ...]]] = {
    "no-crash": (check_no_crash, (Failure.SEQUENCE_CRASH, Failure.SEQUENCE_TIMEOUT)),
    "resource-availability": (check_resource_availability, (Failure.RESOURCE_UNAVAILABLE,)),
    "use-after-delete": (check_use_after_delete, (Failure.USE_AFTER_DELETE,)),
    "update-visible": (check_update_visible, (Failure.UPDATE_NOT_VISIBLE,)),
}
"""The checks across calls, by name: the check and the failure classes it reports."""


def check_sequence(
    steps: Sequence[Step], graph: Graph, enabled: Sequence[str]
) -> list[SequenceFinding]:
    """Every finding of the `enabled` checks, the earliest step first."""
    found = [f for name in enabled for f in CHECKS[name][0](steps, graph)]
    return sorted(found, key=lambda f: (f.step, f.failure.value, f.cause))


def _certain_source(steps: Sequence[Step], index: int, member: str, graph: Graph) -> int | None:
    """The step `member` of step `index` was taken from, when the link is certain."""
    link = steps[index].linked(member)
    if link is None or link.origin != "output" or link.step >= index:
        return None
    if not graph.certain(steps[index].tool, member, steps[link.step].tool):
        return None
    return link.step


def _between(
    steps: Sequence[Step], start: int, end: int, graph: Graph, kinds: frozenset[ToolKind]
) -> bool:
    return any(graph.kind(steps[i].tool) in kinds for i in range(start + 1, end))


def _returned(step: Step, value: JSON) -> bool:
    return any(seen.origin == "output" and seen.value == value for seen in step.seen)


def _scalar(value: JSON) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)
