"""`replay RECEIPT`: re-run a receipt's counterexamples against the handler, say which fail.

The handler is the policy entry of the receipt's tool with `--policy`. Without it, the
receipt's own `replayCommand` is parsed like a command line: a `fuzz` command names its
handler completely (paths relative to where it ran, so replay from that directory) and
must agree with the receipt's `handler` label (the command line's grammar reads it back:
`ReplayRequest.read_command`); `run` is the built-in handler; a receipt
of `run --policy` needs `--policy`, since its handler lives in the policy file.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from toolfuzz_gate.app.front_doors import builtin_tool
from toolfuzz_gate.app.fuzz import fuzz_handler
from toolfuzz_gate.app.policy_plan import policy_tools
from toolfuzz_gate.app.requests import (
    BuiltinRunRequest,
    CommandReader,
    FuzzRequest,
    PolicyRunRequest,
    ReplayRequest,
)
from toolfuzz_gate.app.stateful_replay import is_stateful, replay_sequences
from toolfuzz_gate.app.tool_setup import Listings, replay_setup, server_output_schema
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_members import Contract
from toolfuzz_gate.core.campaign.rejection_code import pattern_problem, regex_problem
from toolfuzz_gate.core.campaign.tool import ToolSpec
from toolfuzz_gate.core.gate.regression import (
    FAILING_OUTCOMES,
    RegressionCase,
    build_case,
    parse_case,
    render_replayed,
    select,
)
from toolfuzz_gate.core.jsonutil.canonical import JSON
from toolfuzz_gate.core.schema.limits import DEFAULT_MAX_OUTPUT_BYTES
from toolfuzz_gate.edges.case_replay import replay_cases
from toolfuzz_gate.edges.handlers.config import HandlerConfig
from toolfuzz_gate.edges.policy_file import load_policy
from toolfuzz_gate.edges.receipts import load_receipt
from toolfuzz_gate.errors import ReceiptError, ToolfuzzError, UsageError
from toolfuzz_gate.exitcodes import ExitCode

NEEDS_POLICY = "give --policy FILE: the handler is then the policy entry of the receipt's tool"


def replay(request: ReplayRequest, out: TextIO) -> ExitCode:
    receipt = load_receipt(request.receipt)
    if is_stateful(receipt):
        policy, root, chosen = request.policy, request.root, request.fingerprints
        return replay_sequences(receipt, chosen, policy, root, out)
    cases: list[RegressionCase] = []
    for example in select(receipt, request.fingerprints):
        try:
            cases.append(parse_case(build_case(receipt, example)))
        except ReceiptError as error:
            if request.fingerprints:
                raise
            print(f"skipped: {error.message}", file=out)
    if not cases:
        print(f"{request.receipt}: no counterexamples to replay", file=out)
        return ExitCode.PASSED
    handler, tool, judge = replay_handler(request, receipt)
    replayed = replay_cases(handler, tool, cases, judge)
    for item in replayed:
        print(render_replayed(item, str(request.receipt)), file=out)
    failing = sum(1 for item in replayed if item.outcome in FAILING_OUTCOMES)
    print(f"replay: {failing} of {len(replayed)} still fail", file=out)
    return ExitCode.FAILED if failing else ExitCode.PASSED


def replay_handler(
    request: ReplayRequest, receipt: Receipt
) -> tuple[HandlerConfig, ToolSpec, Callable[[JSON], bool] | None]:
    """The handler, the contract and (with a policy) the judge of validity under the
    tool's current schema, which marks inputs that changed sides `stale`."""
    name = receipt.tool
    if request.policy is None:
        if request.root is not None:
            raise UsageError("--root goes with --policy")
        handler, spec = (
            handler_from_receipt(receipt, request.read_command),
            spec_from_receipt(receipt),
        )
        if receipt.output_schema is not None:
            # The receipt says whether one was applied, not the schema: the server says it.
            spec = replace(spec, output_schema=server_output_schema(handler))
        return handler, spec, None
    loaded = load_policy(request.policy, request.root)
    listings: Listings = {}
    tools = policy_tools(loaded, listings)
    for tool in tools:
        if tool.name == name:
            setup = replay_setup(tool, tool.options, loaded, listings)
            return setup.handler, setup.spec, setup.judge
    known = ", ".join(tool.name for tool in tools)[:200]
    raise UsageError(f"the policy {request.policy} has no tool {name!r}; it has: {known}")


def handler_from_receipt(receipt: Receipt, read_command: CommandReader) -> HandlerConfig:
    """The handler the receipt's `replayCommand` started, checked against its label;
    `read_command` reads the words after `toolfuzz-gate` into their request."""
    command = receipt.replay_command
    try:
        words = shlex.split(command)
    except ValueError:
        words = []
    if words[:1] != ["toolfuzz-gate"]:
        raise ReceiptError(
            f"the receipt's replayCommand is not a toolfuzz-gate command: {command[:160]!r}",
            hint=NEEDS_POLICY,
        )
    try:
        request = read_command(words[1:])
        if isinstance(request, PolicyRunRequest):
            raise ReceiptError(
                f"the receipt comes from `run --policy {request.policy}`; its handler is "
                "described in that policy, not in the receipt",
                hint=NEEDS_POLICY,
            )
        if isinstance(request, BuiltinRunRequest):
            builtin = builtin_tool()
            config = HandlerConfig.from_policy(builtin.handler, builtin.name, builtin.options)
        elif isinstance(request, FuzzRequest):
            config = fuzz_handler(request)
        else:
            raise ReceiptError(
                f"the receipt's replayCommand does not fuzz: {command[:160]!r}",
                hint=NEEDS_POLICY,
            )
    except ReceiptError:
        raise
    except ToolfuzzError as error:
        raise ReceiptError(
            f"the receipt's replayCommand cannot be read back: {error.message}",
            hint=NEEDS_POLICY,
        ) from None
    label: Any = receipt.handler
    if config.kind == "mcp" and isinstance(label.get("mcp"), dict):
        config = replace(config, target=str(label["mcp"].get("tool", "")))
    if config.label() != label:
        raise ReceiptError(
            "the receipt's replayCommand and its handler label describe different handlers",
            hint=NEEDS_POLICY,
        )
    return config


def spec_from_receipt(receipt: Receipt) -> ToolSpec:
    """The contract the receipt was judged under (`contract`, the output ceiling)."""
    contract = receipt.contract or Contract((), None, None)
    rejections = contract.expected_rejections
    codes, dry_run = contract.error_codes, contract.dry_run
    ceiling = receipt.max_output_bytes
    recoding = contract.rejection_code
    answer = contract.rejection_answer
    for key, given, problem_of in (
        ("errorCodes", codes, regex_problem),
        ("rejectionCode", recoding, pattern_problem),
        ("rejectionAnswer", answer, regex_problem),
    ):
        problem = problem_of(given) if isinstance(given, str) else None
        if problem is not None:
            raise ReceiptError(f"the receipt's contract/{key}: {problem}")
    return ToolSpec(
        receipt.tool,
        expected_rejections=rejections,
        error_codes=codes,
        rejection_code=recoding,
        rejection_answer=answer,
        dry_run=dry_run,
        max_output_bytes=ceiling if isinstance(ceiling, int) else DEFAULT_MAX_OUTPUT_BYTES,
        checks=receipt.checks_held,
    )
