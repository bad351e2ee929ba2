"""Agent findings of head against the base's, as counterexamples are diffed (pure).

An agent finding is what fails an agent check: a counterexample an agent reached, a
documentation probe whose calls failed (`agent-reachable`), a prompt set found erroneous
(`agent-correctness`). Each has an identity that a recording with other words keeps: a
reached counterexample its fingerprint (class, path, cause), a failing probe the failure
classes its calls broke, an erroneous set the arguments it names as underspecified (its
template when it names none; a model words a template anew each recording). The same
identity on both sides is `still`, only on head `new`, only on the base `fixed`.

The base's agent receipts are the ones stored beside a stored baseline
(`--baseline-dir DIR`: `DIR/agent/`); without them nothing is diffed and no finding has a
state.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

REACHABLE_CHECK = "agent-reachable"
CORRECTNESS_CHECK = "agent-correctness"
STATES = ("new", "still", "fixed")


@dataclass(frozen=True)
class AgentFinding:
    """One agent finding: the check it fails, its tool, its identity, and its receipt entry
    (model-written text in it is untrusted)."""

    check: str
    tool: str
    kind: str
    """`counterexample`, `probe` or `prompt-set`."""
    identity: tuple[str, ...]
    entry: Mapping[str, Any]

    def label(self) -> str:
        """`geocode counterexample crash at /country (69c8…)`, `geocode prompt set naming
        country`: words from the identity, never the model's."""
        if self.kind == "counterexample":
            path = _text(self.entry.get("path")) or "/"
            return (
                f"{self.tool} counterexample {_text(self.entry.get('failure'))} at {path} "
                f"({_text(self.entry.get('fingerprint'))})"
            )
        if self.kind == "probe":
            return f"{self.tool} documentation probe ({', '.join(self.identity[2:]) or 'failing'})"
        named = self.identity[2:]
        return f"{self.tool} prompt set naming {', '.join(named) if named else 'no argument'}"


def iter_agent_findings(receipts: Sequence[Mapping[str, Any]]) -> Iterator[AgentFinding]:
    """The agent findings of agent receipts (`toolfuzz-agent/1`), in receipt order."""
    for receipt in receipts:
        tool = _text(receipt.get("tool"))
        for entry in _objects(receipt.get("findings")):
            if entry.get("kind") == "counterexample" and entry.get("agentReachable") is True:
                identity: tuple[str, ...] = (
                    tool,
                    "counterexample",
                    _text(entry.get("fingerprint")),
                )
                yield AgentFinding(REACHABLE_CHECK, tool, "counterexample", identity, entry)
        for entry in _objects(receipt.get("documentationProbes")):
            if entry.get("failing") is True:
                failures = sorted({_text(f) for f in _list(entry.get("failures"))})
                identity = (tool, "probe", *failures)
                yield AgentFinding(REACHABLE_CHECK, tool, "probe", identity, entry)
        for entry in _objects(receipt.get("correctness")):
            if entry.get("erroneous") is True:
                named = sorted({_text(n) for n in _list(entry.get("underspecified"))} - {""})
                if not named:
                    named = [f"template {_text(entry.get('template'))}"]
                identity = (tool, "prompt-set", *named)
                yield AgentFinding(CORRECTNESS_CHECK, tool, "prompt-set", identity, entry)


@dataclass(frozen=True)
class AgentDiff:
    """Head's agent findings, each with its state against the base (`new`, `still`), and
    the base's that head no longer has (`fixed`); `against_base` False when there were no
    base agent receipts to compare with (every state is then None)."""

    head: tuple[tuple[AgentFinding, str | None], ...]
    fixed: tuple[AgentFinding, ...]
    against_base: bool

    def of(self, check: str) -> tuple[list[AgentFinding], list[AgentFinding], list[AgentFinding]]:
        """(new, still, fixed) findings of `check`."""
        new = [f for f, state in self.head if f.check == check and state == "new"]
        still = [f for f, state in self.head if f.check == check and state == "still"]
        return new, still, [f for f in self.fixed if f.check == check]


def diff_agent(
    head: Sequence[Mapping[str, Any]], base: Sequence[Mapping[str, Any]] | None
) -> AgentDiff:
    """Head's agent findings against the base's (`base` None: not diffed); each of head's
    is listed (two erroneous sets naming the same argument are two sets, both `still` when
    the base had one), the base's fixed ones once per identity."""
    found = list(iter_agent_findings(head))
    if base is None:
        return AgentDiff(tuple((f, None) for f in found), (), False)
    before = _unique(iter_agent_findings(base))
    had = {f.identity for f in before}
    has = {f.identity for f in found}
    states = tuple((f, "still" if f.identity in had else "new") for f in found)
    return AgentDiff(states, tuple(f for f in before if f.identity not in has), True)


def against_base(diff: AgentDiff, check: str) -> tuple[str, list[str]]:
    """For the verdict: what to add to `check`'s failing reason (`; against the base: 1 new,
    1 still`) and a note naming the findings fixed since the base."""
    if not diff.against_base:
        return "", []
    new, still, fixed = diff.of(check)
    suffix = f"; against the base: {len(new)} new, {len(still)} still" if new or still else ""
    if not fixed:
        return suffix, []
    shown = [f.label() for f in fixed[:5]]
    more = f" and {len(fixed) - 5} more" if len(fixed) > 5 else ""
    return suffix, [f"{check}: fixed against the base: {'; '.join(shown)}{more}"]


def _unique(findings: Iterator[AgentFinding]) -> list[AgentFinding]:
    seen: set[tuple[str, ...]] = set()
    kept = []
    for finding in findings:
        if finding.identity not in seen:
            seen.add(finding.identity)
            kept.append(finding)
    return kept


def _objects(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
