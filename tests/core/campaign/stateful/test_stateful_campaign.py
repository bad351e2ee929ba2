"""A stateful campaign over the planted note store, in process (pure core; the fixture's
store behind the `Server` seam, so every planted bug is tried without a process)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolfuzz_gate.core.campaign.outcome import Outcome, OutcomeKind
from toolfuzz_gate.core.campaign.receipt_ledgers import StoppedAt
from toolfuzz_gate.core.campaign.receipt_read import read_receipt
from toolfuzz_gate.core.campaign.stateful.sequence_receipt import calls_of, stateful_receipt
from toolfuzz_gate.core.campaign.stateful.server_tools import PreparedTools, ToolEntry
from toolfuzz_gate.core.campaign.stateful.stateful_campaign import StatefulConfig, run_stateful
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.jsonutil.canonical import JSONObject, canonical_document

FIXTURE = Path(__file__).parents[3] / "fixtures" / "stateful" / "notes_mcp.py"


def _fixture() -> ModuleType:
    spec = importlib.util.spec_from_file_location("notes_mcp_fixture", FIXTURE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NOTES = _fixture()


class InProcess:
    """The fixture's store as a `Server`: `fresh` is a new store."""

    def __init__(self, bug: str | None, nested: bool = False) -> None:
        self.bug = bug
        self.nested = nested
        self.store: Any = NOTES.Store(bug, nested)
        self.calls = 0
        self.fresh_starts = 0

    def fresh(self) -> None:
        self.store = NOTES.Store(self.bug, self.nested)
        self.fresh_starts += 1

    def begin(self) -> None:
        """No fixtures: nothing to lay."""

    def call(self, tool: str, arguments: JSONObject) -> Outcome:
        self.calls += 1
        try:
            result = self.store.call(tool, dict(arguments))
        except Exception as error:
            return Outcome(kind=OutcomeKind.CRASH, message=repr(error), cause=type(error).__name__)
        structured = result.get("structuredContent")
        if result.get("isError"):
            return Outcome(kind=OutcomeKind.REJECTED, error_code=structured["code"])
        return Outcome(kind=OutcomeKind.ACCEPTED, structured=structured, has_structured=True)


def prepared(seed: int = 41, nested: bool = False) -> PreparedTools:
    entries = [
        ToolEntry(
            ToolSpec(t["name"]), t["inputSchema"], t.get("outputSchema"), t.get("annotations")
        )
        for t in NOTES.tools_for(nested)
    ]
    return PreparedTools(entries, {}, [], seed)


def campaign(bug: str | None, seed: int = 41, nested: bool = False) -> tuple[JSONObject, InProcess]:
    tools = prepared(seed, nested)
    server = InProcess(bug, nested)
    config = StatefulConfig(seed)
    result = run_stateful(server, tools.tools, tools.links, config, tools.make, tools.admits)
    receipt = stateful_receipt(
        "notes", tools.tools, tools.links, config, result, handler_label={}, replay_command="r"
    )
    return receipt.document(), server


EXPECTED = {
    "crash-after-delete": (
        "sequence-crash",
        "/get_note",
        ["create_note", "delete_note", "get_note"],
    ),
    "double-delete": (
        "use-after-delete",
        "/delete_note",
        ["create_note", "delete_note", "delete_note"],
    ),
    "stale-index": (
        "sequence-crash",
        "/search_notes",
        ["create_note", "delete_note", "search_notes"],
    ),
    "stale-cursor": (
        "sequence-crash",
        "/list_notes",
        ["create_note", "create_note", "create_note", "delete_note", "list_notes"],
    ),
    "unreadable-create": ("resource-unavailable", "/get_note", ["create_note", "get_note"]),
    "update-not-visible": (
        "update-not-visible",
        "/get_note",
        ["create_note", "create_note", "update_note", "get_note"],
    ),
}


@pytest.mark.parametrize("nested", [False, True], ids=["flat", "nested"])
@pytest.mark.parametrize("bug", sorted(EXPECTED))
def test_each_planted_bug_is_found_alone_and_shrunk_to_its_minimal_sequence(
    bug: str, nested: bool
) -> None:
    receipt, _ = campaign(bug, nested=nested)
    failure, path, tools = EXPECTED[bug]
    found: Any = receipt["counterexamples"]
    assert [(cx["failure"], cx["path"]) for cx in found] == [(failure, path)]
    cx = found[0]
    assert [call["tool"] for call in cx["sequence"]] == tools
    assert cx["failingCall"] == len(tools) and cx["sequence"][-1]["failing"] is True
    assert cx["reproduced"] == {"runs": 3, "failed": 3} and cx["flaky"] is False
    assert cx["sizes"][1] == len(tools) <= cx["sizes"][0]


@pytest.mark.parametrize("nested", [False, True], ids=["flat", "nested"])
def test_the_correct_reference_has_no_finding(nested: bool) -> None:
    receipt, server = campaign(None, nested=nested)
    assert receipt["counterexamples"] == []
    ledger: Any = receipt["invariants"]
    assert all(ledger.values())
    facts: Any = receipt["stateful"]
    assert facts["sequences"] >= 9 and facts["calls"] > 20 and server.calls == facts["calls"]


def test_a_minimal_sequence_replays_from_a_fresh_state() -> None:
    receipt, _ = campaign("update-not-visible")
    calls = calls_of(read_receipt(receipt).counterexamples[0])
    assert calls is not None
    links = [(link.member, link.step) for call in calls for link in call.links]
    assert links == [("note_id", 1), ("note_id", 1)]  # the second create's id, twice
    from toolfuzz_gate.core.campaign.stateful.sequence import Context, run_sequence
    from toolfuzz_gate.core.campaign.stateful.sequence_checks import Graph, check_sequence

    tools = prepared()
    fresh = InProcess("update-not-visible")
    steps = run_sequence(fresh, calls, Context(tools.tools))
    found = check_sequence(steps, Graph(tools.tools, tools.links), ("update-visible",))
    assert [f.failure.value for f in found] == ["update-not-visible"]
    correct = InProcess(None)
    steps = run_sequence(correct, calls, Context(tools.tools))
    assert check_sequence(steps, Graph(tools.tools, tools.links), ("update-visible",)) == []


def test_the_same_seed_gives_byte_identical_receipts_and_another_seed_other_sequences() -> None:
    first, _ = campaign("stale-index", 7)
    again, _ = campaign("stale-index", 7)
    other, _ = campaign("stale-index", 8)
    assert canonical_document(first) == canonical_document(again)
    assert first["receiptHash"] != other["receiptHash"]


def test_a_finding_that_needs_no_state_is_left_to_the_tools_own_campaign() -> None:
    class CrashesOnSearch(InProcess):
        def call(self, tool: str, arguments: JSONObject) -> Outcome:
            if tool == "search_notes":
                return Outcome(kind=OutcomeKind.CRASH, message="boom", cause="Boom")
            return super().call(tool, arguments)

    tools = prepared()
    config = StatefulConfig(41)
    result = run_stateful(
        CrashesOnSearch(None), tools.tools, tools.links, config, tools.make, tools.admits
    )
    assert result.counterexamples == []
    assert result.dropped == {"single-call": 1}


def test_saturation_counts_walks_only_so_every_shape_runs() -> None:
    """The stale cursor lives in the last shape: a window of one walk still reaches it."""
    tools = prepared()
    config = StatefulConfig(41, window=1)
    server = InProcess("stale-cursor")
    result = run_stateful(server, tools.tools, tools.links, config, tools.make, tools.admits)
    assert [c.finding.tool for c in result.counterexamples] == ["list_notes"]
    assert result.stop == "saturated" and result.ran < result.planned


def test_without_saturation_every_planned_sequence_runs() -> None:
    tools = prepared()
    saturated = run_stateful(
        InProcess(None), tools.tools, tools.links, StatefulConfig(41), tools.make, tools.admits
    )
    config = StatefulConfig(41, window=0)
    whole = run_stateful(
        InProcess(None), tools.tools, tools.links, config, tools.make, tools.admits
    )
    assert saturated.stop == "saturated" and saturated.ran < saturated.planned
    assert whole.stop is None and whole.ran == whole.planned == config.sequences


class CountingClock:
    """A budget's clock that reads the server's calls: the budget ends after `calls`."""

    def __init__(self, server: InProcess) -> None:
        self.server = server

    def __call__(self) -> float:
        return float(self.server.calls)


def test_a_spent_budget_stops_between_sequences_and_says_what_was_not_run() -> None:
    from toolfuzz_gate.core.campaign.time_budget import Budget, budget_record

    tools = prepared()
    server = InProcess(None)
    budget = Budget(CountingClock(server), 5, "run", None, 30.0)
    config = StatefulConfig(41)
    result = run_stateful(
        server, tools.tools, tools.links, config, tools.make, tools.admits, budget
    )
    # shape 1 makes 2 calls, shape 2 makes 4: the budget is spent before shape 3
    assert (result.ran, result.calls, server.calls) == (2, 6, 6)
    assert result.stop == "budget" and result.budget_stop == StoppedAt("stateful", 2)
    spent = budget_record(budget, result.budget_stop, result.not_run())
    receipt = stateful_receipt(
        "notes",
        tools.tools,
        tools.links,
        config,
        result,
        handler_label={},
        replay_command="r",
        budget=spent,
    )
    said: Any = receipt.document()["budget"]
    assert said["exhausted"] is True and said["scope"] == "run"
    assert said["notRun"] == {"stateful": result.planned - 2}


def test_a_finding_made_after_the_budget_ran_out_shrinks_with_the_smaller_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolfuzz_gate.core.campaign.stateful import stateful_campaign
    from toolfuzz_gate.core.campaign.time_budget import Budget

    monkeypatch.setattr(stateful_campaign, "SHRINK_CALLS_AFTER", 8)
    tools = prepared()
    config = StatefulConfig(41, shrink_runs=500)

    def fresh_starts(ends_after: float) -> tuple[int, Any]:
        server = InProcess("crash-after-delete")
        budget = Budget(CountingClock(server), ends_after, "tool", 1.0, None)
        result = run_stateful(
            server, tools.tools, tools.links, config, tools.make, tools.admits, budget
        )
        return server.fresh_starts, result

    # the crash comes in shape 2 (create, create, delete, get), after 2 + 4 calls
    plenty, found = fresh_starts(10_000)
    cut, stopped = fresh_starts(3)
    assert [c.finding.tool for c in found.counterexamples] == ["get_note"]
    assert [c.finding.tool for c in stopped.counterexamples] == ["get_note"]
    assert stopped.budget_stop == StoppedAt("stateful", 2) and stopped.ran == 2
    # fresh starts: 2 shapes, the first replay, 8 // 4 = 2 shrinking runs, 2 confirmations,
    # the fresh state after; uncut, shrinking alone takes more
    assert cut == 2 + 1 + 2 + 2 + 1 < plenty


def test_nested_outputs_link_by_place_and_bind_the_value_at_it() -> None:
    tools = prepared(nested=True)
    links = {(x.producer, x.consumer, x.input): (x.output, x.certain) for x in tools.links}
    # the note's id, not the owner's that comes first; a listing's items by their place
    assert links[("create_note", "get_note", "note_id")] == ("/note/id", True)
    assert links[("list_notes", "delete_note", "note_id")] == ("/items/*/id", True)
    assert links[("list_notes", "list_notes", "cursor")] == ("next_cursor", True)
    receipt, _ = campaign("update-not-visible", nested=True)
    listed: Any = receipt["counterexamples"]
    sequence = listed[0]["sequence"]
    froms = [link["from"] for call in sequence for link in call.get("links", [])]
    assert froms == ["/note/id", "/note/id"]
    assert sequence[2]["arguments"]["note_id"] == "n2"  # the second create's note
    calls = calls_of(read_receipt(receipt).counterexamples[0])
    assert calls is not None
    from toolfuzz_gate.core.campaign.stateful.sequence import Context, run_sequence

    steps = run_sequence(InProcess("update-not-visible", True), calls, Context(tools.tools))
    assert [s.call.arguments.get("note_id") for s in steps] == [None, None, "n2", "n2"]
