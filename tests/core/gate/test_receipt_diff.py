"""`core.gate.receipt_diff`: the laws (a receipt set against itself is empty, swapping sides swaps
the
verdicts, totals are the list lengths) over generated receipts, and examples for matching
by fingerprint, coverage drops, added and removed tools and malformed receipts."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.documents import doc
from tests.profiles import examples
from tests.receipts import typed
from toolfuzz_gate.core.campaign.invariants import INVARIANTS as REGISTRY
from toolfuzz_gate.core.gate.receipt_diff import (
    FORMAT,
    TOTALS,
    Revision,
    gate_failed,
)
from toolfuzz_gate.core.gate.receipt_diff import diff_receipts as diff_typed
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_document
from toolfuzz_gate.errors import ReceiptError

SETTINGS = settings(max_examples=examples(80), suppress_health_check=[HealthCheck.too_slow])


def diff_receipts(
    base: dict[str, JSONObject], head: dict[str, JSONObject], **given: Any
) -> JSONObject:
    """The diff of hand-written receipts, each read as a `Receipt` first."""
    return diff_typed(
        {k: typed(v) for k, v in base.items()}, {k: typed(v) for k, v in head.items()}, **given
    )


FAMILIES = ("type", "enum", "bounds", "length", "required")
STATES = ("tested", "not-applicable", "unsupported")
INVARIANTS = ("no-crash", "hostile-rejected", "valid-accepted")
KEYWORDS = ("if", "not", "$dynamicRef")
TOOL_NAMES = ("alpha", "beta", "gamma", "δ")


def fingerprint_of(label: str) -> str:
    """A fingerprint of the engine's form (24 hex digits) for a short test label."""
    return hashlib.sha256(label.encode()).hexdigest()[:24]


def counterexample(label: str, width: int = 401, path: str = "/width") -> JSONObject:
    return {
        "error": {
            "outcome": "accepted",
            "reason": f"accepted a call breaking maximum at {path}",
        },
        "failure": "hostile-accepted",
        "fingerprint": fingerprint_of(label),
        "cause": "",
        "flaky": False,
        "suggestion": None,
        "input": {"width": width},
        "inputKind": "hostile",
        "keyword": "maximum",
        "mutation": "bounds",
        "operator": f"maximum:above-maximum@{path}",
        "originalInput": {"width": width},
        "path": path,
        "replay": {"case": 1, "runs": 24, "seed": 41, "stream": "hostile"},
        "sizes": [11, 11],
    }


def receipt(
    tool: str,
    *,
    fingerprints: tuple[str, ...] = (),
    unsupported: tuple[tuple[str, str], ...] = (),
    coverage: dict[str, str] | None = None,
    invariants: dict[str, bool] | None = None,
    digest: str = "d0",
) -> JSONObject:
    return {
        "format": "toolfuzz-receipt/1",
        "tool": tool,
        "schemaDigest": digest,
        "coverage": dict(coverage or dict.fromkeys(FAMILIES, "tested")),
        "invariants": dict(invariants or dict.fromkeys(INVARIANTS, True)),
        "unsupported": [{"keyword": k, "path": p} for k, p in unsupported],
        "counterexamples": [counterexample(f, width=400 + i) for i, f in enumerate(fingerprints)],
    }


@st.composite
def receipts(draw: st.DrawFn, tool: str) -> JSONObject:
    return receipt(
        tool,
        fingerprints=tuple(draw(st.sets(st.sampled_from("abcdef"), max_size=4))),
        unsupported=tuple(
            draw(
                st.sets(
                    st.tuples(
                        st.sampled_from(("if", "not", "$dynamicRef")), st.sampled_from(("", "/a"))
                    ),
                    max_size=3,
                )
            )
        ),
        coverage=draw(
            st.dictionaries(st.sampled_from(FAMILIES), st.sampled_from(STATES), max_size=5)
        ),
        invariants=draw(st.dictionaries(st.sampled_from(INVARIANTS), st.booleans(), max_size=3))
        or {"no-crash": True},
        digest=draw(st.sampled_from(("d0", "d1"))),
    )


@st.composite
def receipt_sets(draw: st.DrawFn) -> dict[str, JSONObject]:
    names = draw(st.sets(st.sampled_from(TOOL_NAMES), max_size=4))
    return {name: draw(receipts(name)) for name in sorted(names)}


def _fingerprints(items: Any) -> list[str]:
    return [item["fingerprint"] for item in items]


def _entries(diff: JSONObject) -> dict[str, Any]:
    tools: Any = diff["tools"]
    return {entry["tool"]: entry for entry in tools}


@SETTINGS
@given(receipt_sets())
def test_a_receipt_set_against_itself_is_empty(side: dict[str, Any]) -> None:
    """Nothing new, fixed, added, removed or changed; what fails on both sides is still
    failing (that is a fact about both sides, not a difference)."""
    diff = diff_receipts(side, copy.deepcopy(side))
    failing = sum(len(r["counterexamples"]) for r in side.values())
    assert diff["totals"] == {**dict.fromkeys(TOTALS, 0), "stillFailing": failing}
    for entry in _entries(diff).values():
        assert entry["status"] == "unchanged"
        assert entry["schemaDigestChanged"] is False
        assert entry["counterexamples"]["new"] == entry["counterexamples"]["fixed"] == []
        assert entry["unsupported"]["added"] == entry["unsupported"]["removed"] == []
        assert entry["coverage"] == entry["invariants"] == []
        assert _fingerprints(entry["counterexamples"]["stillFailing"]) == sorted(
            cx["fingerprint"] for cx in side[entry["tool"]]["counterexamples"]
        )
    assert not gate_failed(diff)


@pytest.mark.slow
@SETTINGS
@given(receipt_sets(), receipt_sets())
def test_swapping_base_and_head_swaps_the_verdicts(
    base: dict[str, JSONObject], head: dict[str, JSONObject]
) -> None:
    forward = diff_receipts(base, head, base_files={t: f"b-{t}.json" for t in base})
    backward = diff_receipts(head, base, head_files={t: f"b-{t}.json" for t in base})
    one, other = _entries(forward), _entries(backward)
    assert list(one) == list(other) == sorted(set(base) | set(head))
    swapped_status = {"added": "removed", "removed": "added"}
    for name, entry in one.items():
        mirror = other[name]
        assert mirror["status"] == swapped_status.get(entry["status"], entry["status"])
        assert mirror["schemaDigestChanged"] == entry["schemaDigestChanged"]
        # a tool head does not have fixes nothing: what it lacks is not run on head
        gone, mirror_gone = entry["counterexamples"], mirror["counterexamples"]
        assert mirror_gone["new"] == gone["fixed"] + gone["notRunOnHead"]
        assert mirror_gone["fixed"] + mirror_gone["notRunOnHead"] == gone["new"]
        assert _fingerprints(mirror["counterexamples"]["stillFailing"]) == _fingerprints(
            entry["counterexamples"]["stillFailing"]
        )
        assert mirror["unsupported"]["added"] == entry["unsupported"]["removed"]
        assert mirror["unsupported"]["removed"] == entry["unsupported"]["added"]
        assert mirror["unsupported"]["still"] == entry["unsupported"]["still"]
        assert mirror["coverage"] == [
            {"family": c["family"], "base": c["head"], "head": c["base"]} for c in entry["coverage"]
        ]
        assert mirror["invariants"] == [
            {"name": c["name"], "base": c["head"], "head": c["base"]} for c in entry["invariants"]
        ]
        assert mirror["receipt"] == {
            "base": entry["receipt"]["head"],
            "head": entry["receipt"]["base"],
        }
    totals: Any = forward["totals"]
    back: Any = backward["totals"]
    assert totals["new"] == back["fixed"] + back["notRunOnHead"]
    assert back["new"] == totals["fixed"] + totals["notRunOnHead"]
    for a, b in (
        ("unsupportedAdded", "unsupportedRemoved"),
        ("toolsAdded", "toolsRemoved"),
    ):
        assert (totals[a], totals[b]) == (back[b], back[a])
    assert totals["stillFailing"] == back["stillFailing"]


@pytest.mark.slow
@SETTINGS
@given(receipt_sets(), receipt_sets())
def test_totals_are_the_list_lengths_and_lists_follow_the_fingerprints(
    base: dict[str, Any], head: dict[str, Any]
) -> None:
    diff = diff_receipts(base, head)
    entries = _entries(diff)
    expected = dict.fromkeys(TOTALS, 0)
    for name, entry in entries.items():
        before = {cx["fingerprint"] for cx in base.get(name, {}).get("counterexamples", [])}
        after = {cx["fingerprint"] for cx in head.get(name, {}).get("counterexamples", [])}
        cx = entry["counterexamples"]
        lost = name in base and name not in head  # these receipts are never refused
        assert entry["coverageLost"] is lost
        assert _fingerprints(cx["new"]) == sorted(after - before)
        assert _fingerprints(cx["fixed"]) == ([] if lost else sorted(before - after))
        assert _fingerprints(cx["notRunOnHead"]) == (sorted(before - after) if lost else [])
        assert _fingerprints(cx["stillFailing"]) == sorted(after & before)
        assert all(item["tool"] == name for key in cx for item in cx[key])
        expected["new"] += len(cx["new"])
        expected["fixed"] += len(cx["fixed"])
        expected["stillFailing"] += len(cx["stillFailing"])
        expected["notRunOnHead"] += len(cx["notRunOnHead"])
        expected["coverageLost"] += lost
        expected["unsupportedAdded"] += len(entry["unsupported"]["added"])
        expected["unsupportedRemoved"] += len(entry["unsupported"]["removed"])
        expected["toolsAdded"] += entry["status"] == "added"
        expected["toolsRemoved"] += entry["status"] == "removed"
        if name in base and name in head:
            expected["coverageDrops"] += sum(
                base[name]["coverage"].get(family) == "tested"
                and head[name]["coverage"].get(family) != "tested"
                for family in FAMILIES
            )
    assert diff["totals"] == expected
    assert gate_failed(diff) == bool(
        expected["new"] or expected["unsupportedAdded"] or expected["notRunOnHead"]
    )
    # Deterministic: the same inputs in another insertion order give the same bytes.
    again = diff_receipts(dict(reversed(base.items())), dict(reversed(head.items())))
    assert canonical_document(again) == canonical_document(diff)


def test_counterexamples_match_by_fingerprint_not_by_input_bytes() -> None:
    base = receipt("poster", fingerprints=("f1",))
    head = copy.deepcopy(base)
    doc(head)["counterexamples"][0]["input"] = {"width": 999}
    diff = diff_receipts({"poster": base}, {"poster": head})
    entry = _entries(diff)["poster"]
    assert entry["status"] == "unchanged"
    assert _fingerprints(entry["counterexamples"]["stillFailing"]) == [fingerprint_of("f1")]
    assert entry["counterexamples"]["stillFailing"][0]["input"] == {"width": 999}
    assert diff["totals"]["stillFailing"] == 1  # type: ignore[index, call-overload]


def test_a_counterexample_is_the_receipts_own_plus_its_tool() -> None:
    head = receipt("poster", fingerprints=("f1",))
    diff = diff_receipts({}, {"poster": head}, head_files={"poster": "poster.json"})
    entry = _entries(diff)["poster"]
    assert entry["counterexamples"]["new"] == [{**counterexample("f1", 400), "tool": "poster"}]
    assert entry["status"] == "added"
    assert entry["receipt"] == {"base": None, "head": "poster.json"}
    assert diff["totals"]["toolsAdded"] == 1  # type: ignore[index, call-overload]
    assert diff["totals"]["coverageDrops"] == 0  # type: ignore[index, call-overload]


def test_the_document_shape() -> None:
    base = receipt("a", fingerprints=("x",), unsupported=(("if", "/b"),))
    head = receipt(
        "a",
        fingerprints=("y",),
        unsupported=(("not", ""),),
        coverage={**dict.fromkeys(FAMILIES, "tested"), "enum": "unsupported"},
        invariants={**dict.fromkeys(INVARIANTS, True), "hostile-rejected": False},
        digest="d1",
    )
    diff = diff_receipts(
        {"a": base, "gone": receipt("gone")},
        {"a": head},
        base_ref=Revision("main", "1" * 40),
        head_ref=Revision(None, "2" * 40),
        base_files={"a": "a.json", "gone": "gone.json"},
        head_files={"a": "a.json"},
    )
    assert diff["format"] == FORMAT
    assert diff["base"] == {"ref": "main", "sha": "1" * 40}
    assert diff["head"] == {"ref": None, "sha": "2" * 40}
    a, gone = _entries(diff)["a"], _entries(diff)["gone"]
    assert a["status"] == "changed" and a["schemaDigestChanged"] is True
    assert a["unsupported"] == {
        "added": [{"keyword": "not", "path": ""}],
        "removed": [{"keyword": "if", "path": "/b"}],
        "still": [],
    }
    assert a["coverage"] == [{"family": "enum", "base": "tested", "head": "unsupported"}]
    assert a["invariants"] == [{"name": "hostile-rejected", "base": True, "head": False}]
    assert a["receipt"] == {"base": "a.json", "head": "a.json"}
    assert gone["status"] == "removed" and gone["receipt"] == {"base": "gone.json", "head": None}
    assert diff["totals"] == {
        "new": 1,
        "fixed": 1,
        "stillFailing": 0,
        "unsupportedAdded": 1,
        "unsupportedRemoved": 1,
        "toolsAdded": 0,
        "toolsRemoved": 1,
        "coverageDrops": 1,
        "refusedNew": 0,
        "refusedStill": 0,
        "notRunOnHead": 0,
        "coverageLost": 1,
    }
    assert gate_failed(diff)


def test_a_family_leaving_tested_is_a_drop_and_one_reaching_it_is_not() -> None:
    base = receipt("a", coverage={"enum": "tested", "type": "not-applicable", "length": "tested"})
    head = receipt("a", coverage={"enum": "not-applicable", "type": "tested"})
    diff = diff_receipts({"a": base}, {"a": head})
    assert _entries(diff)["a"]["coverage"] == [
        {"family": "enum", "base": "tested", "head": "not-applicable"},
        {"family": "length", "base": "tested", "head": None},
        {"family": "type", "base": "not-applicable", "head": "tested"},
    ]
    assert diff["totals"]["coverageDrops"] == 2  # type: ignore[index, call-overload]
    assert not gate_failed(diff)


@pytest.mark.parametrize(
    ("member", "value", "named"),
    [
        ("counterexamples", {"f": 1}, "`counterexamples` is not a list of objects"),
        ("counterexamples", [{"fingerprint": 3}], "`counterexamples/0` has no `fingerprint` of 24"),
        (
            "counterexamples",
            [{"fingerprint": "<!-- toolfuzz-gate:default -->"}],
            "`counterexamples/0` has no `fingerprint` of 24 hex digits",
        ),
        ("unsupported", [{"keyword": "if"}], "`unsupported/0/path` is not a string"),
        ("coverage", {"enum": True}, "`coverage` is not an object of str values"),
        ("invariants", {"no-crash": "yes"}, "`invariants` is not an object of bool values"),
    ],
)
def test_a_malformed_receipt_is_a_receipt_error(member: str, value: Any, named: str) -> None:
    bad = receipt("tool <x>")
    bad[member] = value
    with pytest.raises(ReceiptError) as raised:
        diff_receipts({"tool <x>": receipt("tool <x>")}, {"tool <x>": bad})
    assert named in raised.value.message and "'tool <x>'" in raised.value.message


def refused(tool: str, *codes: str) -> JSONObject:
    """A refused receipt: what `core.campaign.tool_fuzz.refused_receipt` writes, in the members the
    diff
    reads."""
    reasons: list[JSON] = [
        {
            "code": code,
            "pointer": f"/p{i}",
            "line": i + 3,
            "keyword": "",
            "message": "m",
            "hint": "",
        }
        for i, code in enumerate(codes)
    ]
    body = receipt(tool, coverage=dict.fromkeys(FAMILIES, "unsupported"), invariants={})
    body["invariants"] = {}
    return {**body, "refused": {"code": codes[0], "problems": [], "reasons": reasons}}


def test_a_tool_refused_on_head_fixes_nothing_its_counterexamples_are_not_run() -> None:
    base = receipt("lax", fingerprints=("f1", "f2"))
    diff = diff_receipts({"lax": base}, {"lax": refused("lax", "schema.unsupported-keyword")})
    entry = _entries(diff)["lax"]
    assert entry["counterexamples"]["fixed"] == []
    assert _fingerprints(entry["counterexamples"]["notRunOnHead"]) == sorted(
        fingerprint_of(f) for f in ("f1", "f2")
    )
    assert entry["coverageLost"] is True and entry["status"] == "changed"
    assert entry["refused"]["state"] == "new"
    assert entry["refused"]["added"] == ["schema.unsupported-keyword"]
    totals: Any = diff["totals"]
    assert (totals["fixed"], totals["notRunOnHead"], totals["refusedNew"]) == (0, 2, 1)
    assert totals["coverageLost"] == 1
    assert gate_failed(diff)


def test_a_removed_tool_fixes_nothing_either() -> None:
    diff = diff_receipts({"gone": receipt("gone", fingerprints=("f1",))}, {})
    entry = _entries(diff)["gone"]
    assert entry["status"] == "removed" and entry["counterexamples"]["fixed"] == []
    assert len(entry["counterexamples"]["notRunOnHead"]) == 1


def test_refusal_states_new_still_and_lifted() -> None:
    limit, keyword = "schema.limit-enum", "schema.unsupported-keyword"
    cases = [
        ({}, {"t": refused("t", limit)}, "new", [limit]),
        ({"t": refused("t", limit)}, {"t": refused("t", limit)}, "still", []),
        ({"t": refused("t", keyword)}, {"t": refused("t", keyword, limit)}, "new", [limit]),
        ({"t": refused("t", limit)}, {"t": receipt("t")}, "lifted", []),
        ({"t": receipt("t")}, {"t": receipt("t")}, None, []),
    ]
    for base, head, state, added in cases:
        entry = _entries(diff_receipts(base, head))["t"]
        assert (entry["refused"]["state"], entry["refused"]["added"]) == (state, added)
        assert entry["counterexamples"]["notRunOnHead"] == []
    still = diff_receipts({"t": refused("t", limit)}, {"t": refused("t", limit)})
    assert _entries(still)["t"]["status"] == "unchanged"
    assert still["totals"]["refusedStill"] == 1  # type: ignore[index, call-overload]
    assert not gate_failed(still)


def test_the_contract_checks_head_did_not_run_are_listed_as_not_checked() -> None:
    every = [inv.name for inv in REGISTRY]
    head = receipt("a", invariants={name: True for name in every if name != "replay-stable"})
    full = receipt("b", invariants=dict.fromkeys(every, True))
    diff = diff_receipts({}, {"a": head, "b": full}, head_files={"a": "a.json", "b": "b.json"})
    entries = _entries(diff)
    assert entries["a"]["notChecked"] == ["replay-stable"]
    assert entries["b"]["notChecked"] == []
    gone = diff_receipts({"a": head}, {}, base_files={"a": "a.json"})
    assert _entries(gone)["a"]["notChecked"] == []


def test_a_skipped_tool_is_not_newly_refused_but_fixes_nothing() -> None:
    skip = "handler.task-required"
    added = diff_receipts({}, {"t": refused("t", skip)})
    entry = _entries(added)["t"]
    assert (entry["refused"]["state"], entry["refused"]["added"]) == ("skipped", [])
    assert added["totals"]["refusedNew"] == 0  # type: ignore[index, call-overload]
    assert not gate_failed(added)
    was_fuzzed = diff_receipts({"t": receipt("t", fingerprints=("f1",))}, {"t": refused("t", skip)})
    entry = _entries(was_fuzzed)["t"]
    assert entry["refused"]["state"] == "skipped" and entry["coverageLost"] is True
    assert entry["counterexamples"]["fixed"] == []
    assert len(entry["counterexamples"]["notRunOnHead"]) == 1
    assert gate_failed(was_fuzzed)  # a known bug head no longer runs
