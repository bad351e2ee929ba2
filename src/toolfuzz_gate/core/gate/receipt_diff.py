"""The diff of two receipt sets, base against head: the `toolfuzz-diff/1` document (pure).

Counterexamples are matched by `fingerprint` (tool, failure class, path, mutation family),
never by input bytes, so the same bug found with other inputs is still the same bug (a
still-failing one is shown as head found it, a fixed one as base found it). Fingerprints
alone are brittle when generation or shrinking moves, so the caller may replay unmatched
minimized inputs on the other side (`Reproduced`): a head counterexample the base fails
the same way is not new, and a base counterexample the head still fails is not fixed;
both are still failing, marked `reproducedOn`. Every
list is sorted, so the same receipts always give the same document. A tool whose receipts
differ in nothing the diff reports (only in, say, case counts) is `unchanged`.

Only a tool fuzzed on head can fix anything: when head did not fuzz a tool base fuzzed
(head refused it, or no longer has it), base's counterexamples are `notRunOnHead`, never
`fixed`, and the tool's `coverageLost` is true. `refused` says whether either side refused
the tool and why (`core.campaign.refusal`): `new` when head refuses it for a code base did not,
`still` when base refused it for the same codes, `lifted` when only base refused it; a
skip (`refusal.SKIPS`) is never among the `added` codes, so a skipped tool is not newly
refused (its state is `skipped` when it has no other reason).
`underSpecified` carries head's under-specification notes as they are (notes, not diffed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolfuzz_gate.core.campaign.invariants import INVARIANTS
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import RecordedCounterexample
from toolfuzz_gate.core.campaign.refusal import is_skip
from toolfuzz_gate.core.gate.interface_diff import diff_interfaces
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject

FORMAT = "toolfuzz-diff/1"
TOTALS = (
    "new",
    "fixed",
    "stillFailing",
    "unsupportedAdded",
    "unsupportedRemoved",
    "toolsAdded",
    "toolsRemoved",
    "coverageDrops",
    "refusedNew",
    "refusedStill",
    "notRunOnHead",
    "coverageLost",
)


@dataclass(frozen=True)
class Revision:
    """Which commit a side of the diff was taken at (both unknown for bare directories)."""

    ref: str | None = None
    sha: str | None = None

    def as_json(self) -> JSONObject:
        return {"ref": self.ref, "sha": self.sha}


@dataclass(frozen=True)
class ReceiptSet:
    """Receipts by tool name, and the file each was read from (by tool name too)."""

    receipts: Mapping[str, Receipt]
    files: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reproduced:
    """Unmatched counterexamples whose minimized input the other side fails the same way,
    as (receipt key, fingerprint): `on_base` are head's, `on_head` are base's."""

    on_base: frozenset[tuple[str, str]] = frozenset()
    on_head: frozenset[tuple[str, str]] = frozenset()


Unmatched = dict[str, list[RecordedCounterexample]]
"""Counterexamples by receipt key."""


def unmatched(ours: ReceiptSet, theirs: ReceiptSet) -> Unmatched:
    """The counterexamples of `ours` whose fingerprint `theirs` lacks, for the tools both
    sides fuzzed (a tool refused, added or removed has nothing to compare): those the other
    side is asked about before the diff says "new" or "fixed" (`Reproduced`)."""
    found: Unmatched = {}
    for key, receipt in ours.receipts.items():
        other = theirs.receipts.get(key)
        if other is None or receipt.refused or other.refused:
            continue
        known = {cx.fingerprint for cx in other.counterexamples}
        mine = [cx for cx in receipt.counterexamples if cx.fingerprint not in known]
        if mine:
            found[key] = mine
    return found


def receipt_keys(receipts: Sequence[Receipt]) -> list[str]:
    """What each receipt is matched by across base and head: its tool's name, or, for a tool
    run with several seeds, the name and the seed (each seed meets the same seed)."""
    tools = [receipt.tool for receipt in receipts]
    return [
        tool if tools.count(tool) == 1 else f"{tool} (seed {receipt.seed})"
        for tool, receipt in zip(tools, receipts, strict=True)
    ]


def diff_receipts(
    base: Mapping[str, Receipt],
    head: Mapping[str, Receipt],
    *,
    base_ref: Revision = Revision(),
    head_ref: Revision = Revision(),
    base_files: Mapping[str, str] | None = None,
    head_files: Mapping[str, str] | None = None,
    reproduced: Reproduced = Reproduced(),
) -> JSONObject:
    """The diff document; `*_files` name each tool's receipt file (null when not given)."""
    tools: list[JSON] = []
    for name in sorted(set(base) | set(head)):
        entry = _diff_tool(name, base.get(name), head.get(name), reproduced)
        entry["receipt"] = {
            "base": (base_files or {}).get(name) if name in base else None,
            "head": (head_files or {}).get(name) if name in head else None,
        }
        tools.append(entry)
    return {
        "format": FORMAT,
        "base": base_ref.as_json(),
        "head": head_ref.as_json(),
        "tools": tools,
        "totals": _totals(tools),
        "interface": diff_interfaces(base, head),
    }


def diff_sets(
    base: ReceiptSet,
    head: ReceiptSet,
    *,
    base_ref: Revision = Revision(),
    head_ref: Revision = Revision(),
    reproduced: Reproduced = Reproduced(),
) -> JSONObject:
    """`diff_receipts` over two loaded receipt sets, file names included."""
    return diff_receipts(
        base.receipts,
        head.receipts,
        base_ref=base_ref,
        head_ref=head_ref,
        base_files=base.files,
        head_files=head.files,
        reproduced=reproduced,
    )


def gate_failed(document: Mapping[str, Any]) -> bool:
    """The `diff` command's verdict: a new counterexample, a newly unsupported keyword, a
    new refusal, or a base counterexample head did not run."""
    totals = document["totals"]
    return bool(
        totals["new"]
        or totals["unsupportedAdded"]
        or totals.get("refusedNew")
        or totals.get("notRunOnHead")
    )


def _diff_tool(
    name: str, base: Receipt | None, head: Receipt | None, reproduced: Reproduced
) -> JSONObject:
    base_cx = _counterexamples(base)
    head_cx = _counterexamples(head)
    base_un = _unsupported(base)
    head_un = _unsupported(head)
    refused = _refused(base, head)
    lost = base is not None and not base.reasons and (head is None or bool(head.reasons))
    only_head = sorted(head_cx.keys() - base_cx.keys())
    only_base = sorted(base_cx.keys() - head_cx.keys())
    on_base = [f for f in only_head if (name, f) in reproduced.on_base]
    on_head = [f for f in only_base if (name, f) in reproduced.on_head and not lost]
    shown = {_cause(head_cx[f]) for f in head_cx.keys() - set(only_head) - set(on_base)}
    shown |= {_cause(head_cx[f]) for f in on_base}
    still: list[JSONObject] = [
        _tagged(name, head_cx[f]) for f in sorted(head_cx.keys() & base_cx.keys())
    ]
    still += [{**_tagged(name, head_cx[f]), "reproducedOn": "base"} for f in on_base]
    still += [
        {**_tagged(name, base_cx[f]), "reproducedOn": "head"}
        for f in on_head
        if _cause(base_cx[f]) not in shown  # the same bug head already shows
    ]
    still.sort(key=lambda entry: str(entry["fingerprint"]))
    gone = [f for f in only_base if f not in on_head]
    counterexamples: JSONObject = {
        "new": [_tagged(name, head_cx[f]) for f in only_head if f not in on_base],
        "fixed": [] if lost else [_tagged(name, base_cx[f]) for f in gone],
        "stillFailing": list[JSON](still),
        "notRunOnHead": [_tagged(name, base_cx[f]) for f in gone] if lost else [],
    }
    unsupported: JSONObject = {
        "added": [_entry(k) for k in sorted(head_un - base_un)],
        "removed": [_entry(k) for k in sorted(base_un - head_un)],
        "still": [_entry(k) for k in sorted(base_un & head_un)],
    }
    coverage = _changed(dict(base.coverage) if base else {}, dict(head.coverage) if head else {})
    invariants = _changed(
        dict(base.invariants) if base else {}, dict(head.invariants) if head else {}
    )
    digest_changed = (
        base is not None and head is not None and base.schema_digest != head.schema_digest
    )
    if base is None:
        status = "added"
    elif head is None:
        status = "removed"
    elif (
        counterexamples["new"]
        or counterexamples["fixed"]
        or unsupported["added"]
        or unsupported["removed"]
        or coverage
        or invariants
        or digest_changed
        or refused["state"] in ("new", "lifted")
    ):
        status = "changed"
    else:
        status = "unchanged"
    return {
        "tool": name,
        "status": status,
        "schemaDigestChanged": digest_changed,
        "counterexamples": counterexamples,
        "unsupported": unsupported,
        "coverage": [{"family": k, "base": b, "head": h} for k, b, h in coverage],
        "invariants": [{"name": k, "base": b, "head": h} for k, b, h in invariants],
        "refused": refused,
        "coverageLost": lost,
        "underSpecified": _notes(name, head),
        "notChecked": _not_checked(head),
    }


def _refused(base: Receipt | None, head: Receipt | None) -> JSONObject:
    """Either side's refusal reasons, the codes head refuses for that base did not, and
    the state: `new`, `still`, `skipped`, `lifted` or null (neither side refused the tool)."""
    base_reasons = base.reasons if base is not None else ()
    head_reasons = head.reasons if head is not None else ()
    base_codes = {r.code for r in base_reasons}
    head_codes = {r.code for r in head_reasons}
    added = sorted({code for code in head_codes - base_codes if not is_skip(code)})
    state: str | None
    if head_reasons and all(is_skip(code) for code in head_codes):
        state = "skipped"
    elif head_reasons:
        state = "new" if added else "still"
    else:
        state = "lifted" if base_reasons and head is not None else None
    return {
        "state": state,
        "added": list[JSON](added),
        "base": [r.as_json() for r in base_reasons],
        "head": [r.as_json() for r in head_reasons],
    }


def _totals(tools: list[JSON]) -> JSONObject:
    totals = dict.fromkeys(TOTALS, 0)
    for entry in tools:
        assert isinstance(entry, dict)
        cx, un = entry["counterexamples"], entry["unsupported"]
        assert isinstance(cx, dict) and isinstance(un, dict)
        for key in ("new", "fixed", "stillFailing", "notRunOnHead"):
            totals[key] += len(_as_list(cx[key]))
        refused = entry["refused"]
        assert isinstance(refused, dict)
        totals["refusedNew"] += refused["state"] == "new"
        totals["refusedStill"] += refused["state"] == "still"
        totals["coverageLost"] += entry["coverageLost"] is True
        totals["unsupportedAdded"] += len(_as_list(un["added"]))
        totals["unsupportedRemoved"] += len(_as_list(un["removed"]))
        totals["toolsAdded"] += entry["status"] == "added"
        totals["toolsRemoved"] += entry["status"] == "removed"
        if entry["status"] not in ("added", "removed"):
            totals["coverageDrops"] += sum(
                1
                for change in _as_list(entry["coverage"])
                if isinstance(change, dict)
                and change["base"] == "tested"
                and change["head"] != "tested"
            )
    return dict[str, JSON](totals)


def _as_list(value: JSON) -> list[JSON]:
    assert isinstance(value, list)
    return value


def _counterexamples(receipt: Receipt | None) -> dict[str, RecordedCounterexample]:
    """Counterexamples by fingerprint; the first of a repeated fingerprint is kept."""
    found: dict[str, RecordedCounterexample] = {}
    for item in receipt.counterexamples if receipt is not None else ():
        found.setdefault(item.fingerprint, item)
    return found


def _cause(counterexample: RecordedCounterexample) -> tuple[str, str]:
    return counterexample.failure, counterexample.path


def _notes(tool: str, receipt: Receipt | None) -> list[JSON]:
    """Head's under-specification notes (not counterexamples, so not diffed: each is
    shown as head has it)."""
    notes = sorted(receipt.under_specified if receipt is not None else (), key=_by_fingerprint)
    return [_tagged(tool, note) for note in notes]


def _by_fingerprint(counterexample: RecordedCounterexample) -> str:
    return counterexample.fingerprint


def _not_checked(receipt: Receipt | None) -> list[JSON]:
    """The invariants head's campaign did not check: contract checks the tool did not
    declare, left out of its `invariants` ledger (none for a refused or missing tool, and
    none for a receipt from before the ledger could leave one out)."""
    if receipt is None or not receipt.invariants or receipt.reasons:
        return []
    return [inv.name for inv in INVARIANTS if inv.name not in receipt.invariants]


def _tagged(tool: str, counterexample: RecordedCounterexample) -> JSONObject:
    return counterexample.tagged(tool)


def _unsupported(receipt: Receipt | None) -> set[tuple[str, str]]:
    return {(item.path, item.keyword) for item in receipt.unsupported} if receipt else set()


def _entry(key: tuple[str, str]) -> JSONObject:
    path, keyword = key
    return {"keyword": keyword, "path": path}


def _changed(base: dict[str, Any], head: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(name, base, head) for every name whose state differs, absent being null."""
    return [
        (name, base.get(name), head.get(name))
        for name in sorted(base.keys() | head.keys())
        if base.get(name) != head.get(name)
    ]
