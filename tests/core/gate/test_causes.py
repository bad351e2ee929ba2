"""`core.gate.causes` and `core.gate.reach_verdict`: grouping by root cause, the group as one
unit across base and head, unreached tools and servers answering rejections as successes."""

from __future__ import annotations

from typing import Any

from tests.receipts import REACH, typed
from toolfuzz_gate.core.campaign.reach import error_worded
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.causes import change_of, group_diff
from toolfuzz_gate.core.gate.reach_verdict import (
    answering,
    entries_of,
    server_of,
    unreached,
    unreached_check,
)
from toolfuzz_gate.core.gate.receipt_diff import diff_receipts

SERVER = {"mcp": {"command": ["/a/venv/bin/python", "/a/srv.py"], "tool": "t"}}


def cx(fp: str, path: str = "/n", answer: str = "") -> dict[str, Any]:
    error: dict[str, Any] = {
        "reason": f'accepted the string "0" where an integer is required (at {path})'
    }
    error["required"] = "an integer"
    if answer:
        error["answer"] = answer
    return {
        "fingerprint": fp * 24,
        "failure": "hostile-accepted",
        "cause": "",
        "path": path,
        "mutation": "type",
        "operator": f"type:numeric-string@{path}",
        "error": error,
    }


def receipt(
    tool: str,
    *found: dict[str, Any],
    reach: dict[str, Any] | None = None,
    handler: dict[str, Any] = SERVER,
) -> Receipt:
    return typed(
        {
            "tool": tool,
            "seed": 41,
            "handler": handler,
            "counterexamples": list(found),
            "schemaDigest": "d",
            **({"reach": reach} if reach else {}),
        }
    )


def grouped(base: dict[str, Receipt], head: dict[str, Receipt], each: bool = False) -> Any:
    return group_diff(diff_receipts(base, head), head, each=each)


def test_one_change_in_many_tools_is_one_group() -> None:
    head = {f"t{i}": receipt(f"t{i}", cx("abcdef0123"[i])) for i in range(10)}
    document = grouped({}, head)
    [group] = document["groups"]["new"]
    assert group["count"] == 10 and group["change"] == "type:numeric-string for an integer"
    assert group["reason"] == 'accepted the string "0" where an integer is required (at /n)'
    assert document["totals"]["newGroups"] == 1


def test_the_server_and_the_words_tell_groups_apart() -> None:
    other = receipt("u", cx("b"), handler={"mcp": {"command": ["node", "x.js"], "tool": "u"}})
    worded = {**cx("c"), "failure": "crash", "cause": "TypeError"}
    head = {"t": receipt("t", cx("a"), worded), "u": other}
    document = grouped({}, head)
    assert len(document["groups"]["new"]) == 3


def test_a_new_instance_of_a_known_group_is_still_failing_unless_each() -> None:
    base = {"t": receipt("t", cx("a"))}
    head = {"t": receipt("t", cx("a")), "u": receipt("u", cx("b", "/m"))}
    document = grouped(base, head)
    assert document["totals"]["new"] == 0
    still = [c for t in document["tools"] for c in t["counterexamples"]["stillFailing"]]
    assert [c.get("knownGroup") for c in still] == [None, True]
    each = grouped(base, head, each=True)
    assert each["totals"]["new"] == 1


def test_change_of_cases_without_an_operator() -> None:
    assert change_of({"mutation": "valid", "operator": ""}) == "valid"
    assert change_of({"operator": "format:date:leap-day@/d"}) == "format:date"
    assert change_of({"operator": "required:missing:name@"}) == "required:missing"


def test_server_of_drops_directories_and_the_tool() -> None:
    assert server_of(receipt("t")) == "mcp python srv.py"
    assert server_of(typed({"handler": {"spec": "python:pkg.mod:run"}})) == "python:pkg.mod"


def _reach(valid: dict[str, int], hostile: dict[str, int], said: str = "") -> dict[str, Any]:
    commonest = {
        "outcome": "rejected",
        "cause": "tool-error unknown vault",
        "said": said,
        "count": 20,
    }
    empty: Any = REACH
    return {
        **empty,
        "valid": {**empty["valid"], **valid},
        "hostile": {**empty["hostile"], **hostile},
        "commonest": commonest,
    }


def test_unreached_needs_the_door_not_crashes_or_timeouts() -> None:
    door = _reach({"calls": 20, "reached": 0, "rejected": 20}, {}, "Unknown vault: K")
    slow = _reach({"calls": 20, "reached": 0, "timedOut": 20}, {})
    some = _reach({"calls": 20, "reached": 1, "rejected": 19}, {})
    entries = entries_of(
        [receipt("a", reach=door), receipt("b", reach=slow), receipt("c", reach=some)]
    )
    [found] = unreached(entries)
    assert found.tool == "a" and found.sentence() == "never got past: Unknown vault: K (20 of 20)"


def test_a_server_answering_rejections_as_successes() -> None:
    worded = _reach({"calls": 20, "reached": 20}, {"accepted": 4, "errorAnswers": 3})
    once = _reach({"calls": 20, "reached": 20}, {"accepted": 4, "errorAnswers": 1})
    assert [a.tools for a in answering(entries_of([receipt("a", reach=worded)]))] == [("a",)]
    assert answering(entries_of([receipt("b", reach=once)])) == []
    # its error-worded near-misses become one group of their own class
    head = {
        "a": receipt("a", cx("a", answer="Error: no item 11"), reach=worded),
        "b": receipt("b", cx("b", "/m", answer="Error: too long"), reach=worded),
    }
    [group] = grouped({}, head)["groups"]["new"]
    assert group["failure"] == "rejection-as-success" and group["count"] == 2


def test_error_words() -> None:
    for said in (
        "Error: no item 3",
        "Database error: no such table",
        "Unknown vault: K",
        "AttributeError: 'NoneType' object has no attribute 'x'",
        "Entity with name x not found",
        "Failed to open file",
    ):
        assert error_worded(said), said
    for said in ("3 notes found", "renamed to 'a'", '{"errors": 0}', "No results", ""):
        assert not error_worded(said), said


def test_a_whole_call_class_is_one_group_whatever_input_found_it() -> None:
    unstable = [
        {**cx(fp), "failure": "replay-unstable", "operator": op, "mutation": mutation}
        for fp, op, mutation in (("a", "", "valid"), ("b", "", "seam:long-string"))
    ]
    head = {"t": receipt("t", *unstable)}
    [group] = grouped({}, head)["groups"]["new"]
    assert group["count"] == 2 and group["change"] == ""


def _alike(said: str) -> dict[str, Any]:
    reach = _reach({"calls": 20, "reached": 0, "answeredAlike": 20}, {"accepted": 6})
    reach["commonest"] = {"outcome": "answered-alike", "cause": "", "said": said, "count": 20}
    return reach


def test_one_answer_to_every_call_is_a_disguised_rejection_only_when_it_reads_as_one() -> None:
    # "Task not found" to every call: rejections answered as successes, one group of that class
    missing = _alike("Task not found")
    assert [a.tools for a in answering(entries_of([receipt("a", reach=missing)]))] == [("a",)]
    head = {"a": receipt("a", cx("a", answer="Task not found"), reach=missing)}
    [group] = grouped({}, head)["groups"]["new"]
    assert group["failure"] == "rejection-as-success"
    # a delete that answers every name alike does what it says: its near-misses keep their class
    done = _alike("Entities deleted successfully")
    assert answering(entries_of([receipt("d", reach=done)])) == []
    head = {"d": receipt("d", cx("d", answer="Entities deleted successfully"), reach=done)}
    [group] = grouped({}, head)["groups"]["new"]
    assert group["failure"] == "hostile-accepted"


def test_one_answer_to_every_call_is_unreached_only_when_it_reads_as_an_error() -> None:
    missing = entries_of([receipt("find", reach=_alike("Task not found"))])
    assert [item.tool for item in unreached(missing)] == ["find"]
    assert unreached_check(lambda tool: False, missing)[0]  # it fails the gate
    # a delete answering every name alike may be doing what it says: a note, not a failure
    done = entries_of([receipt("delete", reach=_alike("Entities deleted successfully"))])
    assert unreached(done) == []
    failed, notes = unreached_check(lambda tool: False, done)
    assert failed == []
    assert notes == [
        "reach: one answer to every call, so whether the tool's logic ran cannot be told: "
        "delete answers every call 'Entities deleted successfully' (20 of 20)"
    ]
    assert unreached_check(lambda tool: False, missing)[1] == []  # the failing one is no note


def test_the_one_answer_is_read_only_where_the_ledger_names_it() -> None:
    # the commonest way is a rejection: its words say nothing about the one answer
    reach = _alike("Task not found")
    reach["commonest"] = {"outcome": "rejected", "cause": "x", "said": "Unknown vault", "count": 30}
    assert answering(entries_of([receipt("a", reach=reach)])) == []
    # nor is it a note's: "answers every call 'Unknown vault'" would be another way's words
    assert unreached_check(lambda tool: False, entries_of([receipt("a", reach=reach)]))[1] == []
