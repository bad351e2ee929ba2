"""Settle a campaign's findings into the counterexamples a receipt reports (pure over `Handler`).

The first finding of each failure class, path, mutation family and cause is shrunk; then,
in a handler process started afresh, each is confirmed (`core.campaign.confirm`); then each runtime
failure of a valid call is diagnosed. Three passes, so that no confirmation runs in a process
that the shrinking or the diagnosing of another finding has used. Two refinements follow,
both about bugs of one kind hiding behind each other: a later input that still fails the
same way once every diagnosed member is set to a value that passed is a sibling bug; and a
runtime failure no member was blamed for (every swap ran into another bug) is shrunk and
diagnosed again with the other bugs' members held at values that passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from toolfuzz_gate.core.campaign.blame import blame
from toolfuzz_gate.core.campaign.case import Case
from toolfuzz_gate.core.campaign.confirm import (
    CONFIRMATIONS,
    FOUND_ONCE,
    FRESH_FAILURES,
    Reproduction,
    fails_alike,
    replay,
    start_fresh,
)
from toolfuzz_gate.core.campaign.findings import Failure, Finding, fingerprint
from toolfuzz_gate.core.campaign.minimize import (
    Counterexample,
    diagnose,
    held,
    is_runtime_failure,
    minimize,
)
from toolfuzz_gate.core.campaign.oracle import Oracle
from toolfuzz_gate.core.campaign.runtime import Culprit
from toolfuzz_gate.core.campaign.seed_run import Campaign
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, canonical_compact

BLAMED_SHRINK_BUDGET = 100
"""Shrinking steps for a failure blamed on the call before it: each step that still kills
the server costs a server start."""
MAX_SIBLINGS = 2
"""Further bugs of one failure class and cause looked for behind each diagnosed one."""
SIBLINGS_CHECKED = 8
"""Later findings of one identity asked whether the diagnosed culprits explain them."""

Group = list[tuple[Finding, Case]]


def settle(
    campaign: Campaign, oracle: Oracle, reference: Oracle, document: JSON, shrink_budget: int
) -> list[Counterexample]:
    passes = _Passes(campaign, oracle, reference, document, shrink_budget)
    groups = _by_identity(campaign)
    minimized = [_shrunk(passes, group) for group in groups]
    fresh = bool(minimized) and start_fresh(campaign.handler)
    confirmed = [
        (_confirm(example, where.campaign, fresh), rest, where)
        for example, rest, where in minimized
    ]
    done = [(where.explained(c), rest) for c, rest, where in confirmed if c is not None]
    counterexamples = [example for example, _ in done]
    seen = {example.fingerprint for example in counterexamples}
    for example, rest in done:
        for sibling in _siblings(passes, example, rest):
            if sibling.fingerprint not in seen:
                seen.add(sibling.fingerprint)
                counterexamples.append(sibling)
    _blame_behind_others(passes, counterexamples, seen)
    return distinct([_told_apart(example, campaign) for example in counterexamples])


def _shrunk(passes: _Passes, group: Group) -> tuple[Counterexample, Group, _Passes]:
    """The group's first finding shrunk; or, when a replay of the pair says the server
    died of the call it answered before (`core.campaign.blame`), that call's finding,
    shrunk and questioned from then on through the pair (the call, then a ping)."""
    found, case = group[0]
    campaign = passes.campaign
    suspect = campaign.suspects.get((case.stream, case.index))
    moved = blame(found, case, suspect, campaign.handler, campaign.tool)
    if moved is None:
        return passes.shrunk(found, case), group[1:], passes
    there = replace(
        passes,
        campaign=replace(campaign, handler=moved.handler),
        shrink_budget=min(passes.shrink_budget, BLAMED_SHRINK_BUDGET),
    )
    return there.shrunk(moved.finding, moved.case), [], there


def _blamed(found: Finding) -> JSONObject:
    """What a finding blamed on the call before it says about that (`core.campaign.blame`),
    to keep when its handler's words are taken again."""
    if "blamedFrom" not in found.error:
        return {}
    return {"reason": found.error["reason"], "blamedFrom": found.error["blamedFrom"]}


def _told_apart(example: Counterexample, campaign: Campaign) -> Counterexample:
    """A timeout as `slow` or `hung`, where its first replay with far more time told which
    (`Hangs.answered_late`); `timeout` where nothing told (a handler whose timeout
    cannot be stretched, a later timeout of a kind already confirmed)."""
    found, case = example.finding, example.case
    late = campaign.hangs.answered_late.get((case.stream, case.index))
    if found.failure is not Failure.TIMEOUT or late is None:
        return example
    failure = Failure.SLOW if late else Failure.HUNG
    key = fingerprint(campaign.tool.name, failure.value, found.path, found.mutation, found.cause)
    return replace(example, finding=replace(found, failure=failure), fingerprint=key)


def distinct(counterexamples: list[Counterexample]) -> list[Counterexample]:
    """One counterexample per bug: those of one failure class and cause whose minimized
    inputs are equal are the same bug reached from several places (a seam probe at
    `/body` and a valid case both shrunk to `{"title": ""}`); the one whose path is in
    its input is kept, else the first. Findings without a cause are left as they are."""
    kept: dict[tuple[str, str, str], Counterexample] = {}
    others: list[Counterexample] = []
    for example in counterexamples:
        found = example.finding
        if not found.cause:
            others.append(example)
            continue
        key = (found.failure.value, found.cause, canonical_compact(example.minimal))
        held = kept.get(key)
        if held is None or (not _located(held) and _located(example)):
            kept[key] = example
    chosen = {id(example) for example in (*kept.values(), *others)}
    return [example for example in counterexamples if id(example) in chosen]


def _located(example: Counterexample) -> bool:
    """Does the counterexample's path name a member its minimized input has?"""
    try:
        tokens = jp.split(example.finding.path)
    except ValueError:
        return False
    value: JSON = example.minimal
    for token in tokens:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False
    return True


@dataclass(frozen=True)
class _Passes:
    campaign: Campaign
    oracle: Oracle
    reference: Oracle
    document: JSON
    shrink_budget: int

    def hopeless(self, found: Finding) -> bool:
        """A tool that tripped the breaker hangs on anything: shrinking its timeout or
        asking where the boundary lies would cost a timeout per question, to learn nothing."""
        return self.campaign.breaker is not None and found.failure is Failure.TIMEOUT

    def shrunk(self, found: Finding, case: Case, pinned: Sequence[Culprit] = ()) -> Counterexample:
        budget = 0 if self.hopeless(found) else self.shrink_budget
        return minimize(found, case, self.campaign, self.oracle, self.reference, budget, pinned)

    def explained(self, example: Counterexample) -> Counterexample:
        """Diagnosed, unless it never failed on fresh state: every probe there would pass,
        and blame whichever member was swapped first."""
        if example.state_dependent is not None:
            return example
        if is_runtime_failure(example) and not self.hopeless(example.finding):
            return diagnose(example, self.campaign, self.oracle, self.document)
        return example


def _siblings(passes: _Passes, example: Counterexample, rest: Group) -> list[Counterexample]:
    """The other bugs of `example`'s kind among the later findings of its identity."""
    family = [example]
    for _ in range(MAX_SIBLINGS):
        sibling = _unexplained(family, rest, passes.campaign, passes.oracle)
        if sibling is None:
            break
        rest = rest[rest.index(sibling) + 1 :]
        pinned = [known.culprit for known in family if known.culprit is not None]
        found = _confirm(passes.shrunk(*sibling, pinned), passes.campaign)
        if found is not None:
            family.append(passes.explained(found))
    return family[1:]


def _blame_behind_others(
    passes: _Passes, counterexamples: list[Counterexample], seen: set[str]
) -> None:
    """Diagnose again, with the other culprits' members held at values that passed, each
    runtime failure no member was blamed for (in place)."""
    culprits = [example.culprit for example in counterexamples if example.culprit is not None]
    for index, example in enumerate(counterexamples):
        if example.culprit is not None or not culprits or not is_runtime_failure(example):
            continue
        if passes.hopeless(example.finding):
            continue
        if not _held_fails(example, culprits, passes.campaign):
            continue
        again = _confirm(passes.shrunk(example.finding, example.case, culprits), passes.campaign)
        if again is None:
            continue
        located = passes.explained(again)
        if located.culprit is not None and located.fingerprint not in seen:
            seen.add(located.fingerprint)
            counterexamples[index] = located


def _confirm(
    example: Counterexample, campaign: Campaign, fresh: bool = False
) -> Counterexample | None:
    """`example` with how often its minimal input reproduced (`core.campaign.confirm`); None for a
    timeout that answered when given more time, on the minimal and the original input, on a
    handler that could not be started afresh. `fresh`: the handler was started on fresh
    state before the confirmations; a crash or timeout that never fails there is marked
    state-dependent."""
    found, case = example.finding, example.case
    if found.failure is Failure.ORACLE_DISAGREEMENT:
        return example
    handler, tool = campaign.handler, campaign.tool
    if found.failure is not Failure.TIMEOUT:
        seen: list[Finding] = []
        again = replay(found, case, example.minimal, handler, tool, CONFIRMATIONS, seen)
        if seen:  # the handler's words about the minimized input, not the original
            error = {**seen[0].error, **_blamed(found)}
            example = replace(example, finding=replace(found, error=error))
        if fresh and found.failure in FRESH_FAILURES and again.runs and not again.failed:
            return replace(example, reproduced=FOUND_ONCE + again, state_dependent=again)
        return replace(example, reproduced=FOUND_ONCE + again)
    # The campaign already replayed the original input once with the longer budget, on
    # the state it had then; here every replay starts from fresh state.
    fresh = fresh and start_fresh(handler)
    original = campaign.hangs.evidence.get((case.stream, case.index), FOUND_ONCE)
    tried = Reproduction(0, 0)
    if example.minimal != case.input:
        tried = replay(found, case, example.minimal, handler, tool, CONFIRMATIONS)
        evidence = FOUND_ONCE + tried
        if not evidence.dismissed:
            return replace(example, reproduced=evidence)
        example = replace(example, minimal=case.input, sizes=example.sizes[:1])
    more = max(1, FOUND_ONCE.runs + CONFIRMATIONS - original.runs)
    again = replay(found, case, case.input, handler, tool, more)
    evidence = original + again
    if not evidence.dismissed:
        return replace(example, reproduced=evidence)
    tried = tried + again
    if fresh and not tried.failed and not original.dismissed:
        return replace(example, reproduced=evidence, state_dependent=tried)
    campaign.dismissed_timeouts += 1
    return None


def _unexplained(
    examples: Sequence[Counterexample],
    siblings: Sequence[tuple[Finding, Case]],
    campaign: Campaign,
    oracle: Oracle,
) -> tuple[Finding, Case] | None:
    """The first sibling (a later valid input that failed with the same class and cause)
    that the diagnosed `examples` do not explain, or None. With every culprit's member set
    to the value that made its example pass, a sibling that still fails the same way has
    another member at fault: another bug of the same kind (two `KeyError`s, say)."""
    culprits = [example.culprit for example in examples if example.culprit is not None]
    if not culprits:
        return None
    for found, case in siblings[:SIBLINGS_CHECKED]:
        swapped = held(case.input, culprits)
        if swapped is None or not oracle.is_valid(swapped):
            continue  # cannot tell: counted as explained
        if swapped == case.input:
            return found, case  # it has the passing values already, and failed anyway
        if fails_alike(found, case, swapped, campaign.handler, campaign.tool) is True:
            return found, case
    return None


def _held_fails(example: Counterexample, culprits: Sequence[Culprit], campaign: Campaign) -> bool:
    """Does the example's original input, with every culprit's member held at the value
    that passed, still fail the same way (so it can be shrunk from there)?"""
    start = held(example.case.input, culprits)
    if start is None or start == example.case.input or not campaign.oracle.is_valid(start):
        return False
    found, case = example.finding, example.case
    return fails_alike(found, case, start, campaign.handler, campaign.tool) is True


def _by_identity(campaign: Campaign) -> list[Group]:
    """The findings of each fingerprint (failure class, path, and the cause or, without
    one, the mutation family), in the order found: the first of each is reported, every
    independent failure of the tool once. After the breaker, one timeout in all."""
    groups: dict[str, Group] = {}
    timed_out = False
    for found, case in campaign.findings:
        if found.failure is Failure.TIMEOUT and campaign.breaker is not None:
            if timed_out:
                continue
            timed_out = True
        key = fingerprint(
            campaign.tool.name, found.failure.value, found.path, found.mutation, found.cause
        )
        groups.setdefault(key, []).append((found, case))
    return list(groups.values())
