"""`agent --policy FILE --receipts DIR`: are the schema campaign's runtime failures
reachable by an agent? One agent receipt per schema receipt, beside them in `agent/`.

The counterexamples come from the receipts a `run --policy` (or `fuzz`) wrote; each tool's
handler is its policy entry, run through the same adapters and judged as `replay` judges
a case. The model is the policy's `llm` section: answered from the cassette in `replay`
mode, asked (and recorded) in `record`, asked in `live`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TextIO

from toolfuzz_gate.app.model_key import keep_key_from_handlers
from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.tool_setup import Listings, replay_setup, tool_schema
from toolfuzz_gate.core.agent.agent_receipt import (
    RUN_COUNTS,
    build_agent_receipt,
    count_results,
    model_record,
)
from toolfuzz_gate.core.agent.documentation_probe import (
    probe_case,
    probe_entry,
    probe_messages,
    read_prompts,
)
from toolfuzz_gate.core.agent.health import model_health, unjudged_items
from toolfuzz_gate.core.agent.loop import FunctionTool, run_agent
from toolfuzz_gate.core.agent.reachability import (
    JudgedCalls,
    agent_case,
    receipt_cases,
    try_finding,
)
from toolfuzz_gate.core.agent.refinement import CorrectnessRun, check_correctness
from toolfuzz_gate.core.agent.session import ModelSession
from toolfuzz_gate.core.campaign.outcome import Handler
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.gate.policy import ToolPolicy
from toolfuzz_gate.core.gate.receipt_diff import receipt_keys
from toolfuzz_gate.core.gate.regression import schema_judge
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject
from toolfuzz_gate.core.report.agent_lines import render_run_totals, render_tool_lines
from toolfuzz_gate.core.schema.options import SchemaOptions
from toolfuzz_gate.edges.agent_receipts import AGENT_DIRECTORY
from toolfuzz_gate.edges.declarations import load_declarations
from toolfuzz_gate.edges.files import write_document
from toolfuzz_gate.edges.handlers.registry import HandlerConfig, build_handler
from toolfuzz_gate.edges.llm.cassette_file import open_session, write_cassette
from toolfuzz_gate.edges.policy_file import LoadedPolicy, load_policy
from toolfuzz_gate.edges.receipts import load_receipts
from toolfuzz_gate.edges.secrets import make_undumpable
from toolfuzz_gate.errors import UsageError
from toolfuzz_gate.exitcodes import ExitCode

OUTPUT_TEXT_CHARS = 2_000
"""Characters of an accepted call's output the agent sees (and its receipt keeps)."""


@dataclass(frozen=True)
class AgentRequest:
    policy: Path
    receipts: Path
    out: Path | None = None
    """Where the agent receipts go (None: `agent/` under `receipts`)."""
    root: Path | None = None
    environ: Mapping[str, str] = field(default_factory=dict)
    """Where the API key is read from (only the variable `llm.api_key_env` names)."""
    sleep: Callable[[float], None] = time.sleep
    """How the client waits between retries (tests pass one that does not)."""


def agent(request: AgentRequest, out: TextIO) -> ExitCode:
    """Exit 1 when a counterexample is agent-reachable, a documentation probe's call fails
    or a prompt set is erroneous, else 0 (a reachable note is documentation to fix, as in
    the schema gate, not a failure)."""
    loaded = load_policy(request.policy, request.root)
    found = load_receipts(request.receipts)
    pairs = [(found.files[key], found.receipts[key]) for key in found.receipts]
    directory = request.out or request.receipts / AGENT_DIRECTORY
    tried = try_receipts(loaded, pairs, directory, request.environ, request.sleep, out)
    return ExitCode.FAILED if tried.failing() else ExitCode.PASSED


@dataclass(frozen=True)
class AgentTried:
    """What one agent run wrote (the agent receipts) and counted."""

    receipts: list[JSONObject]
    counts: dict[str, int]

    unjudged_fails: bool = True
    """`agent.unjudged: fail` (the default): a check the model kept agent mode from making
    fails the run; `note`: it is only reported."""

    def failing(self) -> int:
        """Reachable counterexamples, failing probes and erroneous prompt sets, and the
        checks that could not be judged unless the policy only notes them."""
        found = self.counts["counterexamples"] + self.counts["failing"] + self.counts["erroneous"]
        return found + (self.counts["unjudged"] if self.unjudged_fails else 0)


def try_receipts(
    loaded: LoadedPolicy,
    pairs: Sequence[tuple[str, Receipt]],
    directory: Path,
    environ: Mapping[str, str],
    sleep: Callable[[float], None],
    out: TextIO,
) -> AgentTried:
    """Schema receipts (file name, receipt) tried through the agent, in receipt-key order
    whoever calls (`agent`, or the gate of `run --policy`); agent receipts written into
    `directory` under the same file names, a line per finding and a summary printed."""
    settings = loaded.policy.llm
    if settings is None:
        raise UsageError(
            f"the policy {loaded.file} has no llm section",
            hint="add `llm: {base_url, model, cassette}` (see docs/agent-mode.md)",
        )
    keep_key_from_handlers(loaded, environ)
    make_undumpable()  # a handler runs as our user: it must not read the key from our memory
    keys = receipt_keys([receipt for _, receipt in pairs])
    session, client = open_session(settings, environ, sleep)
    done: list[tuple[str, ToolResults]] = []
    probed: set[str] = set()
    tried_from: dict[tuple[str, str], str] = {}  # (tool, fingerprint) -> its first receipt
    listings: Listings = {}  # each server listed once, for every tool of it
    tools = {tool.name: tool for tool in policy_tools(loaded, listings)} if pairs else {}
    try:
        for index in sorted(range(len(pairs)), key=keys.__getitem__):
            file, receipt = pairs[index]
            tool = tools.get(receipt.tool)  # a whole entry's tools each under its own name
            if tool is None:
                print(f"skipped: {file}: the policy has no tool {receipt.tool!r}", file=out)
                continue
            if receipt.refused is not None:
                print(f"skipped: {file}: the tool was refused, not fuzzed", file=out)
                continue
            probe = tool.name not in probed  # once per tool, not per seed
            probed.add(tool.name)
            results = _try_tool(session, loaded, tool, receipt, file, probe, tried_from, listings)
            done.append((file, results))
    finally:
        if client is not None:
            client.close()
        if settings.mode == "record" and settings.cassette is not None:
            write_cassette(Path(settings.cassette), session.cassette)
    digest = None if settings.mode == "live" else session.cassette.digest()
    model = model_record(settings)
    counts = dict.fromkeys(RUN_COUNTS, 0)
    written: list[JSONObject] = []
    for file, results in done:
        document = build_agent_receipt(
            results.tool,
            results.source,
            model,
            digest,
            results.budget,
            results.findings,
            results.skipped,
            results.probes,
            results.correctness,
            results.health,
        )
        write_document(directory / file, document)
        written.append(document)
        unjudged = unjudged_items(results.health)
        found = (results.findings, results.probes, results.correctness)
        count_results(counts, *found, len(unjudged), results.probes_missing)
        for line in render_tool_lines(results.tool, *found, unjudged):
            print(line, file=out)
    rule = loaded.policy.gate.agent_unjudged
    budget, unmetered = session.budget, session.unmetered
    for line in render_run_totals(counts, str(directory), rule, budget, unmetered, settings.mode):
        print(line, file=out)
    return AgentTried(written, counts, rule == "fail")


@dataclass(frozen=True)
class ToolResults:
    """One schema receipt's counterexamples tried through the agent."""

    tool: str
    source: JSONObject
    budget: JSONObject
    findings: list[JSONObject]
    skipped: list[JSONObject]
    probes: list[JSONObject]
    """Requests written from the documentation alone, and what the agent did with them."""
    correctness: list[JSONObject]
    """Prompt sets of synonymous requests, judged, and the refinements of erroneous ones."""
    health: JSONObject
    """What the model did that kept checks from being made (`core.agent.health`)."""
    probes_missing: int
    """1 when documentation probes were asked for and the reply held none, else 0."""


class Running:
    """The tool's handler for agent runs. A tool whose policy declares a reset
    (`reset_command`, `reset_tool`) gets a fresh handler, reset first, before each agent
    run calls it (`restart`): every run starts from the same state, as every seed does."""

    def __init__(self, config: HandlerConfig) -> None:
        self.config = config
        self.resets = bool(config.reset_command) or config.reset_tool is not None
        self._stack = ExitStack()
        self.handler: Handler = self._stack.enter_context(build_handler(config))
        self._used = False

    def restart(self) -> None:
        if not self._used:  # the handler just started (and reset) is still fresh
            self._used = True
            return
        self._stack.close()
        self._stack = ExitStack()
        self.handler = self._stack.enter_context(build_handler(self.config))

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


def _try_tool(
    session: ModelSession,
    loaded: LoadedPolicy,
    tool: ToolPolicy,
    receipt: Receipt,
    file: str,
    probe: bool,
    tried_from: dict[tuple[str, str], str],
    listings: Listings,
) -> ToolResults:
    """The receipt's findings, each tried through the agent unless `tried_from` holds its
    fingerprint (another seed's receipt found the same; it is listed as skipped, with that
    receipt); with `probe`, requests written from the documentation alone too."""
    setup = replay_setup(tool, tool.options, loaded, listings)
    schema = tool_schema(tool, setup.handler, loaded, listings)
    documented = _description(tool, setup.handler.target, schema, listings)
    function = FunctionTool(tool.name, documented, schema)
    found_cases, skipped = receipt_cases(receipt)
    cases = []
    for case in found_cases:
        earlier = tried_from.setdefault((tool.name, case.fingerprint), file)
        if earlier == file:
            cases.append(case)
        else:
            reason = f"the same finding was tried from {earlier}"
            skipped.append({"fingerprint": case.fingerprint, "reason": reason})
    sizes = loaded.policy.agent
    context = sizes.context_for(tool.name)
    reading = SchemaOptions(tool.options.default_draft, tool.options.format_assertion)
    before = session.budget.spent()
    unmetered, retries = session.unmetered, session.retries
    findings: list[JSONObject] = []
    probes: list[JSONObject] = []
    correctness: list[JSONObject] = []
    handler = replace(setup.handler, output_text_chars=OUTPUT_TEXT_CHARS)
    if cases or probe:
        with Running(handler) as running:
            judged = JudgedCalls(lambda: running.handler, setup.spec, setup.judge)
            fresh = running.restart if running.resets else None
            for case in cases:
                if fresh is not None:
                    fresh()  # the verbatim call, like an agent run, starts from the reset state
                found = judged.verbatim(case)
                call = judged.caller(partial(agent_case, case), case.valid, True)
                entry = try_finding(
                    case,
                    function,
                    session.ask,
                    call,
                    found,
                    fresh_state=fresh,
                    max_steps=sizes.steps,
                    context=context,
                )
                findings.append(entry)
            if probe:
                call = judged.caller(partial(probe_case, tool.name), True)
                if sizes.probes:
                    asked = probe_messages(function, sizes.probes, context)
                    for prompt in read_prompts(session.ask(asked), sizes.probes):
                        run = run_agent(prompt, function, session.ask, call, sizes.steps, fresh)
                        probes.append(probe_entry(prompt, run))
                judge_under = partial(schema_judge, options=reading, dialect=tool.options.dialect)
                checking = CorrectnessRun(sizes, context, receipt, fresh, judge_under)
                correctness = check_correctness(function, session.ask, call, checking)
    budget: JSONObject = dict(session.budget.spent_since(before))
    source: JSONObject = {"file": file, "receiptHash": receipt.receipt_hash}
    health = model_health(
        findings,
        probes,
        correctness,
        probes_asked=probe and sizes.probes > 0,
        unmetered=session.unmetered - unmetered,
        retries=session.retries - retries,
    )
    missing = int(probe and sizes.probes > 0 and not probes)
    return ToolResults(
        tool.name, source, budget, findings, skipped, probes, correctness, health, missing
    )


def _description(tool: ToolPolicy, target: str, schema: JSON, listings: Listings) -> str:
    """The tool's documentation as an agent would read it: the MCP server's or the tools
    file's description of the tool, else the schema's own `description`."""
    if tool.tools is not None:
        declared = load_declarations(Path(tool.tools)).tools
        said = next((d.description for d in declared if d.name == (tool.pick or tool.name)), "")
        if said:
            return said
    for listed in listings.values():
        for item in listed if isinstance(listed, list) else []:
            listed_said = item.get("description")
            if item.get("name") == (tool.pick or target) and isinstance(listed_said, str):
                return listed_said
    given = schema.get("description") if isinstance(schema, dict) else None
    return given if isinstance(given, str) else ""
