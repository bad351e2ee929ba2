"""The receipt of one server's stateful campaign (pure).

It is a `toolfuzz-receipt/1` like a tool's (so diffs, verdicts and reports read it as they
read any), keyed `stateful:<server>`: each counterexample carries the minimal `sequence`
(each call's tool, arguments, outcome and linked values, the failing call marked), its
`input` is that sequence's calls, and its fingerprint is the class, the failing tool and
the cause, so base and head match as for single calls. `stateful` says what the campaign
inferred (each tool's kind, the links) and did (sequences planned and run, calls, why it
stopped, findings dropped and why). `invariants` is the ledger of the checks across calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolfuzz_gate import ENGINE_NAME, __version__
from toolfuzz_gate.core.campaign.findings import fingerprint
from toolfuzz_gate.core.campaign.receipt import Receipt
from toolfuzz_gate.core.campaign.receipt_ledgers import BudgetRecord
from toolfuzz_gate.core.campaign.receipt_members import (
    Engine,
    RecordedCounterexample,
    Replay,
    StatefulRecord,
)
from toolfuzz_gate.core.campaign.stateful.links import Link, ServerTool
from toolfuzz_gate.core.campaign.stateful.sequence import Call, LinkRef, Step
from toolfuzz_gate.core.campaign.stateful.sequence_checks import CHECKS
from toolfuzz_gate.core.campaign.stateful.stateful_campaign import (
    SequenceCounterexample,
    StatefulConfig,
    StatefulResult,
)
from toolfuzz_gate.core.jsonutil import pointer as jp
from toolfuzz_gate.core.jsonutil.canonical import JSON, JSONObject, digest
from toolfuzz_gate.core.jsonutil.redact import ELIDED, bounded_message, present

PREFIX = "stateful:"


RUNNERS = ("python", "python3", "node", "uv", "uvx", "npx", "deno", "bun", "env")
"""Programs that run the server's script: the server is named by the script."""


def receipt_name(server: str) -> str:
    """The receipt key of a server's stateful campaign."""
    return f"{PREFIX}{server}"


def server_name(argv: Sequence[str]) -> str:
    """A short name for the server `argv` starts: its program, or the script a runner
    (`python`, `node`, `npx` ...) is given."""
    words = [arg.rpartition("/")[2] for arg in argv]
    picked = words[0] if words else "server"
    if picked in RUNNERS or picked.startswith("python"):
        rest = [w for w in words[1:] if w and not w.startswith("-")]
        picked = rest[0] if rest else picked
    stem = picked.rsplit(".", 1)[0] if "." in picked else picked
    return stem or "server"


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `name-2`, `name-3` ... when `taken` has it (two servers of one program);
    the name returned is added to `taken`."""
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}-{number}", number + 1
    taken.add(candidate)
    return candidate


def sequence_input(steps: Sequence[Step]) -> list[JSON]:
    """A sequence's calls as `replay` runs them again: tool, arguments, links."""
    calls: list[JSON] = []
    for step in steps:
        call: JSONObject = {"tool": step.call.tool, "arguments": present(step.call.arguments)}
        if step.call.links:
            call["links"] = [link.as_json() for link in step.call.links]
        calls.append(call)
    return calls


def stateful_receipt(
    server: str,
    tools: Mapping[str, ServerTool],
    links: Sequence[Link],
    config: StatefulConfig,
    result: StatefulResult,
    *,
    handler_label: JSONObject,
    replay_command: str,
    budget: BudgetRecord | None = None,
    fixtures: JSONObject | None = None,
) -> Receipt:
    """`fixtures`: per tool with fixtures, what its own receipt records (laid again before
    each sequence); None or empty: the receipt has no `fixtures` member."""
    name = receipt_name(server)
    schemas = {
        t: {"input": dict(tool.input_schema), "output": tool.output_schema}
        for t, tool in tools.items()
    }
    failures = {c.finding.failure for c in result.counterexamples}
    ledger = {
        check: not any(f in failures for f in classes)
        for check, (_, classes) in CHECKS.items()
        if check in config.checks
    }
    return Receipt(
        tool=name,
        seed=config.seed,
        runs=config.sequences,
        schema_digest=digest(schemas),
        handler=handler_label,
        engine=Engine(ENGINE_NAME, __version__),
        limits={
            "sequences": config.sequences,
            "maxCalls": config.max_calls,
            "window": config.window,
        },
        coverage={},
        mutation_counts={},
        invariants=ledger,
        unsupported=(),
        counterexamples=tuple(_describe(name, c, config) for c in result.counterexamples),
        under_specified=(),
        replay_command=replay_command,
        stateful=StatefulRecord(
            tools={t: tool.shape.kind.value for t, tool in sorted(tools.items())},
            links=tuple(link.as_json() for link in links),
            planned=result.planned,
            sequences=result.ran,
            calls=result.calls,
            stop=result.stop,
            dropped=dict(sorted(result.dropped.items())),
        ),
        budget=budget,
        fixtures=fixtures or None,
    )


def _describe(
    name: str, example: SequenceCounterexample, config: StatefulConfig
) -> RecordedCounterexample:
    found = example.finding
    path = jp.join("", found.tool)
    failing = example.steps[found.step].outcome if found.step < len(example.steps) else None
    error: JSONObject = {"message": bounded_message(found.message)}
    if failing is not None and failing.error_code is not None:
        error["code"] = failing.error_code
    return RecordedCounterexample(
        fingerprint=fingerprint(name, found.failure.value, path, "sequence", found.cause),
        failure=found.failure.value,
        cause=found.cause,
        path=path,
        mutation="sequence",
        keyword="",
        input_kind="valid",
        operator="sequence",
        input=sequence_input(example.steps),
        original_input={"sequence": example.sequence, "calls": example.original_calls},
        sizes=(example.original_calls, len(example.steps)),
        error=error,
        flaky=example.flaky,
        suggestion="",
        replay=Replay(config.seed, config.sequences, "stateful", example.sequence),
        reproduced={"runs": example.runs, "failed": example.failed},
        sequence=tuple(step.as_json(found.step, index) for index, step in enumerate(example.steps)),
        failing_call=found.step + 1,
    )


def calls_of(example: RecordedCounterexample) -> list[Call] | None:
    """The calls a counterexample's `input` holds, to run again (None: not a sequence, or
    one that cannot be replayed faithfully: an argument was elided in the receipt)."""
    listed = example.input
    if not isinstance(listed, list) or not listed:
        return None
    calls: list[Call] = []
    for item in listed:
        if not isinstance(item, dict):
            return None
        tool, arguments = item.get("tool"), item.get("arguments")
        if not isinstance(tool, str) or not isinstance(arguments, dict) or _elided(arguments):
            return None
        links: list[LinkRef] = []
        given = item.get("links") or []
        for link in given if isinstance(given, list) else [None]:
            if not isinstance(link, dict):
                return None
            member, at, output = link.get("member"), link.get("call"), link.get("from")
            origin = link.get("origin", "output")
            if not (isinstance(member, str) and isinstance(output, str)):
                return None
            if not isinstance(at, int) or not 1 <= at <= len(calls):
                return None
            links.append(LinkRef(member, at - 1, output, str(origin)))
        calls.append(Call(tool, arguments, tuple(links)))
    return calls


def _elided(value: JSON) -> bool:
    if isinstance(value, dict):
        return ELIDED in value or any(_elided(v) for v in value.values())
    if isinstance(value, list):
        return any(_elided(v) for v in value)
    return False
