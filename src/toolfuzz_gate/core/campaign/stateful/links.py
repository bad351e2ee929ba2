"""Producer -> consumer links between a server's tools, inferred and declared (pure).

A link says that a member of one tool's output (`id`, `note_id`, `next_cursor`) is what a
member of another tool's input takes. The output member may sit deeper than the top: a
*place* is a JSON Pointer into the output whose `*` stands for every item of an array
(`/note/id`, `/notes/*/id`); a link names a top-level member by its name and a deeper one
by its place. Two members fit when their names are equal (word by word: `noteId` is
`note_id`), when the output's `id` belongs to the noun the input names (`create_note` ->
`id` fits `note_id`; deeper, the object that holds it names the noun: `/note/id` and
`/notes/*/id` fit `note_id`, `/owner/id` does not, and a holder that names nothing, such as
`data` or `result`, leaves it to the tool's nouns), or when both name a cursor. A link read from the
producer's declared `outputSchema`, or declared by the policy (`stateful.links`), is
*certain*: the checks that need to know what a value is (`sequence_checks`) run only on
certain links. Without an output schema, a tool whose kind produces values (creates,
lists, searches) gives *plausible* links to the inputs its nouns fit: sequences still bind
them, from what the server actually returns (`value_pool`), and only the checks that need
no certainty (a crash, a hang) judge them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolfuzz_gate.core.campaign.stateful.tool_kinds import (
    ToolKind,
    ToolShape,
    classify,
    singular,
    words,
)
from toolfuzz_gate.core.jsonutil import pointer as jp

ID_WORDS = frozenset(
    (
        *("id", "ids", "key", "name", "path", "uri", "url", "cursor", "token", "handle"),
        *("slug", "uuid", "ref", "file", "filename", "vault", "entity"),
    )
)
"""Last words of an input member that names a thing the server holds."""
_PRODUCING = frozenset((ToolKind.CREATES, ToolKind.LISTS, ToolKind.SEARCHES, ToolKind.READS))
EVERY_ITEM = "*"
"""A place's token for every item of an array."""
MAX_PLACE_DEPTH = 5
"""Tokens of the deepest place read from an output schema (`/a/b/*/c/id`)."""
_HOLDERS = frozenset(
    ("data", "result", "item", "record", "entry", "value", "content", "response", "output")
)
"""Holders that name no noun of their own: a member under one belongs to the tool's nouns."""
Place = tuple[str, ...]


@dataclass(frozen=True)
class ServerTool:
    """What the campaign knows of one tool: its shape, input schema and output schema."""

    shape: ToolShape
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.shape.name

    def inputs(self) -> dict[str, Mapping[str, Any]]:
        """The top-level input members and their schemas."""
        found = self.input_schema.get("properties")
        return (
            {k: v for k, v in found.items() if isinstance(v, dict)}
            if isinstance(found, dict)
            else {}
        )

    def required(self) -> frozenset[str]:
        listed = self.input_schema.get("required")
        return (
            frozenset(x for x in listed if isinstance(x, str))
            if isinstance(listed, list)
            else frozenset()
        )

    def outputs(self) -> tuple[str, ...]:
        """Member names the output schema declares, at the top and one object deeper."""
        return tuple(sorted(set(_declared_members(self.output_schema, 2))))

    def places(self) -> list[Place]:
        """Every place the output schema declares, `MAX_PLACE_DEPTH` tokens deep at most."""
        return sorted(set(_declared_places(self.output_schema, ())))


@dataclass(frozen=True)
class Link:
    producer: str
    output: str
    consumer: str
    input: str
    certain: bool
    source: str
    """`outputSchema`, `policy` or `names`."""

    def as_json(self) -> dict[str, Any]:
        return {
            "from": self.producer,
            "output": self.output,
            "to": self.consumer,
            "input": self.input,
            "certain": self.certain,
            "source": self.source,
        }


def fits(
    output: str, producer_nouns: Sequence[str], member: str, consumer_nouns: Sequence[str]
) -> bool:
    """Does output member `output` (of a tool about `producer_nouns`) fit input `member`?"""
    out, into = _norm(output), _norm(member)
    if not out or not into:
        return False
    if out == into:
        return True
    if out[-1] == "cursor" and into[-1] == "cursor":
        return True
    if len(out) == 1 and len(into) >= 2 and into[-1] == out[0] and into[-2] in producer_nouns:
        return True  # `id` (or `name`) of a tool about notes fits `note_id` (`noteName`)
    return into == ("id",) and len(out) >= 2 and out[-1] == "id" and out[-2] in consumer_nouns


def place_of(path: Sequence[str | int]) -> Place:
    """The place of a concrete path (array indices as `*`)."""
    return tuple(EVERY_ITEM if isinstance(token, int) else token for token in path)


def place_text(place: Place) -> str:
    """How a link names a place: a top-level member by its name, a deeper one by pointer."""
    return place[0] if len(place) == 1 else jp.from_parts(place)


def at_place(path: Sequence[str | int], reference: str) -> bool:
    """Is the value at concrete `path` one a link's `reference` names: a pointer (whose `*`
    matches any index) equal to it, or a plain name equal to the path's last member?"""
    if not reference.startswith("/"):
        named = [token for token in path if isinstance(token, str)]
        return bool(named) and named[-1] == reference
    wanted = jp.split(reference)
    if len(wanted) != len(path):
        return False
    return all(
        str(token) == want or (want == EVERY_ITEM and isinstance(token, int))
        for token, want in zip(path, wanted, strict=True)
    )


def place_fits(
    place: Place, producer_nouns: Sequence[str], member: str, consumer_nouns: Sequence[str]
) -> bool:
    """Does the output value at `place` fit input `member`? The name is the place's last
    member (an array's items: the array's singular), its noun the holder's, if any."""
    named = [k for k, token in enumerate(place) if token != EVERY_ITEM]
    if not named:
        return False
    last = named[-1]
    name = place[last]
    if last < len(place) - 1:  # an item of an array of scalars: `tags` -> `tag`
        name = "_".join(_norm(name))
    holders = [place[k] for k in named if k < last]
    nouns = producer_nouns
    if holders and _norm(holders[-1]) and _norm(holders[-1])[-1] not in _HOLDERS:
        nouns = (_norm(holders[-1])[-1],)
    return fits(name, nouns, member, consumer_nouns)


def scalar_items(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The item schema of an array of strings or integers (None: not one)."""
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, dict):
        if items.get("type") in ("string", "integer"):
            return items
    return None


def linkable(member: str, schema: Mapping[str, Any]) -> bool:
    """Is input `member` one that names a held thing (an id, a name, a path, a cursor), or
    an array of such things (`entityNames`)?"""
    items = scalar_items(schema)
    if items is not None:
        schema = items
    kind = schema.get("type")
    if kind not in (None, "string", "integer", ["string", "null"], ["integer", "null"]):
        return False
    if "enum" in schema or "const" in schema:
        return False
    tokens = _norm(member)
    return bool(tokens) and tokens[-1] in ID_WORDS


def infer_links(tools: Sequence[ServerTool], declared: Iterable[Link] = ()) -> list[Link]:
    """Every link between `tools`: the `declared` ones first, then those the output
    schemas make certain, then the plausible ones their names allow; one link per
    (producer, consumer, input), sorted."""
    found: dict[tuple[str, str, str], Link] = {}
    for link in declared:
        found.setdefault((link.producer, link.consumer, link.input), link)
    for producer in tools:
        if producer.shape.kind not in _PRODUCING and not producer.outputs():
            continue
        for consumer in tools:
            for member, schema in sorted(consumer.inputs().items()):
                if not linkable(member, schema):
                    continue
                key = (producer.name, consumer.name, member)
                if key in found or (producer is consumer and "cursor" not in member.lower()):
                    continue
                inferred = _link(producer, consumer, member)
                if inferred is not None:
                    found[key] = inferred
    return sorted(found.values(), key=lambda x: (x.producer, x.consumer, x.input))


def _link(producer: ServerTool, consumer: ServerTool, member: str) -> Link | None:
    p_nouns, c_nouns = producer.shape.nouns, consumer.shape.nouns
    noun = _norm(member)[-2:-1]

    def preferred(place: Place) -> tuple[bool, int, Place]:
        # the holder naming the input's noun first (`/note/id` before `/owner/id`), then
        # the shallowest
        holders = [_norm(t)[-1:] for t in place[:-1] if t != EVERY_ITEM and _norm(t)]
        return (not noun or not holders or holders[-1] != noun, len(place), place)

    for place in sorted(producer.places(), key=preferred):
        if place_fits(place, p_nouns, member, c_nouns):
            output = place_text(place)
            return Link(producer.name, output, consumer.name, member, True, "outputSchema")
    if producer.output_schema is not None or producer.shape.kind is not ToolKind.CREATES:
        return None
    tokens = _norm(member)
    shared = set(p_nouns) & set(c_nouns)
    if tokens[-1] in ("id", "key", "name", "path", "uuid", "slug") and shared:
        return Link(
            producer.name,
            "id" if tokens[-1] == "id" else member,
            consumer.name,
            member,
            False,
            "names",
        )
    return None


def render_graph(shapes: Sequence[ToolShape], links: Sequence[Link]) -> list[str]:
    """The inferred graph as lines for `lint`: each tool's kind, then each link."""
    lines = [f"{s.name}: {s.kind.value}{' (declared)' if s.declared else ''}" for s in shapes]
    for link in links:
        how = "certain" if link.certain else "plausible"
        lines.append(
            f"{link.producer}.{link.output} -> {link.consumer}.{link.input} ({how}, {link.source})"
        )
    return lines


def listed_graph(listed: Any) -> list[str]:
    """`render_graph` of the links inferred among the tools of an MCP `tools/list` answer
    (`{"tools": [...]}`, or the list), when two or more have an input schema; else none."""
    items = listed.get("tools") if isinstance(listed, dict) else listed
    tools = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("inputSchema"), dict):
            continue
        hints, output = item.get("annotations"), item.get("outputSchema")
        shape = classify(str(item.get("name")), hints if isinstance(hints, dict) else None)
        schema: Any = item["inputSchema"]
        tools.append(ServerTool(shape, schema, output if isinstance(output, dict) else None))
    if len(tools) < 2:
        return []
    return render_graph([tool.shape for tool in tools], infer_links(tools))


def _norm(name: str) -> tuple[str, ...]:
    return tuple(singular(word) for word in words(name))


def _declared_places(schema: Any, above: Place) -> Iterable[Place]:
    if not isinstance(schema, dict) or len(above) >= MAX_PLACE_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            if isinstance(name, str):
                yield (*above, name)
                yield from _declared_places(sub, (*above, name))
    items = schema.get("items")
    if isinstance(items, dict) and above and above[-1] != EVERY_ITEM:
        if items.get("type") in ("string", "integer"):
            yield (*above, EVERY_ITEM)
        yield from _declared_places(items, (*above, EVERY_ITEM))


def _declared_members(schema: Any, depth: int) -> Iterable[str]:
    if not isinstance(schema, dict) or depth <= 0:
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            yield name
            yield from _declared_members(sub, depth - 1)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _declared_members(items, depth)
