"""Every front door as a policy tool: the `fuzz` flags, the built-in contract and a receipt's
replayCommand (read back into the `fuzz` or `run` request it made) become the handler
settings and `ToolPolicy` a policy file's entry becomes, checked by the same rules (each
kind's row in `core.gate.handler_kinds`, `core.gate.policy_handler.parse_handler`), so one
setup path (`app.tool_setup`) makes what runs from any of them. A flag's problem is a usage
error naming the flag; a policy file's is a policy error naming its line (`edges.policy_file`).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolfuzz_gate.app.requests import FuzzRequest
from toolfuzz_gate.contract import poster
from toolfuzz_gate.core.campaign.checks import declared_hints, resolve_checks
from toolfuzz_gate.core.campaign.interface import NOTHING_DECLARED, DeclaredInterface
from toolfuzz_gate.core.campaign.output_schema import read_output_schema
from toolfuzz_gate.core.campaign.rejection_code import pattern_problem, regex_problem
from toolfuzz_gate.core.campaign.tool import Fixture, ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig
from toolfuzz_gate.core.gate.handler_kinds import (
    BY_NAME,
    FUZZ_KINDS,
    HandlerKind,
    handler_kind,
    owners,
)
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import ANY_TOOL, GateRules, Policy, RunOptions, ToolPolicy
from toolfuzz_gate.core.gate.policy_handler import Locator, parse_handler
from toolfuzz_gate.core.gate.stateful_settings import StatefulSettings
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.edges.handlers.workspace import fixture_digest
from toolfuzz_gate.edges.models import model_name
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import PolicyError, UsageError

COMMON_FLAGS = (
    ("env", "--env"),
    ("cwd", "--cwd"),
    ("memory_limit_mb", "--memory-limit-mb"),
    ("cpu_limit_s", "--cpu-limit-s"),
    ("process_limit", "--process-limit"),
    ("effects_directory", "--effects-directory"),
    ("effects_command", "--effects-command"),
    ("reset_command", "--reset-command"),
)
"""(policy handler key, `fuzz` flag) of the handler settings every kind takes."""
OWN_FLAGS = tuple(dict.fromkeys(pair for kind in FUZZ_KINDS for pair in kind.own_flags))
"""(policy handler key, `fuzz` flag) of the settings only some kinds take."""
KIND_OPTIONS = tuple(dict.fromkeys(kind.option for kind in FUZZ_KINDS))
"""The `fuzz` options naming a kind (`--handler` names two: its value's prefix picks)."""
HANDLER_FLAGS = (*KIND_OPTIONS, *(flag for _, flag in OWN_FLAGS + COMMON_FLAGS))
"""Every `fuzz` flag that describes the handler."""
_SHELL_WORDS = ("effects_command", "reset_command")  # one shell-quoted string on the command line
_LIMITS = ("memory_limit_mb", "cpu_limit_s", "process_limit")


def handler_from_flags(
    given: Mapping[str, Any], command: Sequence[str], timeout_ms: int
) -> HandlerSettings:
    """The handler the `fuzz` flags name (`given`: flag -> value, for the `HANDLER_FLAGS`
    given; `command`: the words after `--`), checked as a policy's handler is."""
    chosen = [option for option in KIND_OPTIONS if given.get(option)]
    if len(chosen) != 1:
        raise UsageError(
            "name exactly one handler" + (f"; got {', '.join(chosen)}" if chosen else ""),
            hint=", ".join(kind.flag for kind in FUZZ_KINDS if kind.in_policy),
        )
    kind, value = _kind_named(chosen[0], given[chosen[0]])
    needs_command = kind.flag.partition(" ")[2].startswith("-- ")
    if needs_command != bool(command):
        raise UsageError(
            f"{chosen[0]} takes the command after `--`"
            if needs_command
            else "unexpected `--` ARGV",
        )
    if timeout_ms <= 0:
        raise UsageError("--timeout-ms must be positive")
    flag_of = dict(OWN_FLAGS + COMMON_FLAGS)
    for key in _LIMITS:
        value_given = given.get(flag_of[key])
        if value_given is not None and value_given < 0:
            raise UsageError(f"{flag_of[key]} must be 0 (no limit) or positive")
    for key, flag in OWN_FLAGS:
        if given.get(flag) and kind.name not in owners(key):
            takers = " or ".join(BY_NAME[name].short_flag for name in owners(key))
            raise UsageError(f"{flag} goes with {takers}")
    if given.get("--reset-tool") is not None and given.get("--reset-command") is not None:
        raise UsageError("--reset-command and --reset-tool conflict: name one reset")
    if not kind.in_policy:  # the built-in contract: nothing to configure
        return HandlerSettings(kind.name, target=value)
    entry: dict[str, Any] = {kind.name: list(command) if needs_command else value}
    for key, flag in OWN_FLAGS + COMMON_FLAGS:
        found = given.get(flag)
        if found is None or found == [] or found == ():
            continue
        if key in _SHELL_WORDS:
            found = shlex.split(found)
        elif key == "headers":
            found = _headers(found)
        entry[key] = list(found) if isinstance(found, (list, tuple)) else found
    if kind.target_key is not None and kind.target_key not in entry and given.get("--tool"):
        entry[kind.target_key] = given["--tool"]  # mcp: the tool to call
    try:
        return parse_handler(entry, "", Locator("the command line", {}))
    except PolicyError as error:  # a rule of the policy's, in the flags' words
        raise UsageError(_in_flags(error.message), hint=_in_flags(error.hint)) from None


def _kind_named(option: str, value: Any) -> tuple[HandlerKind, str]:
    """The kind `option` names and its target (`--handler KIND:TARGET`: KIND picks it)."""
    kinds = [kind for kind in FUZZ_KINDS if kind.option == option]
    if not isinstance(value, str):  # a switch: the command after `--` starts it
        return kinds[0], ""
    if ":" not in kinds[0].flag.partition(" ")[2]:  # `--http URL`
        return kinds[0], value
    prefix, separator, target = value.partition(":")
    for kind in kinds:
        if separator and kind.name == prefix:
            return kind, target
    raise UsageError(
        f"handler spec {value!r} is not python:MODULE:FUNCTION",
        hint="use --command, --mcp or --http for the other kinds of handler",
    )


def _headers(given: Sequence[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for header in given:
        name, separator, variable = header.partition("=")
        if not separator or not name or not variable:
            raise UsageError(f"--header {header!r} is not NAME=ENV_VAR")
        headers[name] = variable
    return headers


def _in_flags(text: str) -> str:
    """A policy rule's message with each handler key named by its `fuzz` flag."""
    flags = dict(OWN_FLAGS + COMMON_FLAGS)
    return re.sub(r"\b[a-z_]+\b", lambda found: flags.get(found[0], found[0]), text)


def build_policy_spec(
    tool: ToolPolicy,
    options: RunOptions,
    annotations: Mapping[str, Any] | None = None,
    output_schema: JSON = None,
    interface: DeclaredInterface = NOTHING_DECLARED,
) -> ToolSpec:
    """The tool's contract as the policy declares it, and as its MCP server's
    `annotations` declare it where the policy does not say; its `outputSchema`, when the
    server declares one."""
    checks = resolve_checks(
        annotations=annotations,
        deterministic=tool.deterministic,
        strict=tool.strict,
        switches=dict(tool.checks),
    )
    return ToolSpec(
        tool.name,
        expected_rejections=tool.expected_rejections,
        error_codes=tool.error_codes,
        dry_run=tool.dry_run,
        max_output_bytes=options.max_output_bytes,
        ignore_output=options.ignore_output,
        rejection_code=options.rejection_code,
        rejection_answer=options.rejection_answer,
        fixed=tool.fixed,
        fixtures=tuple(
            (pointer, tuple(Fixture(Path(path).name, fixture_digest(Path(path))) for path in paths))
            for pointer, paths in tool.fixtures
        ),
        confined=tool.handler.sandbox,
        checks=checks,
        output_schema=None if output_schema is None else read_output_schema(output_schema),
        annotations=declared_hints(annotations),
        interface=interface,
    )


def fuzz_options(request: FuzzRequest) -> RunOptions:
    """The run options the `fuzz` flags give (those a policy's `defaults` would)."""
    for flag, given, problem_of in (
        ("--error-codes", request.error_codes, regex_problem),
        ("--rejection-code", request.rejection_code, pattern_problem),
    ):
        problem = problem_of(given) if given is not None else None
        if problem is not None:
            raise UsageError(f"{flag}: {problem}")
    return replace(
        config_options(request.config),
        timeout_ms=request.timeout_ms,
        rejection_code=request.rejection_code,
    )


def config_options(config: FuzzConfig) -> RunOptions:
    """The run options of a command line's campaign settings: every `FuzzConfig` field a
    `RunOptions` field shares (`tests/app/test_front_doors.py` holds it so)."""
    return RunOptions(
        seeds=(config.seed,),
        runs=config.runs,
        format_assertion=config.options.format_assertion,
        default_draft=config.options.default_draft,
        dialect=config.dialect,
        saturation=config.saturation,
        budget_s=config.budget_s,
    )


def fuzz_tool(request: FuzzRequest, name: str) -> ToolPolicy:
    """The policy tool the `fuzz` flags describe, under `name` (`--deterministic` and
    `--strict` only turn a check on; off, the server's annotations decide)."""
    handler = handler_from_flags(request.handler, request.command, request.timeout_ms)
    return ToolPolicy(
        name,
        "",
        handler,
        fuzz_options(request),
        expected_rejections=request.expected_rejections,
        error_codes=request.error_codes,
        dry_run=request.dry_run,
        fixed=fixed_from_flags(request.fixed_arguments),
        deterministic=True if request.deterministic else None,
        strict=True if request.strict else None,
    )


def fuzz_policy(request: FuzzRequest) -> LoadedPolicy:
    """The policy the `fuzz` flags describe: one entry (a schema file's tool, a tools
    file's or a model's, or a whole MCP server's), gated by the default rules."""
    sources = [
        flag
        for flag, given in (
            ("--schema", request.schema),
            ("--tools", request.tools),
            ("--model", request.model),
        )
        if given is not None
    ]
    if len(sources) > 1:
        raise UsageError(f"{' and '.join(sources)} conflict: name the schema one way")
    if request.exclude_tools and (request.schema is not None or request.model is not None):
        raise UsageError("--exclude-tool goes with --tools or --mcp (several tools)")
    if request.schema is not None:
        tool = fuzz_tool(request, request.tool or request.schema.stem)
        tool = replace(tool, schema=str(request.schema))
    elif request.model is not None:
        name = request.tool or model_name(request.model)
        tool = replace(fuzz_tool(request, name), model=request.model)
    else:
        tool = fuzz_tool(request, request.tool or "")
        if request.tools is not None:
            tool = replace(tool, tools=str(request.tools), pick=request.tool)
        elif not handler_kind(tool.handler).lists_its_tools:
            raise UsageError("--schema, --tools or --model is required unless the handler is --mcp")
        tool = replace(tool, exclude=request.exclude_tools, named=request.tool is not None)
    rules = GateRules(allow_unreached=(ANY_TOOL,) if request.allow_unreached else ())
    return _front_door(tool, rules)


def builtin_policy(config: FuzzConfig) -> LoadedPolicy:
    """The built-in contract's policy (`builtin_tool`), gated by the default rules."""
    return _front_door(builtin_tool(config_options(config)), GateRules())


def _front_door(tool: ToolPolicy, rules: GateRules) -> LoadedPolicy:
    """A policy of the command line's one entry: no file (a receipt replays from its
    replayCommand alone), no corpus, no stateful campaign; its paths as given, from the
    current directory."""
    policy = Policy((tool,), rules, stateful=StatefulSettings(enabled=False))
    return LoadedPolicy(policy, Path.cwd(), "", {})


def builtin_tool(options: RunOptions | None = None) -> ToolPolicy:
    """The built-in renderPoster contract as a policy tool: a pure function whose schema
    says everything (deterministic and strict)."""
    return ToolPolicy(
        poster.TOOL_NAME,
        "",
        HandlerSettings("builtin", target=poster.TOOL_NAME),
        options or RunOptions(),
        expected_rejections=poster.EXPECTED_REJECTIONS,
        error_codes=poster.ERROR_CODES,
        dry_run=poster.DRY_RUN,
        deterministic=True,
        strict=True,
    )


def fixed_from_flags(given: tuple[str, ...]) -> tuple[tuple[str, JSON], ...]:
    """`--fixed-argument POINTER=JSON` flags as (pointer, value) pairs, sorted."""
    fixed: dict[str, JSON] = {}
    for item in given:
        pointer, separator, text = item.partition("=")
        if not separator or not pointer.startswith("/"):
            raise UsageError(
                f"--fixed-argument {item!r} is not POINTER=JSON",
                hint="""e.g. --fixed-argument '/repo_path="/tmp/repo"'""",
            )
        try:
            fixed[pointer] = json.loads(text)
        except ValueError:
            raise UsageError(
                f"--fixed-argument {pointer}: {text!r} is not JSON",
                hint="a string is quoted: '/repo_path=\"/tmp/repo\"'",
            ) from None
    return tuple(sorted(fixed.items()))
