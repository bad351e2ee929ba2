"""Before the diff says "new" or "fixed", the other side is asked (issue 11).

A counterexample only one side's receipt holds is replayed, as its minimized input, on
the other side's handler: a head counterexample the base fails the same way (same
failure class at the same path, judged as the campaign judges) was not introduced by the
pull request, and a base counterexample the head still fails was not fixed. The answers
feed `core.gate.receipt_diff.Reproduced`. An input that cannot be replayed faithfully (elided in the
receipt, an engine disagreement, valid on one side and not the other) or a tool whose
handler does not start keeps the fingerprint's answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.tool_setup import Listings, replay_setup
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import RecordedCounterexample
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet
from toolfuzz_gate.core.gate.regression import (
    STILL_FAILING,
    RegressionCase,
    build_case,
    parse_case,
)
from toolfuzz_gate.edges.case_replay import replay_cases
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import ToolfuzzError

Unmatched = dict[str, list[RecordedCounterexample]]
"""Counterexamples by receipt key."""


def unmatched(ours: ReceiptSet, theirs: ReceiptSet) -> Unmatched:
    """The counterexamples of `ours` whose fingerprint `theirs` lacks, for the tools both
    sides fuzzed (a tool refused, added or removed has nothing to compare)."""
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


def reproduced_on(
    loaded: LoadedPolicy,
    overrides: Mapping[str, Any],
    receipts: ReceiptSet,
    wanted: Unmatched,
) -> frozenset[tuple[str, str]]:
    """(key, fingerprint) of each `wanted` counterexample of `receipts` that the tool of
    the same name in `loaded` fails the same way."""
    tools = {tool.name: tool for tool in policy_tools(loaded)}
    failing: set[tuple[str, str]] = set()
    listings: Listings = {}
    for key, examples in sorted(wanted.items()):
        receipt = receipts.receipts[key]
        tool = tools.get(receipt.tool)
        cases = [case for case in (_case(receipt, cx) for cx in examples) if case is not None]
        if tool is None or not cases:
            continue
        try:
            setup = replay_setup(tool, replace(tool.options, **overrides), loaded, listings)
            results = replay_cases(setup.handler, setup.spec, cases, setup.judge)
        except ToolfuzzError:
            continue  # the handler does not start here: the fingerprints decide
        failing |= {(key, r.case.fingerprint) for r in results if r.outcome == STILL_FAILING}
    return frozenset(failing)


def _case(receipt: Receipt, example: RecordedCounterexample) -> RegressionCase | None:
    try:
        return parse_case(build_case(receipt, example))
    except (ToolfuzzError, ValueError):
        return None
