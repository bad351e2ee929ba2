"""`run --policy FILE`: fuzz every tool the policy names, write receipts and the summary.

Each tool runs once per seed: `NAME.json` for a single seed, `NAME.seed-N.json` when the
tool has several. One tool's problem never stops the others: a tool whose schema is
refused (for any schema error) or whose handler cannot be reached (its MCP server does not
start, or lists no such tool) is not fuzzed, and its refused receipt says why
(`edges.execute.attempt`). The verdict is `core.gate.verdict.decide`.
`--shard I/N` runs part of the plan (`cli.shard`); `gate`, the verdict, summary and
reports, is shared with `merge`, so merged shards write what the unsharded run writes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from toolfuzz_gate.cli.baseline import baseline_diff
from toolfuzz_gate.cli.fuzz import build_replay_command, receipt_name
from toolfuzz_gate.cli.progress import Progress
from toolfuzz_gate.cli.reports import (
    build_report_context,
    report_document,
    schema_source,
    write_reports,
)
from toolfuzz_gate.core.campaign.refusal import Refusal, error_refusal, reasons_of
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.campaign.tool_fuzz import FuzzConfig
from toolfuzz_gate.core.gate.handler_settings import HandlerSettings
from toolfuzz_gate.core.gate.policy import RunOptions, ToolPolicy
from toolfuzz_gate.core.gate.receipt_diff import ReceiptSet, receipt_keys
from toolfuzz_gate.core.gate.regression import gate_on_regressions, schema_judge
from toolfuzz_gate.core.gate.sharding import parse_shard
from toolfuzz_gate.core.gate.verdict import Verdict, decide
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.report.context import ReplayFrom, ReportContext, SchemaSource
from toolfuzz_gate.core.report.terminal import render_receipt_summary, render_refused_summary
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.execute import SchemaLines, ToolRun, attempt, refuse
from toolfuzz_gate.edges.files import load_json, write_document
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.models import load_model_tool
from toolfuzz_gate.edges.policy_file import LoadedPolicy, load_policy
from toolfuzz_gate.errors import HandlerError, PolicyError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

if TYPE_CHECKING:
    from toolfuzz_gate.cli.corpus_run import CorpusRun


@dataclass(frozen=True)
class Written:
    receipt: JSONObject
    file: str
    refused: bool
    source: SchemaSource | None = None
    """Where the tool's schema lives in the repository, for reports (None: a server's)."""


@dataclass(frozen=True)
class Planned:
    """One unit of a policy run: a tool under one seed, and the receipt file it writes."""

    tool: ToolPolicy
    options: RunOptions
    seed: int
    file: str


def command_policy_run(args: argparse.Namespace, argv: Sequence[str], out: TextIO) -> ExitCode:
    if args.cases is not None:
        raise UsageError("--cases goes with one tool (fuzz), not with --policy")
    if args.baseline is not None and args.baseline_dir is not None:
        raise UsageError("--baseline and --baseline-dir conflict: name one base")
    shard = None if args.shard is None else parse_shard(args.shard)
    if shard is not None and (args.baseline is not None or args.baseline_dir is not None):
        raise UsageError(
            "--shard runs part of the tools, so it cannot diff against a base",
            hint="give --baseline-dir DIR to `toolfuzz-gate merge` instead: it diffs the "
            "merged receipts",
        )
    loaded = load_policy(args.policy, args.root)
    replay = build_replay_command(argv)
    if shard is not None:  # a shard replays no corpus: `merge` does, once for all shards
        from toolfuzz_gate.cli.shard import command_shard_run

        return command_shard_run(args, loaded, shard, replay, out)
    from toolfuzz_gate.cli.corpus_run import replay_corpus  # it builds with this module's parts

    corpus = replay_corpus(loaded, build_overrides(args), out)
    written = run_policy(loaded, args, replay, args.out, progress=Progress(out))
    diff = baseline_diff(args, loaded, receipt_set(written), replay, out)
    return gate(loaded, written, diff, args.out, out, corpus).exit_code


@dataclass(frozen=True)
class GateOutcome:
    """What `gate` decided and wrote: the exit code, and the diff document and report
    context the reports were rendered from (the action renders its comment from them)."""

    exit_code: ExitCode
    verdict: Verdict
    document: JSONObject
    context: ReportContext


def gate(
    loaded: LoadedPolicy,
    written: Sequence[Written],
    diff: JSONObject | None,
    directory: Path,
    out: TextIO,
    corpus: CorpusRun,
    key: str = "default",
) -> GateOutcome:
    """The verdict over `written` (and the diff, and the replayed regression corpus):
    `diff.json`, `summary.json` and the reports written into `directory`, the receipts and
    reasons printed. Shared by `run --policy`, `merge` and `action`, so a merged run's
    summary is the unsharded run's, byte for byte; `key` is the PR comment's key."""
    verdict = gate_on_regressions(
        decide(loaded.policy.gate, [item.receipt for item in written], diff), corpus.replayed
    )
    if diff is not None:
        write_document(directory / "diff.json", diff)
    summary = build_summary(verdict, written)
    summary["regressions"] = corpus.summary()
    write_document(directory / "summary.json", summary)
    document = report_document(diff, receipt_set(written))
    context = build_report_context(
        document, verdict, written, key, replay_from_root(loaded, directory)
    )
    write_reports(directory, document, context)
    for item in written:
        print(render_written(item), file=out)
    for reason in verdict.reasons:
        print(f"  - {reason}", file=out)
    print(f"gate: {'FAILED' if verdict.failed else 'passed'}", file=out)
    exit_code = ExitCode.FAILED if verdict.failed else ExitCode.PASSED
    return GateOutcome(exit_code, verdict, document, context)


def replay_from_root(loaded: LoadedPolicy, directory: Path) -> ReplayFrom:
    """How a reviewer replays these receipts from the repository root: the receipts
    directory and the policy as paths from the root (absolute when outside it)."""
    root = loaded.root.resolve()

    def shown(path: Path) -> str:
        found = path.resolve()
        return str(found.relative_to(root)) if found.is_relative_to(root) else str(found)

    return ReplayFrom(shown(directory), shown(Path(loaded.file)))


def plan_policy(loaded: LoadedPolicy, args: argparse.Namespace) -> list[Planned]:
    """Every (tool, seed) of `loaded` in order, with the command line's overrides applied."""
    overrides = build_overrides(args)
    planned: list[Planned] = []
    names: set[str] = set()
    for tool in policy_tools(loaded):
        options = replace(tool.options, **overrides)
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


def run_policy(
    loaded: LoadedPolicy,
    args: argparse.Namespace,
    replay: str,
    directory: Path,
    planned: Sequence[Planned] | None = None,
    progress: Progress | None = None,
) -> list[Written]:
    """Fuzz the `planned` units (default: every tool of `loaded` for each of its seeds),
    receipts written into `directory`, each tool's start and end told to `progress`."""
    progress = progress or Progress(None)
    units = plan_policy(loaded, args) if planned is None else planned
    written: list[Written] = []
    prepared: dict[tuple[str, str], Prepared] = {}
    listings: dict[HandlerConfig, list[dict[str, Any]] | HandlerError] = {}
    for unit in units:
        tool, options = unit.tool, unit.options
        key = (tool.pointer, tool.name)  # a tools-file entry expands to tools of one pointer
        if key not in prepared:
            prepared[key] = _prepare(tool, options, loaded, listings)
        ready = prepared[key]
        config = FuzzConfig(
            unit.seed,
            options.runs,
            oracle=args.oracle,
            options=SchemaOptions(options.default_draft, options.format_assertion),
            dialect=options.dialect,
        )
        tool_run = ToolRun(ready.schema, ready.handler, ready.spec, config, replay)
        path = directory / unit.file
        progress.start(tool.name, unit.seed, options.runs)
        if ready.unreachable is not None:
            done = refuse(tool_run, path, (ready.unreachable,))
        else:
            source = ready.source
            located = None if source is None else SchemaLines(source.lines, source.root)
            done = attempt(tool_run, path, diagnostics=args.diagnostics, located=located)
        progress.done(tool.name, done.receipt)
        written.append(Written(done.receipt, unit.file, done.refused, ready.source))
    return written


@dataclass(frozen=True)
class Prepared:
    """What every seed of one policy tool shares; `unreachable` is why its handler cannot
    give the schema (its MCP server does not start or lists no such tool), else None."""

    handler: HandlerConfig
    schema: JSON
    spec: ToolSpec
    source: SchemaSource | None
    unreachable: Refusal | None = None


def _prepare(
    tool: ToolPolicy,
    options: RunOptions,
    loaded: LoadedPolicy,
    listings: dict[HandlerConfig, list[dict[str, Any]] | HandlerError],
) -> Prepared:
    handler = build_policy_handler(tool.handler, tool.name, options, loaded)
    spec = build_policy_spec(tool, options)
    try:
        schema = tool_schema(tool, handler, loaded, listings)
    except HandlerError as error:
        return Prepared(handler, None, spec, None, error_refusal(error))
    return Prepared(handler, schema, spec, schema_source(tool, loaded))


def receipt_set(written: Sequence[Written]) -> ReceiptSet:
    """The receipts for the diff, keyed as `core.gate.receipt_diff.receipt_keys` says."""
    keys = receipt_keys([item.receipt for item in written])
    return ReceiptSet(
        {key: item.receipt for key, item in zip(keys, written, strict=True)},
        {key: item.file for key, item in zip(keys, written, strict=True)},
    )


def build_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The run options the command line gives explicitly; they beat the policy's."""
    given: dict[str, Any] = {}
    if getattr(args, "_seen_seed", False):
        given["seeds"] = (args.seed,)
    if getattr(args, "_seen_runs", False):
        given["runs"] = args.runs
    if args.format_assertion:
        given["format_assertion"] = True
    if getattr(args, "_seen_default_draft", False):
        given["default_draft"] = args.default_draft
    return given


def build_policy_handler(
    handler: HandlerSettings, tool: str, options: RunOptions, loaded: LoadedPolicy
) -> HandlerConfig:
    """The adapter config, its code read from the policy's checkout (`loaded.root`)."""
    mirrors = None if loaded.mirrors is None else str(loaded.mirrors)
    return HandlerConfig.from_policy(handler, tool, options, root=str(loaded.root), mirrors=mirrors)


@dataclass(frozen=True)
class ReplaySetup:
    """What replaying stored inputs on a policy tool needs: its handler, its contract and
    the judge of validity under its current schema (None when the engine refuses it)."""

    handler: HandlerConfig
    spec: ToolSpec
    judge: Callable[[JSON], bool] | None


def replay_setup(
    tool: ToolPolicy,
    options: RunOptions,
    loaded: LoadedPolicy,
    listings: dict[HandlerConfig, list[dict[str, Any]] | HandlerError] | None = None,
) -> ReplaySetup:
    """`listings`: as for `tool_schema`, shared by the tools a caller sets up in turn."""
    handler = build_policy_handler(tool.handler, tool.name, options, loaded)
    reading = SchemaOptions(options.default_draft, options.format_assertion)
    schema = tool_schema(tool, handler, loaded, listings)
    judge = schema_judge(schema, reading, options.dialect)
    return ReplaySetup(handler, build_policy_spec(tool, options), judge)


def policy_tools(loaded: LoadedPolicy) -> list[ToolPolicy]:
    """The policy's tools in order, each tools-file entry without `tool:` expanded."""
    return [one for entry in loaded.policy.tools for one in _expanded(entry)]


def _expanded(tool: ToolPolicy) -> list[ToolPolicy]:
    """An entry naming a tools file without `tool:` stands for every tool the file declares,
    each under its declared name (and with its own receipt)."""
    if tool.tools is None or tool.pick is not None:
        return [tool]
    declared = load_declarations(Path(tool.tools)).tools
    return [replace(tool, name=item.name, pick=item.name) for item in declared]


def build_policy_spec(tool: ToolPolicy, options: RunOptions) -> ToolSpec:
    """The tool's contract as the policy declares it."""
    return ToolSpec(
        tool.name,
        expected_rejections=tool.expected_rejections,
        error_codes=tool.error_codes,
        dry_run=tool.dry_run,
        max_output_bytes=options.max_output_bytes,
    )


def tool_schema(
    tool: ToolPolicy,
    handler: HandlerConfig,
    loaded: LoadedPolicy,
    listings: dict[HandlerConfig, list[dict[str, Any]] | HandlerError] | None = None,
) -> JSON:
    """The tool's schema: its file, model or tools-file entry, or its MCP server's listing.

    `listings` remembers each server's `tools/list` (or why it failed) across the tools of
    a run, so a server is asked once and a server that does not start refuses every one
    of its tools with the same reason. `HandlerError` when the server does not start or
    lists no such tool."""
    if tool.schema is not None:
        return load_json(Path(tool.schema), what="schema")
    if tool.model is not None:
        return load_model_tool(tool.model, checkout=handler.checkout).schema
    if tool.tools is not None:
        declared = load_declarations(Path(tool.tools)).tools
        listed = [(item.name, item.schema) for item in declared]
        where = "tools file"
    else:
        listed = [
            (str(item.get("name")), item.get("inputSchema", {}))
            for item in _server_tools(handler, {} if listings is None else listings)
        ]
        where = "MCP server"
    wanted = tool.pick or handler.target
    for name, schema in listed:
        if name == wanted:
            return schema
    known = ", ".join(name for name, _ in listed)[:200] or "none"
    if tool.tools is None:
        raise HandlerError(f"the {where} lists no tool named {wanted!r}; it has: {known}")
    key = f"{tool.pointer}/tool" if tool.tools is not None else f"{tool.pointer}/handler"
    raise PolicyError(
        f"the {where} declares no tool named {wanted!r}; it has: {known}",
        file=loaded.file,
        line=loaded.lines.get(key, loaded.lines.get(tool.pointer, 1)),
        key=key[1:],
    )


def _server_tools(
    handler: HandlerConfig, listings: dict[HandlerConfig, list[dict[str, Any]] | HandlerError]
) -> list[dict[str, Any]]:
    server = replace(handler, target="")
    if server not in listings:
        from toolfuzz_gate.edges.handlers.mcp import list_tools

        try:
            listings[server] = list_tools(handler)
        except HandlerError as error:
            listings[server] = error
    found = listings[server]
    if isinstance(found, HandlerError):
        raise found
    return found


def build_summary(verdict: Verdict, written: Sequence[Written]) -> JSONObject:
    """`toolfuzz-summary/1`: the verdict, counts, and per receipt its coverage and findings."""
    ordered = sorted(written, key=lambda item: (str(item.receipt["tool"]), item.file))
    tools: list[JSON] = []
    for item in ordered:
        receipt: dict[str, Any] = item.receipt
        findings: list[JSON] = [
            {"fingerprint": c["fingerprint"], "failure": c["failure"], "path": c["path"]}
            for c in receipt["counterexamples"]
        ]
        tools.append(
            {
                "tool": receipt["tool"],
                "seed": receipt["seed"],
                "receipt": item.file,
                "receiptHash": receipt["receiptHash"],
                "refused": item.refused,
                "counterexamples": len(findings),
                "coverage": receipt["coverage"],
                "findings": findings,
                "unsupported": receipt["unsupported"],
                "refusal": list[JSON](reasons_of(receipt)),
            }
        )
    counterexamples = sum(_count(item.receipt, "counterexamples") for item in written)
    unsupported = sum(_count(item.receipt, "unsupported") for item in written)
    return {
        "format": "toolfuzz-summary/1",
        "verdict": "failed" if verdict.failed else "passed",
        "reasons": list(verdict.reasons),
        "counts": {
            "tools": len({item.receipt["tool"] for item in written}),
            "receipts": len(written),
            "counterexamples": counterexamples,
            "refused": sum(1 for item in written if item.refused),
            "unsupported": unsupported,
        },
        "tools": tools,
    }


def _count(receipt: JSONObject, member: str) -> int:
    value = receipt[member]
    return len(value) if isinstance(value, list) else 0


def render_written(item: Written) -> str:
    """The receipt's summary lines, or, for a refused tool, each reason it was refused
    (code, pointer, line, message and hint, as the console prints a schema error)."""
    if not item.refused:
        return render_receipt_summary(item.receipt, item.file)
    return render_refused_summary(item.receipt, item.file)
