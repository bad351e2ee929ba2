"""Which sequences a stateful campaign tries, in which order, from a seed (pure).

First the shapes where stateful bugs live, built from the link graph for each creating
tool and the tools its values reach: create -> read; create, create -> delete -> read;
create -> delete -> delete / list / search; create, create -> update -> read / list /
search (the second create makes a write to the wrong record show); three creates, a
list, a delete and the list again with the cursor the first list gave. Each shape runs
from a fresh state. Then seeded random walks (a
creating tool first when there is one) until the campaign's count. Each call's arguments
come from `Maker` (valid under the tool's schema, from the seed and an index), and its
linkable members are bound at run time (`sequence.run_sequence`). Same seed and tools,
same sequences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from random import Random

from toolfuzz_gate.core.campaign.stateful.links import Link, ServerTool, linkable
from toolfuzz_gate.core.campaign.stateful.sequence import QUERY_WORDS, Call
from toolfuzz_gate.core.campaign.stateful.tool_kinds import ToolKind
from toolfuzz_gate.core.engine.seeds import stable_int

Maker = Callable[[str, int], dict]  # type: ignore[type-arg]
"""(tool, index) -> schema-valid arguments for that tool."""
CALLS_PER_SEQUENCE = 16
"""Indices reserved per sequence, so a sequence's arguments do not move with another's."""


def plan_sequences(
    tools: Mapping[str, ServerTool],
    links: Sequence[Link],
    make: Maker,
    seed: int,
    count: int,
    max_calls: int,
) -> tuple[list[list[Call]], int]:
    """`count` sequences of at most `max_calls` calls: the shapes first, then walks; and
    how many are shapes (each is run from a fresh state: its order is what it tests)."""
    shapes = list(dict.fromkeys(tuple(s) for s in _shapes(tools, links) if len(s) <= max_calls))
    planned: list[list[Call]] = []
    targets = {(link.consumer, link.input) for link in links}

    def call(tool: str, number: int, position: int) -> Call:
        return _call(tools, tool, make, number, position, targets)

    for number, shape in enumerate(shapes[:count]):
        planned.append([call(tool, number, position) for position, tool in enumerate(shape)])
    shaped = len(planned)
    names = sorted(tools)
    creating = [n for n in names if tools[n].shape.kind is ToolKind.CREATES]
    number = len(planned)
    while len(planned) < count and names:
        rng = Random(stable_int(seed, "stateful-walk", number))
        length = rng.randint(2, max(2, max_calls))
        walk = [rng.choice(creating)] if creating else []
        walk += [rng.choice(names) for _ in range(length - len(walk))]
        planned.append([call(tool, number, position) for position, tool in enumerate(walk)])
        number += 1
    return planned, shaped


def _call(
    tools: Mapping[str, ServerTool],
    tool: str,
    make: Maker,
    number: int,
    position: int,
    targets: set[tuple[str, str]],
) -> Call:
    """A call of `tool`; `targets`: the (tool, input) pairs a link (declared ones too)
    feeds, bound at run time whatever their names."""
    found = tools[tool]
    arguments = make(tool, number * CALLS_PER_SEQUENCE + position)
    bind = tuple(
        member
        for member, schema in sorted(found.inputs().items())
        if linkable(member, schema)
        or (tool, member) in targets
        or (found.shape.kind is ToolKind.SEARCHES and member.lower() in QUERY_WORDS)
    )
    return Call(tool, arguments, (), bind)


def _shapes(tools: Mapping[str, ServerTool], links: Sequence[Link]) -> Iterator[list[str]]:
    reached: dict[str, set[str]] = {}
    for link in links:
        reached.setdefault(link.producer, set()).add(link.consumer)

    def kinds(*wanted: ToolKind) -> list[str]:
        return sorted(n for n, t in tools.items() if t.shape.kind in wanted)

    views = kinds(ToolKind.LISTS, ToolKind.SEARCHES)
    for create in kinds(ToolKind.CREATES):
        consumers = reached.get(create, set())
        reads = [n for n in kinds(ToolKind.READS) if n in consumers]
        deletes = [n for n in kinds(ToolKind.DELETES) if n in consumers]
        updates = [n for n in kinds(ToolKind.UPDATES) if n in consumers]
        for read in reads:
            yield [create, read]
        for delete in deletes:
            for read in reads:  # two creates: a delete of the wrong one shows
                yield [create, create, delete, read]
            yield [create, delete, delete]
            for view in views:
                yield [create, delete, view]
        for update in updates:
            for after in reads + views:  # two creates: an update of the wrong one shows
                yield [create, create, update, after]
        for view in views:
            if any(_cursor(tools[view])) and deletes:
                yield [create, create, create, view, deletes[0], view]


def _cursor(tool: ServerTool) -> Iterator[str]:
    for member in tool.inputs():
        if "cursor" in member.lower() or member.lower() in (
            "page_token",
            "pagetoken",
            "offset_token",
        ):
            yield member
