"""Kinds, links and domain values of a stateful campaign (pure)."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.stateful.links import (
    Link,
    ServerTool,
    fits,
    infer_links,
    listed_graph,
)
from toolfuzz_gate.core.campaign.stateful.tool_kinds import ToolKind, classify
from toolfuzz_gate.core.campaign.stateful.value_pool import (
    choices_named,
    harvest,
    listing_domain,
    rejection_domain,
)
from toolfuzz_gate.core.jsonutil.canonical import JSONObject


def tool(
    name: str, inputs: dict[str, Any], output: dict[str, Any] | None = None, **hints: bool
) -> ServerTool:
    schema = {"type": "object", "properties": inputs, "required": sorted(inputs)}
    return ServerTool(classify(name, hints), schema, output)


def test_kinds_come_from_the_first_verb_and_read_only_hints_win() -> None:
    assert classify("create_note").kind is ToolKind.CREATES
    assert classify("getNote").kind is ToolKind.READS
    assert classify("list-available-vaults").kind is ToolKind.LISTS
    assert classify("list-available-vaults").nouns == ("available", "vault")
    assert classify("search_nodes").kind is ToolKind.SEARCHES
    assert classify("delete_entities").nouns == ("entity",)
    assert classify("frobnicate").kind is ToolKind.OTHER
    assert classify("update_note", {"readOnlyHint": True}).kind is ToolKind.READS
    assert classify("get_thing", None, "deletes").kind is ToolKind.DELETES


def test_members_fit_by_words_by_noun_and_by_cursor() -> None:
    assert fits("note_id", ("note",), "noteId", ("note",))
    assert fits("id", ("note",), "note_id", ("note",))
    assert not fits("id", ("tag",), "note_id", ("note",))
    assert fits("note_id", ("x",), "id", ("note",))
    assert fits("next_cursor", ("note",), "cursor", ("note",))
    assert fits("name", ("entity",), "entityNames", ("entity",))
    assert not fits("title", ("note",), "note_id", ("note",))


def test_links_from_output_schemas_are_certain_and_names_alone_plausible() -> None:
    note = {"type": "object", "properties": {"id": {"type": "string"}}}
    create = tool("create_note", {"title": {"type": "string"}}, note)
    get = tool("get_note", {"note_id": {"type": "string"}}, readOnlyHint=True)
    bare_create = tool("create_note", {"title": {"type": "string"}})
    links = infer_links([create, get])
    assert links == [Link("create_note", "id", "get_note", "note_id", True, "outputSchema")]
    guessed = infer_links([bare_create, get])
    assert guessed == [Link("create_note", "id", "get_note", "note_id", False, "names")]
    declared = Link("get_note", "x", "get_note", "note_id", True, "policy")
    assert declared in infer_links([bare_create, get], [declared])


def test_titles_are_not_linked_so_an_update_writes_its_own_value() -> None:
    note = {"type": "object", "properties": {"id": {}, "title": {}}}
    create = tool("create_note", {"title": {"type": "string"}}, note)
    update = tool("update_note", {"note_id": {"type": "string"}, "title": {"type": "string"}})
    assert [(x.consumer, x.input) for x in infer_links([create, update])] == [
        ("update_note", "note_id")
    ]


def test_a_rejection_naming_the_valid_choices_teaches_the_argument_it_echoed() -> None:
    said = "Unknown vault: zz9. Available vaults: work, personal"
    assert choices_named(said) == ["work", "personal"]
    rejected = Outcome(kind=OutcomeKind.REJECTED, message=said)
    assert rejection_domain(rejected, {"vault": "zz9", "path": "a.md"}) == (
        "vault",
        ["work", "personal"],
    )
    assert rejection_domain(Outcome(kind=OutcomeKind.REJECTED, message="no"), {"a": "b"}) is None


def test_a_listing_teaches_the_member_its_noun_names() -> None:
    nouns = classify("list-available-vaults").nouns
    assert listing_domain(nouns, ["work", "home"], {"vault": {}, "path": {}}) == (
        "vault",
        ["work", "home"],
    )
    assert listing_domain(nouns, {"vaults": [{"name": "w"}]}, {"vault": {}}) == ("vault", ["w"])
    assert listing_domain(nouns, ["w"], {"path": {}}) is None


def test_harvest_names_array_items_by_the_arrays_singular() -> None:
    seen = harvest({"notes": [{"id": "n1"}], "tags": ["a"], "ok": True}, 3, "output")
    assert [(s.member, s.value, s.step) for s in seen] == [("id", "n1", 3), ("tag", "a", 3)]


def test_deeper_output_members_link_by_their_place_and_the_holder_names_the_noun() -> None:
    from toolfuzz_gate.core.campaign.stateful.links import at_place, place_fits

    owner = {"type": "object", "properties": {"id": {"type": "string"}}}
    deep = {
        "type": "object",
        "properties": {
            "owner": owner,
            "data": {"type": "object", "properties": {"note": owner}},
            "items": {"type": "array", "items": owner},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    }
    create = tool("create_note", {"title": {"type": "string"}}, deep)
    assert ("data", "note", "id") in create.places() and ("tags", "*") in create.places()
    assert ("items", "*", "id") in create.places()
    get = tool("get_note", {"note_id": {"type": "string"}}, readOnlyHint=True)
    links = {(x.consumer, x.input): x.output for x in infer_links([create, get])}
    # the holder naming the input's noun first: the note's id, never the owner's
    assert links == {("get_note", "note_id"): "/data/note/id"}
    nouns = ("note",)
    assert place_fits(("owner", "id"), nouns, "owner_id", ("owner",))
    assert not place_fits(("owner", "id"), nouns, "note_id", nouns)
    assert place_fits(("result", "id"), nouns, "note_id", nouns)  # a holder naming nothing
    assert place_fits(("notes", "*", "id"), ("x",), "note_id", nouns)
    assert at_place(("items", 2, "id"), "/items/*/id") and at_place(("items", 2, "id"), "id")
    assert not at_place(("items", 2, "id"), "/items/*") and not at_place(("id",), "/items/*/id")


def test_harvest_keeps_where_each_value_was_and_a_link_names_it_by_that() -> None:
    seen = harvest({"id": "top", "note": {"id": "n1"}, "items": [{"id": "a"}, {"id": "b"}]}, 0, "o")
    assert [(s.reference, s.value) for s in seen] == [
        ("id", "top"),
        ("/note/id", "n1"),
        ("/items/0/id", "a"),
        ("/items/1/id", "b"),
    ]
    assert seen[3].named_by("/items/1/id") and seen[3].named_by("id")
    assert not seen[3].named_by("/items/0/id")


def test_a_declared_link_binds_its_input_whatever_the_input_is_called() -> None:
    """`label` names no held thing, so nothing would bind it; a policy link does, from the
    place it names."""
    from toolfuzz_gate.core.campaign.stateful.sequence import Context, run_sequence

    made = {"type": "object", "properties": {"meta": {"type": "object", "properties": {}}}}
    create = tool("create_widget", {"size": {"type": "integer"}}, made)
    show = tool("show_widget", {"label": {"type": "string"}}, readOnlyHint=True)
    declared = Link("create_widget", "/meta/handle", "show_widget", "label", True, "policy")
    links = infer_links([create, show], [declared])
    from toolfuzz_gate.core.campaign.stateful.sequence_plan import plan_sequences

    planned, _ = plan_sequences(
        {"create_widget": create, "show_widget": show},
        links,
        lambda name, index: {"size": 1} if name == "create_widget" else {"label": "x"},
        41,
        1,
        2,
    )
    assert planned[0][1].bind == ("label",)

    class Server:
        def begin(self) -> None: ...

        def fresh(self) -> None: ...

        def call(self, name: str, arguments: Any) -> Outcome:
            answer: JSONObject = {"meta": {"id": "m-1", "handle": "w-9"}}
            if name != "create_widget":
                answer = {}
            return Outcome(kind=OutcomeKind.ACCEPTED, structured=answer, has_structured=True)

    tools = {"create_widget": create, "show_widget": show}
    steps = run_sequence(Server(), planned[0], Context(tools, links))
    assert steps[1].call.arguments == {"label": "w-9"}
    assert [link.as_json()["from"] for link in steps[1].call.links] == ["/meta/handle"]


def test_lint_reads_the_graph_of_a_listing_with_two_tools_or_more() -> None:
    created = {"type": "object", "properties": {"id": {"type": "string"}}}
    listed: dict[str, Any] = {
        "tools": [
            {"name": "create_note", "inputSchema": {"type": "object"}, "outputSchema": created},
            {
                "name": "get_note",
                "inputSchema": {"type": "object", "properties": {"note_id": {"type": "string"}}},
                "annotations": {"readOnlyHint": True},
            },
            {"name": "no_schema"},
        ]
    }
    assert listed_graph(listed) == [
        "create_note: creates",
        "get_note: reads",
        "create_note.id -> get_note.note_id (certain, outputSchema)",
    ]
    assert listed_graph(listed["tools"]) == listed_graph(listed)  # the bare list alike
    assert listed_graph(listed["tools"][:1]) == [] and listed_graph("not a listing") == []
