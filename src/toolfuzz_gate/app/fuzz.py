"""`fuzz` and `run` without a policy: the flags (or the built-in contract) as a policy
(`app.front_doors`), gated by the one pipeline every policy run takes (`app.policy_gate`).

What only the flags can get wrong is checked here first, each a usage error naming its flag:
a tool `--tool` or `--exclude-tool` names that the tools file or the server does not have,
`--receipt` or `--cases` with several tools, a `--fixed-argument` the schema does not admit.
A server that cannot list its tools stops `fuzz --mcp` before any tool is attempted.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.front_doors import builtin_policy, fuzz_policy, fuzz_tool
from toolfuzz_gate.app.policy_gate import run_gate
from toolfuzz_gate.app.policy_plan import plan_policy, policy_tools
from toolfuzz_gate.app.policy_run import run_policy
from toolfuzz_gate.app.progress import Progress
from toolfuzz_gate.app.replay_command import build_replay_command
from toolfuzz_gate.app.requests import BuiltinRunRequest, FuzzRequest, PolicyRunRequest
from toolfuzz_gate.app.tool_setup import (
    KeptListings,
    build_listed_spec,
    build_policy_handler,
    tool_schema,
)
from toolfuzz_gate.app.whole_entries import entry_names
from toolfuzz_gate.app.written import Written
from toolfuzz_gate.core.campaign.run_defaults import DEFAULT_OUT
from toolfuzz_gate.core.campaign.tool_fuzz import fixed_not_admitted
from toolfuzz_gate.core.gate.handler_kinds import handler_kind
from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.handlers.mcp_servers import McpServers
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import UsageError
from toolfuzz_gate.exitcodes import ExitCode


def fuzz_handler(request: FuzzRequest) -> HandlerConfig:
    """The handler the flags name, as a policy's handler becomes a config."""
    tool = fuzz_tool(request, request.tool or "")
    return HandlerConfig.from_policy(tool.handler, tool.name, tool.options)


def fuzz(request: FuzzRequest, out: TextIO) -> ExitCode:
    """Each tool fuzzed, or refused in its own receipt (its schema refused, its handler
    unreachable) while the others run; the exit code is the verdict of the default gate
    rules (there is no baseline, so every counterexample and refusal is new). A server is
    started once: the one that lists the tools is the one the first tool calls."""
    if request.receipt is not None and request.out is not None:
        raise UsageError("--receipt and --out conflict: one names a file, the other a directory")
    listings = KeptListings(McpServers())
    try:
        loaded = fuzz_policy(request)
        tools = _checked_tools(request, loaded, listings)
        return _gate(loaded, _run_request(request), out, listings, request.receipt, tools)
    finally:
        listings.servers.close()


def run_builtin(request: BuiltinRunRequest, out: TextIO) -> ExitCode:
    """`run` without a policy: the built-in renderPoster contract, gated as `fuzz` gates."""
    loaded = builtin_policy(request.config)
    return _gate(loaded, _run_request(request), out, None, None, list(loaded.policy.tools))


def _run_request(request: FuzzRequest | BuiltinRunRequest) -> PolicyRunRequest:
    """The front door's run, one tool at a time, as `run --policy` would be asked for it."""
    return PolicyRunRequest(
        Path(),
        request.out or Path(DEFAULT_OUT),
        oracle=request.config.oracle,
        diagnostics=request.diagnostics,
        argv=request.argv,
        jobs=1,
        cases=request.cases,
    )


def _gate(
    loaded: LoadedPolicy,
    run: PolicyRunRequest,
    out: TextIO,
    listings: KeptListings | None,
    receipt: Path | None,
    tools: list[ToolPolicy],
) -> ExitCode:
    """`run_gate` on the front door's policy, one tool at a time; with `receipt`, its one
    receipt, under the name the flag gives, is all it keeps (the verdict's files are
    written aside and dropped)."""
    if receipt is not None and len(tools) != 1:
        raise UsageError(f"{len(tools)} tools to fuzz: use --out DIR instead of --receipt")
    if run.cases is not None and len(tools) != 1:
        raise UsageError(
            f"--cases logs one tool's cases and there are {len(tools)} tools to fuzz",
            hint="pick one with --tool NAME",
        )
    if receipt is None:
        return run_gate(loaded, run, out, listings=listings).exit_code
    (unit,) = plan_policy(loaded, run.overrides, listings)
    unit = replace(unit, file=receipt.name)  # the receipt as the flag names it
    replay = build_replay_command(run.argv)
    receipt.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=receipt.parent, prefix=".toolfuzz-") as aside:

        def head() -> list[Written]:
            progress = Progress(out)
            return run_policy(loaded, run, replay, Path(aside), [unit], progress, listings=listings)

        outcome = run_gate(loaded, replace(run, out=Path(aside)), out, head=head)
        shutil.move(Path(aside) / unit.file, receipt)
    return outcome.exit_code


def _checked_tools(
    request: FuzzRequest, loaded: LoadedPolicy, listings: KeptListings
) -> list[ToolPolicy]:
    """The tools the flags pick, each name and `--fixed-argument` checked in the flags'
    words; a server that does not list its tools stops the run here (`HandlerError`)."""
    (entry,) = loaded.policy.tools
    listed = handler_kind(entry.handler).lists_its_tools and not (entry.schema or entry.model)
    if entry.tools is not None or listed:
        names = entry_names(entry, loaded, listings)  # a server that lists none: HandlerError
        wanted = request.tool
        if wanted and wanted not in names:
            raise UsageError(
                f"{entry.tools} declares no tool named {wanted!r}; it has {', '.join(names)[:200]}"
                if entry.tools is not None
                else f"the MCP server lists no tool named {wanted!r}"
            )
        if not names and entry.tools is None:
            raise UsageError("no tool to fuzz: the MCP server lists none")
        _check_excluded([wanted] if wanted else names, request.exclude_tools)
    tools = policy_tools(loaded, listings)
    for tool in tools if entry.fixed else ():
        handler = build_policy_handler(tool.handler, tool.name, tool.options, loaded)
        schema = tool_schema(tool, handler, loaded, listings)
        spec = build_listed_spec(tool, tool.options, handler, listings)
        problem = fixed_not_admitted(schema, spec, request.config)
        if problem is not None:
            raise UsageError(f"--fixed-argument: {tool.name}: {problem}")
    return tools


def _check_excluded(names: list[str], excluded: tuple[str, ...]) -> None:
    """An excluded name that is none of `names` is a usage error, as is excluding every one."""
    for name in excluded:
        if name not in names:
            raise UsageError(
                f"--exclude-tool {name!r}: no such tool to fuzz",
                hint=f"the tools: {', '.join(names)[:300] or 'none'}",
            )
    if not [name for name in names if name not in excluded]:
        raise UsageError("--exclude-tool leaves no tool to fuzz")
