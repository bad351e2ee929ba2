"""Kinds, links and domain values of a stateful campaign (pure)."""

from __future__ import annotations

from typing import Any

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.stateful.links import Link, ServerTool, fits, infer_links
from toolfuzz_gate.core.campaign.stateful.tool_kinds import ToolKind, classify
from toolfuzz_gate.core.campaign.stateful.value_pool import (
    choices_named,
    harvest,
    listing_domain,
    rejection_domain,
)


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
