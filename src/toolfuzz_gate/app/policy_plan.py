"""A policy run's plan: its tools (tools files expanded), each under each of its seeds with
the user's overrides applied, and the receipt file each writes; and what a run wrote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolfuzz_gate.app.requests import RunOverrides
from toolfuzz_gate.app.tool_setup import Listings
from toolfuzz_gate.app.whole_entries import expanded
from toolfuzz_gate.app.written import Written, receipt_name
from toolfuzz_gate.core.gate.policy import RunOptions, ToolPolicy
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, receipt_keys
from toolfuzz_gate.edges.policy_file import LoadedPolicy
from toolfuzz_gate.errors import PolicyError, UsageError


@dataclass(frozen=True)
class Planned:
    """One unit of a policy run: a tool under one seed, and the receipt file it writes."""

    tool: ToolPolicy
    options: RunOptions
    seed: int
    file: str


def override_values(overrides: RunOverrides) -> dict[str, Any]:
    """The `RunOptions` fields the user's overrides replace."""
    given: dict[str, Any] = {}
    if overrides.seed is not None:
        given["seeds"] = (overrides.seed,)
    if overrides.runs is not None:
        given["runs"] = overrides.runs
    if overrides.format_assertion:
        given["format_assertion"] = True
    if overrides.default_draft is not None:
        given["default_draft"] = overrides.default_draft
    return given


def plan_policy(
    loaded: LoadedPolicy, overrides: RunOverrides, listings: Listings | None = None
) -> list[Planned]:
    """Every (tool, seed) of `loaded` in order, with the user's overrides applied;
    `listings`: each MCP server's `tools/list`, shared with the caller (`tool_setup`)."""
    values = override_values(overrides)
    planned: list[Planned] = []
    names: set[str] = set()
    # The base's policy may lack a tool the head's has (or the other way): the names are
    # checked against the head's, and the base takes those it has.
    strict = loaded.mirrors is None
    for tool in chosen_tools(policy_tools(loaded, listings), overrides, strict=strict):
        options = replace(tool.options, **values)
        for seed in options.seeds:
            name = receipt_name(tool.name, None if len(options.seeds) == 1 else seed)
            if name in names:
                raise PolicyError(
                    f"two tools would write the receipt {name}; rename one",
                    file=loaded.file,
                    line=loaded.lines.get(f"{tool.pointer}/name", 1),
                    key=f"{tool.pointer[1:]}/name",
                )
            names.add(name)
            planned.append(Planned(tool, options, seed, name))
    return planned


def policy_tools(loaded: LoadedPolicy, listings: Listings | None = None) -> list[ToolPolicy]:
    """The policy's tools in order, each whole entry (a tools file without `tool:`, an MCP
    server without `name`) expanded (`app.whole_entries`)."""
    listings = {} if listings is None else listings
    return [one for entry in loaded.policy.tools for one in expanded(entry, loaded, listings)]


def chosen_tools(
    tools: Sequence[ToolPolicy], overrides: RunOverrides, *, strict: bool = True
) -> list[ToolPolicy]:
    """The tools `--tool` picks (all without it), less those `--exclude-tool` names; when
    `strict`, a name that is no tool of the policy is a usage error (a typo would otherwise
    fuzz nothing, or everything)."""
    known = [tool.name for tool in tools]
    for flag, names in (("--tool", overrides.tools), ("--exclude-tool", overrides.exclude_tools)):
        for name in names:
            if strict and name not in known:
                raise UsageError(
                    f"{flag} {name!r}: the policy has no such tool",
                    hint=f"its tools: {', '.join(known)[:300] or 'none'}",
                )
    picked = set(overrides.tools) if overrides.tools else set(known)
    picked -= set(overrides.exclude_tools)
    return [tool for tool in tools if tool.name in picked]


def receipt_set(written: Sequence[Written]) -> ReceiptSet:
    """The receipts for the diff, keyed as `core.gate.receipt_diff.receipt_keys` says."""
    keys = receipt_keys([item.receipt for item in written])
    return ReceiptSet(
        {key: item.receipt for key, item in zip(keys, written, strict=True)},
        {key: item.file for key, item in zip(keys, written, strict=True)},
    )
