"""The rules a pull request is judged by: the base commit's, never weaker (pure).

The gate runs the pull request's code, and the policy is a file of that pull request: a
PR that turns a rule off in the same commit as the bug the rule catches must not pass
by it. So the verdict's rules are the stricter of the base's policy and the head's, rule
by rule: every `fail_on` check either lists, only the refusals both allow, the higher
`min_coverage` floor, `flaky: fail` if either says so, a contract check (or a tool's
`deterministic` / `strict`) on if the base has it on, only the exclusions both make, the
base's model endpoint, and for every run option, tool key and handler key that bears on
the verdict the rule its row of `OPTION_RULES`, `TOOL_RULES` or `HANDLER_RULES` gives (the
larger `runs`, the smaller `timeout_ms`, only the `ignore_output` pointers both make, the
base's `rejection_answer`, ...); a key that does not bear on it (where the handler runs,
which draft the schema is read in) is `FREE` there, with the reason, so that every key is
classified (a test holds the tables to the fields). Each weakening the head tried is
listed for the comment's "policy changed" block; it takes effect once merged (the base
then has it). Without a base policy the head's rules stand, and the comment says so. What
the head adds (a tool, a stricter rule) applies at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.core.campaign.run_defaults import (
    DEFAULT_CPU_LIMIT_S,
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_PROCESS_LIMIT,
)
from toolfuzz_gate.core.gate.llm_settings import LlmSettings
from toolfuzz_gate.core.gate.policy import GateRules, Policy, ToolPolicy
from toolfuzz_gate.core.gate.verdict import COVERAGE_RANK, Verdict
from toolfuzz_gate.errors import PolicyError

NO_BASE_POLICY = (
    "the base has no policy: this pull request's own rules decided the verdict "
    "(the base's rules decide once it has one)"
)


@dataclass(frozen=True)
class Governed:
    """The policy the run uses (head's tools under the stricter rules) and each weakening
    the head tried, in words (empty: none)."""

    policy: Policy
    weakenings: tuple[str, ...] = ()
    base_missing: bool = False


@dataclass(frozen=True)
class Trust:
    """What a run found the pull request did to the gate itself: `changed`, what the
    comment's "policy changed" block lists (weakenings, a head cassette, dependencies the
    base borrowed), and `failures`, reasons that fail the run whatever the rules say
    (a handler wrote a file command, changed what the base borrowed)."""

    changed: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()


def with_trust(verdict: Verdict, trust: Trust) -> Verdict:
    """`verdict`, failed first by each of `trust.failures`."""
    if not trust.failures:
        return verdict
    return Verdict(True, (*trust.failures, *verdict.reasons))


def govern(head: Policy, base: Policy | None) -> Governed:
    """`head` under the stricter of its rules and `base`'s (None: the base has no policy)."""
    if base is None:
        return Governed(head, (), True)
    said: list[str] = []
    rules = _rules(head.gate, base.gate, said)
    by_name = {tool.name: tool for tool in base.tools}
    tools = tuple(_tool(tool, by_name.get(tool.name), said) for tool in head.tools)
    kept = {tool.name for tool in head.tools}
    said += [
        f"tool {tool.name!r} removed from the policy"
        for tool in base.tools
        if tool.name not in kept
    ]
    budget = _larger_budget(head.budget_s, base.budget_s, "budget_s", said)
    llm = _llm(head.llm, base.llm, said)
    governed = replace(head, gate=rules, tools=tools, budget_s=budget, llm=llm)
    governed = replace(
        _by_rules(governed, base, POLICY_RULES, "policy", said),
        stateful=_by_rules(head.stateful, base.stateful, STATEFUL_RULES, "stateful", said),
        agent=_by_rules(head.agent, base.agent, AGENT_RULES, "agent", said),
    )
    return Governed(governed, tuple(said))


def _rules(head: GateRules, base: GateRules, said: list[str]) -> GateRules:
    fail_on = (*base.fail_on, *(name for name in head.fail_on if name not in base.fail_on))
    said += [f"gate.fail_on: {name} removed" for name in base.fail_on if name not in head.fail_on]
    allowed = tuple(item for item in head.allow_refused if item in base.allow_refused)
    said += [
        f"gate.fail_on: allow-refused {code} added" + ("" if tool == "*" else f" for {tool}")
        for tool, code in head.allow_refused
        if (tool, code) not in base.allow_refused
    ]
    floors = dict(head.min_coverage)
    for family, floor in base.min_coverage:
        mine = floors.get(family)
        if mine is None or COVERAGE_RANK.get(mine, 0) < COVERAGE_RANK.get(floor, 0):
            said.append(
                f"gate.min_coverage.{family}: "
                + (f"{floor} lowered to {mine}" if mine else f"{floor} removed")
            )
            floors[family] = floor
    flaky = head.flaky
    if base.flaky == "fail" and head.flaky != "fail":
        said.append(f"gate.flaky: fail changed to {head.flaky}")
        flaky = "fail"
    return GateRules(fail_on, tuple(sorted(floors.items())), allowed, flaky)


def _tool(head: ToolPolicy, base: ToolPolicy | None, said: list[str]) -> ToolPolicy:
    if base is None:
        return head  # a new tool: nothing on the base to weaken
    where = f"tool {head.name!r}"
    options = _by_rules(head.options, base.options, OPTION_RULES, where, said)
    handler = head.handler
    if handler.kind == base.handler.kind:  # another kind of handler: keys not comparable
        handler = _by_rules(handler, base.handler, HANDLER_RULES, f"{where}: handler", said)
    checks = dict(head.checks)
    base_checks = dict(base.checks)
    for name, on in head.checks:
        if not on and base_checks.get(name) is not False:
            said.append(f"{where}: check {name} turned off")
            if name in base_checks:
                checks[name] = base_checks[name]
            else:
                del checks[name]
    deterministic, strict = head.deterministic, head.strict
    if base.deterministic and not head.deterministic:
        said.append(f"{where}: deterministic turned off")
        deterministic = True
    if base.strict and not head.strict:
        said.append(f"{where}: strict turned off")
        strict = True
    exclude = tuple(name for name in head.exclude if name in base.exclude)
    said += [f"{where}: {name} excluded" for name in head.exclude if name not in base.exclude]
    kept = replace(
        head,
        options=options,
        handler=handler,
        checks=tuple(sorted(checks.items())),
        deterministic=deterministic,
        strict=strict,
        exclude=exclude,
    )
    tool: ToolPolicy = _by_rules(kept, base, TOOL_RULES, where, said)
    return tool


Rule = Callable[[Any, Any, str, list[str]], Any]
"""How the verdict's value of one key is found from the head's and the base's, each
weakening said: `(head, base, "where: key", said) -> value`."""


def _by_rules(head: Any, base: Any, rules: Mapping[str, Rule], where: str, said: list[str]) -> Any:
    """`head` with each key a rule names replaced by the rule's value."""
    values = {
        name: rule(getattr(head, name), getattr(base, name), f"{where}: {name}", said)
        for name, rule in rules.items()
    }
    return replace(head, **values)


def _at_least(head: int, base: int, what: str, said: list[str]) -> int:
    if head < base:
        said.append(f"{what} lowered from {base} to {head}")
        return base
    return head


def _at_most(head: int, base: int, what: str, said: list[str]) -> int:
    if head > base:
        said.append(f"{what} raised from {base} to {head}")
        return base
    return head


def _on_if_base(head: bool, base: bool, what: str, said: list[str]) -> bool:
    if base and not head:
        said.append(f"{what} turned off")
        return True
    return head


def _off_if_base(head: bool, base: bool, what: str, said: list[str]) -> bool:
    if head and not base:
        said.append(f"{what} turned on")
        return False
    return head


def _with_the_base_s(
    head: tuple[Any, ...], base: tuple[Any, ...], what: str, said: list[str]
) -> tuple[Any, ...]:
    """Every item the base has, then the head's others (seeds: more cases, never fewer)."""
    missing = [item for item in base if item not in head]
    if missing:
        said.append(f"{what}: {', '.join(map(str, missing))} removed")
    return (*base, *(item for item in head if item not in base))


def _both(
    head: tuple[Any, ...], base: tuple[Any, ...], what: str, said: list[str]
) -> tuple[Any, ...]:
    """Only the items both make (each one leaves something unchecked)."""
    added = [item for item in head if item not in base]
    if added:
        shown = ", ".join(str(item[0] if isinstance(item, tuple) else item) for item in added)
        said.append(f"{what}: {shown[:300]} added")
    return tuple(item for item in head if item in base)


def _the_base_s(head: Any, base: Any, what: str, said: list[str]) -> Any:
    """The base's value (a changed pattern may read more answers as rejections)."""
    if head != base:
        said.append(f"{what} changed from {base!r} to {head!r}"[:400])
        return base
    return head


def _larger_budget(
    head: float | None, base: float | None, what: str, said: list[str]
) -> float | None:
    """None is no limit, the largest budget."""
    if base is None or (head is not None and head < base):
        if head is not None:
            said.append(f"{what} lowered from {'no limit' if base is None else base} to {head}")
        return base
    return head


POLICY_RULES: Mapping[str, Rule] = {}
POLICY_FREE = {
    "corpus": "the folder; the base's cases are replayed as the base has them, whatever the "
    "head did to them or to this key (`app.action_trust`)",
    "tools": "each tool by its own rules, above; one the head adds applies at once",
    "gate": "the gate's rules, above",
    "version": "the file's format",
    "llm": "the base's endpoint, above",
    "budget_s": "the larger, above",
    "stateful": "STATEFUL_RULES",
    "agent": "AGENT_RULES",
}
STATEFUL_RULES: Mapping[str, Rule] = {
    "enabled": _on_if_base,
    "sequences": _at_least,
    "max_calls": _at_least,
    "shrink_runs": _at_least,
    "checks": _with_the_base_s,  # each a check of sequences
}
STATEFUL_FREE = {
    "kinds": "what the pull request's tools do (create, read, ...), its to declare",
    "links": "which output feeds which argument, the same",
}
AGENT_RULES: Mapping[str, Rule] = {
    "prompt_sets": _at_least,
    "infills": _at_least,
    "probes": _at_least,
}
AGENT_FREE = {
    "slots": "the shape of a prompt template, not how many are tried",
    "steps": "how long one agent run may go on before it ends as step-limit",
    "context": "what the pull request's users know of its tools",
}


OPTION_RULES: Mapping[str, Rule] = {
    "seeds": _with_the_base_s,
    "runs": _at_least,
    "timeout_ms": _at_most,  # a longer one hides a slow call
    "max_output_bytes": _at_most,  # a larger one hides an oversized answer
    "format_assertion": _on_if_base,
    "ignore_output": _both,  # each pointer is output left unchecked
    "rejection_code": _the_base_s,
    "rejection_answer": _the_base_s,  # `.*` would read every answer as a rejection
    "budget_s": _larger_budget,
    "saturation": _off_if_base,  # stops streams early
}
OPTION_FREE = {  # keys that do not bear on the verdict, or are the pull request's to say
    "default_draft": "how the tool's own schema is read: the pull request's schema",
    "dialect": "the same",
    "python_interpreter": "where the pull request's code runs",
}
TOOL_RULES: Mapping[str, Rule] = {
    "expected_rejections": _both,  # each is a rejection of valid calls not reported
    "error_codes": _the_base_s,
    "dry_run": _the_base_s,
    "fixed": _both,  # each pinned argument is fuzzed no more
}
TOOL_FREE = {
    "name": "the tool's identity",
    "pointer": "where the entry sits",
    "handler": "the handler's keys: HANDLER_RULES",
    "options": "OPTION_RULES",
    "schema": "the pull request's own schema",
    "tools": "the same",
    "pick": "the same",
    "model": "the same",
    "exclude": "kept to those both make above",
    "deterministic": "on if the base has it on, above",
    "strict": "the same",
    "checks": "each on if the base has it on, above",
    "named": "how the entry was written",
    "fixtures": "files the pull request's tool needs in its sandbox",
}


def _limit(default: int) -> Rule:
    """The smaller resource limit, where None is `default` and 0 is none (`rlimits`)."""

    def effective(value: int | None) -> float:
        value = default if value is None else value
        return float("inf") if value == 0 else value

    def rule(head: int | None, base: int | None, what: str, said: list[str]) -> int | None:
        if effective(head) > effective(base):
            shown = {None: f"the default {default}", 0: "no limit"}
            said.append(f"{what} raised from {shown.get(base, base)} to {shown.get(head, head)}")
            return base
        return head

    return rule


HANDLER_RULES: Mapping[str, Rule] = {
    "rejects": _both,  # `Exception` would make every crash a rejection
    "sandbox": _on_if_base,
    "memory_limit_mb": _limit(DEFAULT_MEMORY_LIMIT_MB),
    "cpu_limit_s": _limit(DEFAULT_CPU_LIMIT_S),
    "process_limit": _limit(DEFAULT_PROCESS_LIMIT),
}
HANDLER_FREE = {
    "kind": "the pull request's handler",
    "target": "the same",
    "argv": "the same",
    "effects": "the pull request's probe of its own state",
    "headers": "what the pull request's server needs",
    "env": "variables handed to the pull request's code (the refused ones never are)",
    "cwd": "where the pull request's code runs",
    "effects_directory": "the pull request's probe of its own state",
    "effects_command": "the same",
    "reset_command": "how the pull request's state is reset",
    "reset_tool": "the same",
    "fixtures": "files the pull request's tool needs",
}


def _llm(head: LlmSettings | None, base: LlmSettings | None, said: list[str]) -> LlmSettings | None:
    """The base's endpoint, key variable and mode; the head's model and limits. Where the
    key goes and how (the URL, the API, its headers and query) is the base's whenever the
    base's mode sends it: a change there is an error, as it is for `base_url`. In replay
    nothing is sent, so the head's API and headers stand (its cassette was recorded in
    them), the change listed."""
    if head is None or base is None:
        return head
    for name, mine, theirs in _endpoint_changes(head, base):
        if name in KEY_ROUTE and base.mode != "replay":
            raise PolicyError(
                f"llm.{name} changed from {_shown(name, theirs)} to {_shown(name, mine)} in "
                f"{base.mode} mode: the model's key goes only to the base's endpoint, as the "
                "base sends it",
                file="(policy)",
                line=1,
                key=f"llm/{name}",
                hint="change the endpoint in a pull request of its own with llm.mode: replay, "
                "or on the default branch",
            )
        said.append(f"llm.{name} changed from {_shown(name, theirs)} to {_shown(name, mine)}")
    return replace(head, base_url=base.base_url, api_key_env=base.api_key_env, mode=base.mode)


KEY_ROUTE = ("base_url", "api", "headers", "query", "api_key_header")
"""What decides where the key goes and in which header: the base's, outside replay."""


def _shown(name: str, value: object) -> object:
    """Header values are not repeated in the comment (a proxy's token may be one)."""
    if name == "headers" and isinstance(value, tuple):
        return "[" + ", ".join(header for header, _ in value) + "]"
    return value


def _endpoint_changes(head: LlmSettings, base: LlmSettings) -> Iterator[tuple[str, object, object]]:
    for name in (*KEY_ROUTE, "api_key_env", "mode"):
        mine, theirs = getattr(head, name), getattr(base, name)
        if mine != theirs:
            yield name, mine, theirs
