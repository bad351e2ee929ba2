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

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import jsonschema

from toolfuzz_gate.core.campaign.rejection_code import pattern_problem, regex_problem
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.llm_settings import LlmSettings, parse_llm
from toolfuzz_gate.core.gate.quoting import bounded, shown
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.errors import PolicyError

FAIL_ON = (
    "invariant",
    "new-counterexample",
    "unsupported-keyword",
    "coverage-drop",
    "under-specified",
    "agent-reachable",
    "agent-correctness",
)
FLAKY = ("fail", "note")
"""`gate.flaky`: what a counterexample that reproduced only sometimes does to the gate."""
HANDLER_KINDS = ("python", "command", "mcp", "http")
SCHEMA_SOURCES = ("schema", "tools", "model")
ANY_TOOL = "*"
"""The tool of an `allow-refused` item without `tools`."""


@dataclass(frozen=True)
class RunOptions:
    """How each tool is fuzzed: the policy's `defaults`, overridden per tool."""

    seeds: tuple[int, ...] = (41,)
    runs: int = 200
    timeout_ms: int = 2000
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    format_assertion: bool = False
    default_draft: str = "2020-12"
    dialect: str | None = None
    ignore_output: tuple[str, ...] = ()
    """JSON Pointers of output members replay and key-order comparisons leave out."""
    rejection_code: str | None = None
    """A regular expression whose `code` group codes a rejection the handler did not."""
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
    """`exclude_tools`: declared tools of a `tools` file entry (without `pick`) not to fuzz."""
    fixed: tuple[tuple[str, JSON], ...] = ()
    """`fixed_arguments`: (JSON Pointer, value) pairs every call carries unchanged."""
    deterministic: bool | None = None
    """`deterministic`: the same call gives the same output (None: not said)."""
    strict: bool | None = None
    """`strict`: the schema is complete, every schema-valid call must succeed (None: not said)."""
    checks: tuple[tuple[str, bool], ...] = ()
    """`checks`: contract checks switched on or off by name (`core.campaign.checks`)."""


@dataclass(frozen=True)
class GateRules:
    """What fails the gate: `fail_on` values (see `core.gate.verdict`), per-family floors, and
    the refusals the policy accepts: (tool, code) pairs, `ANY_TOOL` for every tool."""

    fail_on: tuple[str, ...] = ("invariant",)
    min_coverage: tuple[tuple[str, str], ...] = ()
    allow_refused: tuple[tuple[str, str], ...] = ()
    flaky: str = "fail"
    """`fail`: a flaky counterexample fails the gate like any other (it is a defect);
    `note`: it is reported and noted, and fails nothing."""
    agent_unjudged: str = "fail"
    """`agent.unjudged`: `fail`, a check the model kept agent mode from making fails the
    agent check it belongs to; `note`: it is reported only (`core.agent.health`)."""

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
    budget_s: float | None = None
    """Seconds the whole run may spend generating cases, every tool's together."""


def parse_policy(
    document: Any, *, schema: JSONObject, lines: Mapping[str, int], file: str
) -> Policy:
    """The policy `document` describes, or `PolicyError` for the first problem found."""
    locate = _Locator(file, lines)
    _check_schema(document, schema, locate)
    _check_patterns(document.get("defaults", {}), "/defaults", locate)
    defaults = _run_options(document.get("defaults", {}), RunOptions())
    seen: dict[str, str] = {}
    tools = []
    for index, entry in enumerate(document["tools"]):
        where = jp.join("/tools", index)
        name = entry["name"]
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
                for code in item["allow-refused"]
            )
        ),
        gate.get("flaky", GateRules.flaky),
        document.get("agent", {}).get("unjudged", GateRules.agent_unjudged),
    )
    llm = parse_llm(document.get("llm"), locate.error)
    budget = document.get("budget_s")
    return Policy(tuple(tools), rules, document.get("corpus"), llm=llm, budget_s=budget)


class _Locator:
    """Builds `PolicyError`s that name the file, the line and the key of a pointer."""

    def __init__(self, file: str, lines: Mapping[str, int]) -> None:
        self.file = file
        self.lines = lines

    def line(self, pointer: str) -> int:
        """The line of `pointer`, else of its nearest ancestor the map knows."""
        while pointer not in self.lines and pointer:
            pointer = pointer.rpartition("/")[0]
        return self.lines.get(pointer, 1)

    def error(self, pointer: str, message: str, hint: str = "") -> PolicyError:
        key = "/".join(jp.split(pointer)) or "(document)"
        return PolicyError(message, file=self.file, line=self.line(pointer), key=key, hint=hint)


def _check_schema(document: Any, schema: JSONObject, locate: _Locator) -> None:
    if not isinstance(document, dict):
        raise locate.error(
            "", f"a policy is a YAML mapping, not {_kind(document)}", hint="start with `version: 1`"
        )
    validator = jsonschema.Draft202012Validator(schema)
    found = list(
        dict.fromkeys(
            item for error in validator.iter_errors(document) for item in _described(error)
        )
    )
    if not found:
        return
    found.sort(key=lambda item: (locate.line(item[0]), item[0], item[1]))
    pointer, message, hint = found[0]
    if len(found) > 1:
        message += f" (and {len(found) - 1} more problem(s))"
    raise locate.error(pointer, message, hint)


def _described(error: jsonschema.ValidationError) -> list[tuple[str, str, str]]:
    """(pointer, message, hint) for each problem of one schema violation (one per unknown
    key), worded for a policy author."""
    where = jp.from_parts(error.absolute_path)
    kind, instance = error.validator, error.instance
    expected: Any = error.validator_value
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    if "propertyNames" in list(error.absolute_schema_path):
        name = str(instance)
        known = schema.get("enum", [])
        close = difflib.get_close_matches(name, [str(k) for k in known], n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(map(str, known))}"
        # jsonschema checks a property name in place: the path is the mapping's
        return [(jp.join(where, name), f"unknown mutation family {shown(name)}", hint)]
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = sorted(schema.get("properties", {}))
        return [_unknown_key(where, str(name), known) for name in instance if name not in known]
    if kind == "required" and isinstance(instance, dict):
        # one error per missing key, each carrying the whole list: name them all (deduplicated)
        return [
            (jp.join(where, str(name)), f"missing key {str(name)!r}", _REQUIRED_HINTS.get(name, ""))
            for name in expected
            if name not in instance
        ]
    if kind == "const" and where == "/version":
        return [(where, f"version {shown(instance)} is not supported; it must be 1", "")]
    if kind == "type":
        return [(where, f"expected {expected}, got {_kind(instance)}", "")]
    if kind == "pattern" and jp.split(where)[-2:-1] == ["ignore_output"]:
        hint = "a pointer into the output starts with /: /id, /meta/createdAt"
        return [(where, f"{shown(instance)} is not a JSON Pointer to an output member", hint)]
    if kind == "enum":
        choices = ", ".join("null" if item is None else str(item) for item in expected)
        return [(where, f"{shown(instance)} is not one of: {choices}", "")]
    return [(where, bounded(error.message), "")]


_REQUIRED_HINTS = {"version": "the format version comes first: `version: 1`"}


def _unknown_key(where: str, name: str, known: list[str]) -> tuple[str, str, str]:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
    return jp.join(where, name), f"unknown key {shown(name)}", hint


def _run_options(given: Mapping[str, Any], base: RunOptions) -> RunOptions:
    values: dict[str, Any] = {key: given[key] for key in RUN_OPTION_KEYS if key in given}
    for key in ("seeds", "ignore_output"):
        if key in values:
            values[key] = tuple(values[key])
    return RunOptions(**{**base.__dict__, **values})


def _tool(entry: dict[str, Any], where: str, defaults: RunOptions, locate: _Locator) -> ToolPolicy:
    sources = [key for key in SCHEMA_SOURCES if key in entry]
    handler = _handler(entry["handler"], jp.join(where, "handler"), locate)
    if len(sources) > 1:
        raise locate.error(
            jp.join(where, sources[1]),
            f"two schema sources: {sources[0]} and {sources[1]}",
            hint="name the schema one way: schema, tools or model",
        )
    if not sources and handler.kind != "mcp":
        raise locate.error(
            where,
            "no schema: give schema, tools or model",
            hint="only an mcp handler may omit it (its server lists the schema)",
        )
    if "tool" in entry and "tools" not in entry:
        raise locate.error(jp.join(where, "tool"), "`tool` picks from a tools file: add `tools`")
    if "exclude_tools" in entry and ("tools" not in entry or "tool" in entry):
        raise locate.error(
            jp.join(where, "exclude_tools"),
            "`exclude_tools` goes with a `tools` file entry that takes every tool (no `tool`)",
            hint="to leave out a tool of an MCP server, do not list it; or use --exclude-tool",
        )
    fixed = entry.get("fixed_arguments", {})
    for pointer in fixed:
        if not pointer.startswith("/"):
            raise locate.error(
                jp.join(where, "fixed_arguments", pointer),
                f"{shown(pointer)} is not a JSON Pointer to an argument",
                hint="write it from the arguments' root, e.g. /repo_path",
            )
    _check_patterns(entry, where, locate)
    return ToolPolicy(
        entry["name"],
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
    )


def _check_patterns(entry: Mapping[str, Any], where: str, locate: _Locator) -> None:
    """`error_codes` compiles; `rejection_code` compiles and has its `code` group."""
    for key, problem_of in (("error_codes", regex_problem), ("rejection_code", pattern_problem)):
        source = entry.get(key)
        problem = problem_of(source) if isinstance(source, str) else None
        if problem is not None:
            raise locate.error(jp.join(where, key), problem)


_KIND_ONLY = (
    ("rejects", ("python",)),
    ("effects", ("python", "mcp")),
    ("headers", ("http",)),
    ("tool", ("mcp",)),
    ("server", ("http",)),
    ("reset_tool", ("mcp",)),
)


def _handler(given: dict[str, Any], where: str, locate: _Locator) -> HandlerSettings:
    kinds = [key for key in HANDLER_KINDS if key in given]
    if not kinds:
        raise locate.error(
            where, f"the handler names no kind: give one of {', '.join(HANDLER_KINDS)}"
        )
    if len(kinds) > 1:
        raise locate.error(
            jp.join(where, kinds[1]),
            f"a handler of two kinds: {kinds[0]} and {kinds[1]}",
            hint="one tool, one handler",
        )
    kind = kinds[0]
    for key, owners in _KIND_ONLY:
        if key in given and kind not in owners:
            raise locate.error(
                jp.join(where, key), f"{key} goes with a {' or '.join(owners)} handler, not {kind}"
            )
    if "reset_command" in given and "reset_tool" in given:
        raise locate.error(
            jp.join(where, "reset_tool"),
            "name one reset: reset_command or reset_tool, not both",
        )
    if "effects_directory" in given and "effects_command" in given:
        raise locate.error(
            jp.join(where, "effects_command"),
            "name one effects probe: effects_directory or effects_command, not both",
        )
    target = given[kind] if kind in ("python", "http") else given.get("tool", "")
    return HandlerSettings(
        kind,
        target=target,
        argv=tuple(given[kind]) if kind in ("command", "mcp") else tuple(given.get("server", ())),
        rejects=tuple(given.get("rejects", ())),
        effects=given.get("effects"),
        headers=tuple(sorted(given.get("headers", {}).items())),
        env=tuple(given.get("env", ())),
        cwd=given.get("cwd"),
        memory_limit_mb=given.get("memory_limit_mb"),
        cpu_limit_s=given.get("cpu_limit_s"),
        process_limit=given.get("process_limit"),
        effects_directory=given.get("effects_directory"),
        effects_command=tuple(given.get("effects_command", ())),
        reset_command=tuple(given.get("reset_command", ())),
        reset_tool=given.get("reset_tool"),
    )


def _kind(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)
