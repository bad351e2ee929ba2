"""The policy: a parsed YAML document turned into typed, validated settings (pure).

Two passes. The document is first validated against the JSON Schema of the policy that
ships in the package (`policy.schema.json`, passed in by the caller, which reads it);
then the rules a schema cannot say well are checked here: duplicate tool names, two
schema sources, a handler of two kinds, options that belong to another kind of handler,
a regular expression that does not compile. Every problem raises `PolicyError` naming
the file, the line (from `lines`, JSON Pointer -> 1-based line) and the key.

Paths stay as written: the edge that read the file resolves them against the repository
root and checks them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from toolfuzz_gate.core.campaign.rejection_code import (
    answer_problem,
    pattern_problem,
    regex_problem,
)
from toolfuzz_gate.core.campaign.run_defaults import DEFAULT_RUNS, DEFAULT_SEED, DEFAULT_TIMEOUT_MS
from toolfuzz_gate.core.gate import breaking, whole_entry
from toolfuzz_gate.core.gate.agent_settings import AgentSettings, parse_agent
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.llm_settings import LlmSettings, parse_llm
from toolfuzz_gate.core.gate.policy_handler import (
    Locator,
    parse_fixtures,
    parse_handler,
)
from toolfuzz_gate.core.gate.policy_messages import described, kind_of
from toolfuzz_gate.core.gate.quoting import shown
from toolfuzz_gate.core.gate.stateful_settings import StatefulSettings, parse_stateful
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.core.schema.options import DRAFT_2020_12

FAIL_ON = (
    "invariant",
    "new-counterexample",
    "unsupported-keyword",
    "coverage-drop",
    "under-specified",
    "unreached",
    "agent-reachable",
    "agent-correctness",
    "breaking-change",
)
FLAKY = ("fail", "note")
"""`gate.flaky`: what a counterexample that reproduced only sometimes does to the gate."""
INSTANCES = ("grouped", "each")
"""`gate.instances`: whether a new instance of a root cause the base has is a new finding."""
SCHEMA_SOURCES = ("schema", "tools", "model")
ANY_TOOL = "*"
"""The tool of an `allow-refused` item without `tools`."""


@dataclass(frozen=True)
class RunOptions:
    """How each tool is fuzzed: the policy's `defaults`, overridden per tool."""

    seeds: tuple[int, ...] = (DEFAULT_SEED,)
    runs: int = DEFAULT_RUNS
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    format_assertion: bool = False
    default_draft: str = DRAFT_2020_12
    dialect: str | None = None
    ignore_output: tuple[str, ...] = ()
    """JSON Pointers of output members replay and key-order comparisons leave out."""
    rejection_code: str | None = None
    """A regular expression whose `code` group codes a rejection the handler did not."""
    rejection_answer: str | None = None
    """A regular expression over an accepted call's answer: where it matches, a rejection."""
    budget_s: float | None = None
    """Seconds one tool may spend generating cases (`core.campaign.time_budget`); None: no limit."""
    saturation: bool = True
    """Stop a stream of cases that stopped adding anything new (`core.campaign.saturation`)."""
    python_interpreter: str | None = None  # see edges.handlers.interpreter


RUN_OPTION_KEYS = tuple(option.name for option in fields(RunOptions))
"""The keys of `defaults` a tool may override: one per `RunOptions` field."""


@dataclass(frozen=True)
class ToolPolicy:
    """One tool: where its schema comes from, its handler, its contract, its run options.

    At most one of `schema` (a JSON Schema file), `tools` (a tools file: the tool `pick`,
    or every tool it declares when `pick` is None) and `model` (`MODULE:CLASS`) is set;
    none only for an MCP handler, whose server lists the schema.
    """

    name: str
    pointer: str
    """Where the entry sits in the policy (`/tools/0`), for messages."""
    handler: HandlerSettings
    options: RunOptions
    schema: str | None = None
    tools: str | None = None
    pick: str | None = None
    model: str | None = None
    expected_rejections: tuple[str, ...] = ()
    error_codes: str | None = None
    dry_run: str | None = None
    exclude: tuple[str, ...] = ()
    """`exclude_tools`: tools of a whole entry (`takes_every_tool`) not to fuzz."""
    fixed: tuple[tuple[str, JSON], ...] = ()
    """`fixed_arguments`: (JSON Pointer, value) pairs every call carries unchanged."""
    deterministic: bool | None = None
    """`deterministic`: the same call gives the same output (None: not said)."""
    strict: bool | None = None
    """`strict`: the schema is complete, every schema-valid call must succeed (None: not said)."""
    checks: tuple[tuple[str, bool], ...] = ()
    """`checks`: contract checks switched on or off by name (`core.campaign.checks`)."""
    named: bool = True  # whether it gave `name` (`core.gate.whole_entry`: else `tools-N`)
    fixtures: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """`fixtures`: (JSON Pointer, repository paths) pairs; the handler lays every path
    (`HandlerSettings.fixtures`), the argument names one of them in each valid case."""


@dataclass(frozen=True)
class GateRules:
    """What fails the gate: `fail_on` values (see `core.gate.verdict`), per-family floors, and
    the refusals the policy accepts: (tool, code) pairs, `ANY_TOOL` for every tool."""

    fail_on: tuple[str, ...] = ("invariant", "unreached")
    min_coverage: tuple[tuple[str, str], ...] = ()
    allow_refused: tuple[tuple[str, str], ...] = ()
    flaky: str = "fail"
    """`fail`: a flaky counterexample fails the gate like any other (it is a defect);
    `note`: it is reported and noted, and fails nothing."""
    agent_unjudged: str = "fail"
    """`agent.unjudged`: `fail`, a check the model kept agent mode from making fails the
    agent check it belongs to; `note`: it is reported only (`core.agent.health`)."""
    allow_unreached: tuple[str, ...] = ()
    """Tools (`ANY_TOOL`: every tool) that `unreached` does not fail."""
    instances: str = "grouped"
    """`grouped`: a new counterexample of a root cause the base has is not new (`each`: it is)."""
    allow_breaking: tuple[str, ...] = ()  # `core.gate.breaking`

    def may_be_unreached(self, tool: str) -> bool:
        """Whether the policy accepts `tool` with no valid call getting through."""
        return tool in self.allow_unreached or ANY_TOOL in self.allow_unreached

    def allows(self, tool: str, code: str) -> bool:
        """Whether the policy accepts `tool` refused for `code`."""
        return (tool, code) in self.allow_refused or (ANY_TOOL, code) in self.allow_refused


@dataclass(frozen=True)
class Policy:
    tools: tuple[ToolPolicy, ...]
    gate: GateRules = field(default_factory=GateRules)
    corpus: str | None = None
    version: int = 1
    llm: LlmSettings | None = None
    """The `llm` section (agent mode only; None: the policy has none)."""
    budget_s: float | None = None  # seconds the whole run may spend, every tool's together
    stateful: StatefulSettings = field(default_factory=StatefulSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    """The `agent` section's sizes and per-tool user context (agent mode only)."""


def parse_policy(
    document: Any, *, schema: JSONObject, lines: Mapping[str, int], file: str
) -> Policy:
    """The policy `document` describes, or `PolicyError` for the first problem found."""
    locate = Locator(file, lines)
    _check_schema(document, schema, locate)
    _check_patterns(document.get("defaults", {}), "/defaults", locate)
    defaults = _run_options(document.get("defaults", {}), RunOptions())
    seen: dict[str, str] = {}
    tools = []
    for index, entry in enumerate(document["tools"]):
        where = jp.join("/tools", index)
        name = entry.get("name", f"\0{where}")  # a whole entry without one duplicates none
        if name in seen:
            first = locate.line(seen[name])
            raise locate.error(
                jp.join(where, "name"), f"duplicate tool name {name!r} (first at line {first})"
            )
        seen[name] = jp.join(where, "name")
        tools.append(_tool(entry, where, defaults, locate))
    gate = document.get("gate", {})
    fail_on = gate.get("fail_on", GateRules.fail_on)
    rules = GateRules(
        tuple(item for item in fail_on if isinstance(item, str)),
        tuple(sorted(gate.get("min_coverage", {}).items())),
        tuple(
            sorted(
                (tool, code)
                for item in fail_on
                if isinstance(item, dict)
                for tool in item.get("tools", [ANY_TOOL])
                for code in item.get("allow-refused", ())
            )
        ),
        gate.get("flaky", GateRules.flaky),
        document.get("agent", {}).get("unjudged", GateRules.agent_unjudged),
        tuple(
            sorted(
                tool
                for item in fail_on
                if isinstance(item, dict) and item.get("allow-unreached") is True
                for tool in item.get("tools", [ANY_TOOL])
            )
        ),
        gate.get("instances", GateRules.instances),
        breaking.allowed_breaking(fail_on),
    )
    llm = parse_llm(document.get("llm"), locate.error)
    budget, stateful = document.get("budget_s"), parse_stateful(document.get("stateful"))
    whole = any("name" not in e or ("tools" in e and "tool" not in e) for e in document["tools"])
    names = None if whole else set(seen)  # a whole entry's tools are named when expanded
    agent = parse_agent(document.get("agent"), names, locate.error)
    return Policy(tuple(tools), rules, document.get("corpus"), 1, llm, budget, stateful, agent)


def _check_schema(document: Any, schema: JSONObject, locate: Locator) -> None:
    if not isinstance(document, dict):
        raise locate.error(
            "",
            f"a policy is a YAML mapping, not {kind_of(document)}",
            hint="start with `version: 1`",
        )
    import jsonschema  # here, not at the top: a run without a policy does not load it

    validator = jsonschema.Draft202012Validator(schema)
    found = list(
        dict.fromkeys(
            item for error in validator.iter_errors(document) for item in described(error)
        )
    )
    if not found:
        return
    found.sort(key=lambda item: (locate.line(item[0]), item[0], item[1]))
    pointer, message, hint = found[0]
    if len(found) > 1:
        message += f" (and {len(found) - 1} more problem(s))"
    raise locate.error(pointer, message, hint)


def _run_options(given: Mapping[str, Any], base: RunOptions) -> RunOptions:
    values: dict[str, Any] = {key: given[key] for key in RUN_OPTION_KEYS if key in given}
    for key in ("seeds", "ignore_output"):
        if key in values:
            values[key] = tuple(values[key])
    return RunOptions(**{**base.__dict__, **values})


def _tool(entry: dict[str, Any], where: str, defaults: RunOptions, locate: Locator) -> ToolPolicy:
    sources = [key for key in SCHEMA_SOURCES if key in entry]
    handler = parse_handler(entry["handler"], jp.join(where, "handler"), locate)
    if len(sources) > 1:
        raise locate.error(
            jp.join(where, sources[1]),
            f"two schema sources: {sources[0]} and {sources[1]}",
            hint="name the schema one way: schema, tools or model",
        )
    if not sources and not handler_kind(handler).lists_its_tools:
        raise locate.error(
            where,
            "no schema: give schema, tools or model",
            hint="only an mcp handler may omit it (its server lists the schema)",  # lists_its_tools
        )
    if "tool" in entry and "tools" not in entry:
        raise locate.error(jp.join(where, "tool"), "`tool` picks from a tools file: add `tools`")
    whole_entry.check_whole_entry(entry, handler.kind, handler.target, where, locate.error)
    fixed = entry.get("fixed_arguments", {})
    for pointer in fixed:
        if not pointer.startswith("/"):
            raise locate.error(
                jp.join(where, "fixed_arguments", pointer),
                f"{shown(pointer)} is not a JSON Pointer to an argument",
                hint="write it from the arguments' root, e.g. /repo_path",
            )
    _check_patterns(entry, where, locate)
    fixtures = parse_fixtures(entry, where, handler, locate)
    if fixtures:
        laid = tuple(dict.fromkeys(path for _, paths in fixtures for path in paths))
        handler = replace(handler, fixtures=laid)
    return ToolPolicy(
        entry.get("name") or "tools-" + jp.split(where)[-1],
        where,
        handler,
        _run_options(entry, defaults),
        schema=entry.get("schema"),
        tools=entry.get("tools"),
        pick=entry.get("tool"),
        model=entry.get("model"),
        expected_rejections=tuple(entry.get("expected_rejections", ())),
        error_codes=entry.get("error_codes"),
        dry_run=entry.get("dry_run"),
        exclude=tuple(entry.get("exclude_tools", ())),
        fixed=tuple(sorted(fixed.items())),
        deterministic=entry.get("deterministic"),
        strict=entry.get("strict"),
        checks=tuple(sorted(entry.get("checks", {}).items())),
        named="name" in entry,
        fixtures=fixtures,
    )


def _check_patterns(entry: Mapping[str, Any], where: str, locate: Locator) -> None:
    """`error_codes` compiles; `rejection_code` compiles and has its `code` group."""
    for key, problem_of in (
        ("error_codes", regex_problem),
        ("rejection_code", pattern_problem),
        ("rejection_answer", answer_problem),
    ):
        source = entry.get(key)
        problem = problem_of(source) if isinstance(source, str) else None
        if problem is not None:
            raise locate.error(jp.join(where, key), problem)
