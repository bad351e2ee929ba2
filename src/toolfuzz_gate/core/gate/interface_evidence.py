"""Evidence for interface changes: base's own valid calls replayed against head's schema (pure).

A receipt does not hold its valid cases, but its seed, its case count, its fixed arguments
and the input schema as read (`interface.inputSchema`) make them again, call for call, with
the engine that wrote it (`generate` is deterministic in the seed and the index). Each base
call head's schema refuses is charged to the changes whose instance path and keywords the
refusal matches; the first such call is shrunk while base still accepts it and head still
refuses it for that change, so the example is as small as the shrinker can make it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from toolfuzz_gate.core.campaign.oracle import ErrorSite, JsonschemaOracle
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.shrink import shrink
from toolfuzz_gate.core.engine.compile import compile_schema
from toolfuzz_gate.core.engine.generate import generate
from toolfuzz_gate.core.gate.schema_compare import Change
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.limits import DEFAULT_LIMITS
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.errors import SchemaError

MAX_CASES = 1000
"""Base calls replayed per tool (a campaign runs at most 1000 valid cases per seed)."""
SHRINK_BUDGET = 300
"""Validator calls one example's shrinking may spend."""


@dataclass(frozen=True)
class Judge:
    """One side's schema as a validator."""

    is_valid: Callable[[JSON], bool]
    errors: Callable[[JSON], list[ErrorSite]]


def reading_of(receipt: Receipt) -> SchemaOptions:
    """The draft and format reading the receipt's campaign used (the defaults when it
    records none, as a refused receipt does)."""
    reading = receipt.campaign.schema_reading if receipt.campaign is not None else None
    if reading is None:
        return SchemaOptions()
    return SchemaOptions(reading.draft, reading.format_assertion)


def judge_of(document: JSON, options: SchemaOptions) -> Judge | None:
    """`document` as a validator (None when the library cannot read it)."""
    try:
        oracle = JsonschemaOracle(document, options)
        oracle.is_valid({})
    except Exception:
        return None
    return Judge(oracle.is_valid, oracle.errors)


def base_calls(receipt: Receipt, judge: Judge) -> list[JSON]:
    """The valid calls the receipt's campaign made, made again from its seed and schema
    (empty when the engine refuses the schema: nothing was run)."""
    interface = receipt.interface
    document = interface.input_schema if interface is not None else None
    count = receipt.cases.valid if receipt.cases is not None else None
    seed = receipt.seed
    if document is None or count is None:
        return []
    try:
        compiled = compile_schema(document, options=reading_of(receipt))
    except SchemaError:
        return []
    pinned = sorted((receipt.fixed_arguments or {}).items())
    calls: list[JSON] = []
    for index in range(min(count, MAX_CASES)):
        value: JSON = generate(compiled, seed, index, DEFAULT_LIMITS)
        for pointer, given in pinned:
            value = cast(JSON, jp.with_member(value, pointer, given))
        if judge.is_valid(value):
            calls.append(value)
    return calls


def matches(change: Change, site: ErrorSite) -> bool:
    """Whether head refusing a value with `site` (keyword, instance path) is `change`'s doing."""
    keyword, path = site
    wanted = jp.split(change.instance)
    found = jp.split(path)
    if "*" in change.keywords:
        return len(found) >= len(wanted) and _same_place(wanted, found[: len(wanted)])
    return keyword in change.keywords and len(found) == len(wanted) and _same_place(wanted, found)


def _same_place(wanted: Sequence[str], found: Sequence[str]) -> bool:
    return all(w == "*" or w == f for w, f in zip(wanted, found, strict=True))


def evidence(
    changes: Sequence[Change], calls: Sequence[JSON], base: Judge, head: Judge
) -> tuple[list[JSONObject | None], list[JSON]]:
    """For each change: its evidence (None for a change neither breaking nor shown
    breaking), and the base calls head refuses that no change accounts for."""
    refusals = [(call, head.errors(call)) for call in calls]
    refused = [(call, sites) for call, sites in refusals if sites]
    found: list[JSONObject | None] = []
    explained: set[int] = set()
    for change in changes:
        hits = [
            index
            for index, (_, sites) in enumerate(refused)
            if any(matches(change, site) for site in sites)
        ]
        explained.update(hits)
        if not hits:
            found.append(_none_refused(len(calls)) if change.breaking else None)
            continue
        first = refused[hits[0]][0]

        def keeps(value: JSON, change: Change = change) -> bool:
            return base.is_valid(value) and any(matches(change, s) for s in head.errors(value))

        found.append(_shown(first, len(hits), len(calls), keeps, head, change))
    rest = [call for index, (call, _) in enumerate(refused) if index not in explained]
    return found, rest


def removed_evidence(calls: Sequence[JSON], base: Judge) -> JSONObject:
    """A removed tool refuses every call: the simplest of base's stands for them."""
    if not calls:
        return _none_refused(0)
    return _shown(calls[0], len(calls), len(calls), base.is_valid, None, None)


def unexplained_evidence(calls: Sequence[JSON], total: int, base: Judge, head: Judge) -> JSONObject:
    def keeps(value: JSON) -> bool:
        return base.is_valid(value) and bool(head.errors(value))

    return _shown(calls[0], len(calls), total, keeps, head, None)


def _shown(
    first: JSON,
    count: int,
    total: int,
    keeps: Callable[[JSON], bool],
    head: Judge | None,
    change: Change | None,
) -> JSONObject:
    smallest, _ = shrink(first, keeps, SHRINK_BUDGET)
    sites = head.errors(smallest) if head is not None else []
    sites = [s for s in sites if change is None or matches(change, s)] or sites
    keyword, path = sites[0] if sites else (None, None)
    return {
        "refused": count,
        "of": total,
        "call": smallest,
        "error": None if keyword is None else {"keyword": keyword, "path": path},
    }


def _none_refused(total: int) -> JSONObject:
    return {"refused": 0, "of": total, "call": None, "error": None}
